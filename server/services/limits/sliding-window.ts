/**
 * Sliding-window arithmetic shared by every limit store (DESIGN "Decisions"): fixed windows of
 * {@link WINDOW_S} seconds; a request at fraction `f` of the current window sees
 * `previous × (1 − f) + current` requests in the last minute.
 */
export const WINDOW_S = 60;

/** Start of the fixed window holding `nowMs`, epoch seconds. */
export function windowStart(nowMs: number): number {
  return Math.floor(nowMs / 1000 / WINDOW_S) * WINDOW_S;
}

/** Weight of the previous window at `nowMs`: the part of it still inside the sliding minute, 0..1. */
export function previousWeight(nowMs: number): number {
  return 1 - (nowMs / 1000 - windowStart(nowMs)) / WINDOW_S;
}

/** A bucket's counts after a take: `current` includes this request when it was allowed. */
export interface BucketCount {
  bucket: string;
  limit: number;
  current: number;
  previous: number;
}

/** Requests the sliding minute holds for a bucket, at `nowMs`. */
export function estimate(c: BucketCount, nowMs: number): number {
  return c.previous * previousWeight(nowMs) + c.current;
}

/** Requests still allowed in the sliding minute, never negative. */
export function remaining(c: BucketCount, nowMs: number): number {
  return Math.max(0, Math.floor(c.limit - estimate(c, nowMs)));
}

/** Whole seconds until the current fixed window renews (the `RateLimit-Reset` value), at least 1. */
export function resetSeconds(nowMs: number): number {
  return Math.max(1, Math.ceil(windowStart(nowMs) + WINDOW_S - nowMs / 1000));
}

/**
 * Whole seconds until one more request fits the bucket (the `Retry-After` of a 429), at least 1.
 * Within this window the previous window's weight must fall far enough; if this window alone is full,
 * the wait runs into the next window, where this window's count becomes the weighted one.
 */
export function retryAfterSeconds(c: BucketCount, nowMs: number): number {
  const nowS = nowMs / 1000;
  const start = windowStart(nowMs);
  const f = (nowS - start) / WINDOW_S;
  let waitS: number;
  if (c.current + 1 <= c.limit) {
    // previous × (1 − f′) ≤ limit − current − 1
    const fNeeded = c.previous > 0 ? 1 - (c.limit - c.current - 1) / c.previous : f;
    waitS = (fNeeded - f) * WINDOW_S;
  } else {
    // next window: current × (1 − g) + 1 ≤ limit
    const g = c.current > 0 ? 1 - (c.limit - 1) / c.current : 0;
    waitS = start + WINDOW_S - nowS + Math.max(0, g) * WINDOW_S;
  }
  return Math.max(1, Math.ceil(waitS));
}
