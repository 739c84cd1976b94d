/** The `Request` class Node.js ships (undici's), kept before {@link installRequestSignalPassThrough} runs. */
const NodeRequest: typeof Request = globalThis.Request;

/** Where a subclass's request holds the signal it was made with (see {@link SignalKeepingRequest}). */
const KEPT_SIGNAL = Symbol("platform.keptSignal");

/** The signal a request of {@link SignalKeepingRequest}'s subclasses kept, if `input` is one. */
function keptSignal(input: unknown): AbortSignal | undefined {
  return input instanceof NodeRequest ? (input as SignalKeepingRequest)[KEPT_SIGNAL] : undefined;
}

/**
 * `init` with its `signal` replaced, every other member left as it is. A plain object (Next.js's) is
 * copied; any other keeps its members, inherited ones too (which `Request` reads), by becoming the copy's
 * prototype: V8 gives every object used as a prototype a shape of its own, which a request a second
 * should not make.
 */
function withSignal(init: RequestInit | undefined, signal: AbortSignal | null): RequestInit {
  if (init === undefined || Object.getPrototypeOf(init) === Object.prototype) return { ...init, signal };
  return Object.create(init, { signal: { value: signal, enumerable: true } }) as RequestInit;
}

/**
 * Node's `Request` for direct use, and for its subclasses (Next.js's `NextRequest`) a request whose
 * `signal` is the caller's own instead of a new one that follows it.
 *
 * Why (issue 22, bench/HISTORY.md thirty-second and thirty-third sessions): Next.js makes every route
 * handler's `NextRequest` with a signal of its own (`signalFromNodeResponse`, aborted when the client goes
 * away before the answer ends). For a request made with a signal, Node's `Request` (undici) makes a second
 * `AbortController`, a `WeakRef` to it, an abort listener on the caller's signal and a
 * `FinalizationRegistry` entry that removes that listener once the request is collected: a clean-up meant
 * for one long-lived signal given to many requests. The entry keeps the request's young objects alive
 * through every scavenge until the next full collection, so they are promoted, and promoted garbage is what
 * brings the full collections whose marking makes the bench's p99. Next.js's signal lives exactly as long
 * as its request, so the request can hold it as its own: aborting it is seen through `request.signal`
 * as before, and nothing needs cleaning up.
 *
 * Direct `new Request(...)` calls (ours, libraries', `fetch`'s) get Node's behaviour, and a direct copy of a
 * subclass's request (`new Request(nextRequest)`) follows its kept signal as it would have followed Node's.
 * One difference is left: `fetch(nextRequest)` reads the request's internal signal, which the kept one
 * does not reach, so a fetch that should stop with the client must pass `{ signal: request.signal }` (none
 * of ours fetches a route handler's request). `instanceof Request` stays true of every request Node makes.
 */
export class SignalKeepingRequest extends NodeRequest {
  /**
   * The caller's signal, when this is a subclass's request made with one. A symbol-keyed property rather
   * than a private field: Next.js hands some route handlers its request behind a `Proxy` (static and
   * `dynamic = "error"` routes), whose property reads pass the proxy as `this`, which private fields refuse.
   */
  declare [KEPT_SIGNAL]?: AbortSignal;

  /**
   * @param input a URL, or a request to copy (a kept signal is carried over, as `new Request(request)`
   *   carries Node's)
   * @param init as for `Request`; `init.signal` is kept as `this.signal` for subclasses
   * @throws TypeError as `Request` does (an invalid URL, method or body)
   */
  constructor(input: RequestInfo | URL, init?: RequestInit) {
    const copied = init?.signal === undefined ? keptSignal(input) : undefined;
    const signal = copied ?? init?.signal;
    if (new.target !== SignalKeepingRequest && signal != null) {
      // `signal: null` rather than leaving it out: undici would otherwise follow a copied request's signal.
      super(input, withSignal(init, null));
      this[KEPT_SIGNAL] = signal;
    } else super(input, copied ? withSignal(init, copied) : init);
  }

  /** The caller's signal for a subclass's request made with one; otherwise Node's own. */
  override get signal(): AbortSignal {
    return this[KEPT_SIGNAL] ?? super.signal;
  }

  /**
   * A copy whose signal follows this request's, as Node's `clone()` gives: Node's own would follow this
   * request's internal signal, which a kept signal's abort never reaches.
   * @returns a `Request` of Node's class, as `clone()` returns for subclasses
   * @throws TypeError when the body was already read
   */
  override clone(): Request {
    const clone = super.clone();
    const kept = this[KEPT_SIGNAL];
    return kept === undefined ? clone : new NodeRequest(clone, { signal: kept });
  }

  /**
   * `x instanceof Request` (this class, once installed) is true of every request Node's class made, as
   * it was before; a subclass (`x instanceof NextRequest`) checks its own prototype as usual.
   */
  static [Symbol.hasInstance](value: unknown): boolean {
    return this === SignalKeepingRequest
      ? value instanceof NodeRequest
      : Function.prototype[Symbol.hasInstance].call(this, value);
  }
}

/**
 * Makes {@link SignalKeepingRequest} the global `Request`, which Next.js's `NextRequest` extends when its
 * modules are evaluated: this must run before `next()` loads them (server/http-server.ts).
 *
 * Installs nothing when another class than Node's is already installed (someone chose it).
 * @param target the object holding the global (tests pass their own).
 * @returns whether it installed.
 */
export function installRequestSignalPassThrough(
  target: { Request?: unknown } = globalThis as { Request?: unknown },
): boolean {
  if (target.Request !== NodeRequest) return false;
  target.Request = SignalKeepingRequest;
  return true;
}
