import type { ApiCaller } from "@/server/services/actor";
import { rateLimitHeaders, takeRateLimit, type RateClass, type RateRoom } from "@/server/services/limits/rate-limiter";

/**
 * The pipeline's rate-limit step (spec "Limits"): counts the request against its key's and tenant's
 * windows ({@link takeRateLimit}) and writes `RateLimit-Limit`, `-Remaining` and `-Reset` into `headers`.
 * Without a promise when the limit store answers at once (the hot path: a take reserved ahead, or the
 * embedded database's in-process counters).
 * @throws ApiError 429 `rate_limited` (with the same headers) or 503 `service_unavailable`.
 */
export function applyRateLimit(
  caller: ApiCaller,
  rateClass: RateClass,
  headers: Record<string, string>,
): Promise<void> | void {
  const room = takeRateLimit(
    { keyId: caller.key.keyId, tenantId: caller.tenantId, limits: caller.limits, tenantLimits: caller.tenantLimits },
    rateClass,
  );
  const write = (r: RateRoom) => void Object.assign(headers, rateLimitHeaders(r));
  return room instanceof Promise ? room.then(write) : write(room);
}
