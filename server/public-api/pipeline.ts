import { randomUUID } from "node:crypto";
import { ApiError } from "@/server/errors";
import { addressKey, callerIp } from "@/server/lib/client-ip";
import { log } from "@/server/log";
import { rateLimitHeaders, takeAddressLimit } from "@/server/services/limits/rate-limiter";
import { API_PREFIX, PIPELINE_STEPS, type RequestState } from "./pipeline-steps";
import { problemResponse } from "./problem";
import type { Router } from "./router";
import { isUnavailable } from "./unavailable";

export { API_PREFIX };

/**
 * Answers one public API request by running {@link PIPELINE_STEPS} in order (DESIGN "Hot path"):
 * route → authenticate → rate limit → wallet gate → scope → personal-data rule → idempotency key → body
 * → validate → execute (with idempotency) → answer; then one log line.
 * Never throws: every failure is problem+json; unexpected ones are 500 without internals, and an
 * unreachable database is 503 with Retry-After.
 */
export async function handlePublicRequest(request: Request, router: Router): Promise<Response> {
  const started = performance.now();
  const url = new URL(request.url);
  const s: RequestState = {
    request,
    url,
    router,
    requestId: `req_${randomUUID().replace(/-/g, "")}`,
    headers: {},
    path: url.pathname.startsWith(API_PREFIX) ? url.pathname.slice(API_PREFIX.length) || "/" : url.pathname,
  };
  let response: Response;
  try {
    for (const step of PIPELINE_STEPS) await step.run(s);
    response = s.response!;
  } catch (err) {
    response = errorResponse(s, await beforeKeyLimit(s, err));
  }
  logRequest(s, response, started);
  return response;
}

/**
 * A request refused before the rate-limit step ran (unknown path, authentication) has no key to count
 * against: it counts against its address, which gives its answer the `RateLimit-*` headers the spec sends
 * on every answer, or turns it into 429 when the address is over {@link takeAddressLimit}'s limit.
 * @returns the error to answer with
 */
async function beforeKeyLimit(s: RequestState, err: unknown): Promise<unknown> {
  if ("ratelimit-limit" in s.headers) return err;
  const address = callerIp(s.request.headers);
  try {
    Object.assign(s.headers, rateLimitHeaders(await takeAddressLimit(address ? addressKey(address) : "unknown")));
    return err;
  } catch (limited) {
    return limited;
  }
}

/** The problem+json answer of a failed step, with the headers gathered so far. */
function errorResponse(s: RequestState, err: unknown): Response {
  if (err instanceof ApiError) return problemResponse(err, s.requestId, s.headers);
  if (isUnavailable(err)) {
    log().warn({ request_id: s.requestId, err: describe(err) }, "database unavailable");
    return problemResponse(
      new ApiError(
        "service_unavailable",
        "The service cannot accept this request safely right now; retry after a pause.",
        {},
        { "retry-after": "5" },
      ),
      s.requestId,
      s.headers,
    );
  }
  log().error({ request_id: s.requestId, err: describe(err) }, "unexpected error");
  return problemResponse(
    new ApiError(
      "internal_error",
      "Something went wrong on our side. Retry after a pause and report the request_id if it persists.",
    ),
    s.requestId,
    s.headers,
  );
}

/** One line per request: ids, status and duration (ms); never a key, a body or personal data. */
function logRequest(s: RequestState, response: Response, started: number): void {
  log().info(
    {
      request_id: s.requestId,
      method: s.request.method,
      path: s.url.pathname,
      status: response.status,
      duration_ms: Math.round((performance.now() - started) * 10) / 10,
      tenant_id: s.caller?.tenantId,
      key_id: s.caller?.key.keyId,
    },
    "public api request",
  );
}

function describe(err: unknown): { name?: string; message?: string; code?: string } {
  const e = err as { name?: string; message?: string; code?: string; cause?: { code?: string } };
  return { name: e?.name, message: e?.message?.slice(0, 300), code: e?.code ?? e?.cause?.code };
}
