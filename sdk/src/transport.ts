import { ApiConnectionError, retryAfterSeconds } from "./errors.js";

/** How the client retries (spec "Errors: Handling by class"; "Limits: Idempotency rules"). */
export interface RetryOptions {
  /** Retries after the first attempt; default 3. 0 turns retrying off. */
  maxRetries?: number;
  /** First pause when the answer names none, ms; doubled per retry, with jitter; default 500. */
  initialDelayMs?: number;
  /** Longest such pause, ms; default 8,000. */
  maxDelayMs?: number;
  /**
   * Longest `Retry-After` the client waits out, ms; default 60,000. A longer one is not waited for: the
   * answer is thrown as an ApiError carrying `retryAfterSec`.
   */
  maxRetryAfterMs?: number;
}

/** Options of {@link createTransport}. */
export interface TransportOptions extends RetryOptions {
  /** The fetch to send with; default `globalThis.fetch`. */
  fetch?: (request: Request) => Promise<Response>;
  /** Time one attempt may take, answer body included, ms; default 60,000. */
  timeoutMs?: number;
  /** Adds an Idempotency-Key to every POST and PATCH sent without one; default true. */
  idempotencyKeys?: boolean;
  /** Makes a new Idempotency-Key; default `crypto.randomUUID()`. */
  newIdempotencyKey?: () => string;
  /** Waits `ms` (tests replace it); default a timer. Rejects when `signal` aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** A number in [0, 1) for jitter; default `Math.random`. */
  random?: () => number;
}

const DEFAULTS = { maxRetries: 3, initialDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 60_000, timeoutMs: 60_000 };

/** Statuses retried without reading the body: 429 `rate_limited`, 503, and the other transient 5xx. */
const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);

/**
 * Whether a request may be sent again without risk of doing its work twice: GET and HEAD, and POST or
 * PATCH carrying an `Idempotency-Key` (the API answers a repeat with the first result for 24 hours).
 * DELETE and PUT are not retried: the API ignores keys there, and a repeated delete answers `not_found`.
 */
export function isRetrySafe(method: string, headers: Headers): boolean {
  const m = method.toUpperCase();
  if (m === "GET" || m === "HEAD") return true;
  return (m === "POST" || m === "PATCH") && headers.has("idempotency-key");
}

/**
 * Pause before retry number `retry` (0-based), ms: the answer's `Retry-After` when it names one, else
 * exponential backoff `initialDelayMs * 2^retry` capped at `maxDelayMs`, with equal jitter (half fixed,
 * half random) so that many clients refused together do not return together. Null: do not retry
 * (`Retry-After` beyond `maxRetryAfterMs`).
 */
export function retryDelayMs(
  retry: number,
  retryAfter: string | null,
  o: Required<RetryOptions>,
  random: () => number,
): number | null {
  const after = retryAfterSeconds(retryAfter);
  if (after !== null) return after * 1000 > o.maxRetryAfterMs ? null : after * 1000;
  const full = Math.min(o.maxDelayMs, o.initialDelayMs * 2 ** retry);
  return Math.round(full / 2 + random() * (full / 2));
}

/**
 * Whether an answer is worth another attempt of a retry-safe request: 429, 500, 502, 503, 504, and 409
 * whose problem code is `operation_in_progress` (the first attempt with this key is still running).
 */
export async function isRetryableAnswer(res: Response): Promise<boolean> {
  if (RETRY_STATUSES.has(res.status)) return true;
  if (res.status !== 409) return false;
  try {
    const body = (await res.clone().json()) as { code?: unknown };
    return body?.code === "operation_in_progress";
  } catch {
    return false;
  }
}

/** Waits `ms` on a timer; rejects with the signal's reason as soon as `signal` aborts. */
export function timerSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * The fetch the client sends through: adds an Idempotency-Key to a POST or PATCH that has none (one key
 * per call, the same on every retry of it), bounds each attempt by `timeoutMs`, and retries a retry-safe
 * request ({@link isRetrySafe}) after a retryable answer ({@link isRetryableAnswer}) or a failure to get
 * one, pausing as {@link retryDelayMs} says. The caller's abort signal stops it at once, pauses included.
 * @returns the last answer, whatever its status (the client turns non-2xx into ApiError)
 * @throws ApiConnectionError when no answer came on the last attempt; the caller's abort reason when aborted
 */
export function createTransport(options: TransportOptions = {}): (request: Request) => Promise<Response> {
  const o = { ...DEFAULTS, ...definedOnly(options) };
  const send = options.fetch ?? ((r: Request) => globalThis.fetch(r));
  const sleep = options.sleep ?? timerSleep;
  const random = options.random ?? Math.random;
  const newKey = options.newIdempotencyKey ?? (() => globalThis.crypto.randomUUID());

  return async (request) => {
    const method = request.method.toUpperCase();
    const headers = new Headers(request.headers);
    if (
      options.idempotencyKeys !== false &&
      (method === "POST" || method === "PATCH") &&
      !headers.has("idempotency-key")
    ) {
      headers.set("idempotency-key", newKey());
    }
    const retrySafe = isRetrySafe(method, headers);
    // Read once so that every attempt sends the same bytes.
    const body =
      method === "GET" || method === "HEAD" || request.body === null ? undefined : await request.arrayBuffer();
    const caller = request.signal;

    for (let attempt = 0; ; attempt++) {
      const timeout = AbortSignal.timeout(o.timeoutMs);
      const signal = AbortSignal.any([caller, timeout]);
      const canRetry = retrySafe && attempt < o.maxRetries;
      let res: Response;
      try {
        res = await send(new Request(request.url, { method, headers, body, signal, redirect: request.redirect }));
      } catch (err) {
        if (caller.aborted) throw caller.reason ?? err;
        const timedOut = timeout.aborted;
        if (!canRetry) {
          const why = timedOut
            ? `no answer within ${o.timeoutMs} ms`
            : `connection failed (${(err as Error)?.message ?? String(err)})`;
          throw new ApiConnectionError(
            `${method} ${new URL(request.url).pathname}: ${why} after ${attempt + 1} attempt(s)`,
            timedOut,
            attempt + 1,
            { cause: err },
          );
        }
        await sleep(retryDelayMs(attempt, null, o, random)!, caller);
        continue;
      }
      if (!canRetry || !(await isRetryableAnswer(res))) return res;
      const delay = retryDelayMs(attempt, res.headers.get("retry-after"), o, random);
      if (delay === null) return res;
      await res.body?.cancel().catch(() => {});
      await sleep(delay, caller);
    }
  };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
