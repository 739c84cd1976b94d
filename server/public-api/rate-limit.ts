import type { ApiCaller } from "@/server/services/actor";
import { rateLimitHeaders, takeRateLimit, type RateClass } from "@/server/services/limits/rate-limiter";

/**
 * The pipeline's rate-limit step (spec "Limits"): counts the request against its key's and tenant's
 * windows ({@link takeRateLimit}) and writes `RateLimit-Limit`, `-Remaining` and `-Reset` into `headers`.
 * @throws ApiError 429 `rate_limited` (with the same headers) or 503 `service_unavailable`.
 */
export async function applyRateLimit(
  caller: ApiCaller,
  rateClass: RateClass,
  headers: Record<string, string>,
): Promise<void> {
  const room = await takeRateLimit(
    { keyId: caller.key.keyId, tenantId: caller.tenantId, limits: caller.limits, tenantLimits: caller.tenantLimits },
    rateClass,
  );
  Object.assign(headers, rateLimitHeaders(room));
}
