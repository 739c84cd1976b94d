/** The `Request` class Node.js ships (undici's), kept before {@link installRequestSignalPassThrough} runs. */
const NodeRequest: typeof Request = globalThis.Request;

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
 * Direct `new Request(...)` calls (ours, libraries', `fetch`'s) get Node's behaviour unchanged: `fetch`
 * reads a request's internal signal, not the getter, so only subclasses, which are handed to route
 * handlers rather than to `fetch`, keep the caller's. `instanceof Request` stays true of every request
 * Node makes.
 */
export class SignalKeepingRequest extends NodeRequest {
  /** The caller's signal, when this is a subclass's request made with one that was not yet aborted. */
  #signal: AbortSignal | undefined;

  /**
   * @param input a URL, or a request to copy (its kept signal is kept too, as `new Request(request)` does)
   * @param init as for `Request`; `init.signal` is kept as `this.signal` for subclasses
   * @throws TypeError as `Request` does (an invalid URL, method or body)
   */
  constructor(input: RequestInfo | URL, init?: RequestInit) {
    let signal = init?.signal;
    if (signal === undefined && typeof input === "object" && #signal in input) signal = input.#signal;
    const keep = new.target !== SignalKeepingRequest && signal != null && !signal.aborted;
    // `signal: null` rather than leaving it out: undici would otherwise follow a copied request's signal.
    super(input, keep ? { ...init, signal: null } : init);
    if (keep) this.#signal = signal!;
  }

  /** The caller's signal for a subclass's request made with one; otherwise Node's own. */
  override get signal(): AbortSignal {
    return this.#signal ?? super.signal;
  }

  /**
   * A copy whose signal follows this request's, as Node's `clone()` gives: Node's own would follow this
   * request's internal signal, which a kept signal's abort never reaches.
   * @returns a `Request` of Node's class, as `clone()` returns for subclasses
   * @throws TypeError when the body was already read
   */
  override clone(): Request {
    const clone = super.clone();
    return this.#signal === undefined ? clone : new NodeRequest(clone, { signal: this.#signal });
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
