import { randomUUID } from "node:crypto";
import { ApiError } from "@/server/errors";
import { addressKey, callerIp } from "@/server/lib/client-ip";
import { log } from "@/server/log";
import { parseKey } from "@/server/services/keys/key-format";
import { rateLimitHeaders, takeAddressLimit } from "@/server/services/limits/rate-limiter";
import { recordRequest } from "@/server/services/request-log/writer";
import { API_PREFIX, PIPELINE_STEPS, type RequestState } from "./pipeline-steps";
import { problemResponse } from "./problem";
import type { Router } from "./router";
import { isUnavailable } from "./unavailable";

export { API_PREFIX };

/**
 * Answers one public API request by running {@link PIPELINE_STEPS} in order (DESIGN "Hot path"):
 * route → authenticate → rate limit → wallet gate → scope → personal-data rule → idempotency key → body
 * → validate → execute (with idempotency) → answer; then one log line, and one request-log row queued for
 * the batched writer (server/services/request-log/writer.ts; no I/O on the request's path).
 * Never throws: every failure is problem+json; unexpected ones are 500 without internals, and an
 * unreachable database is 503 with Retry-After.
 * @param sentUrl the path and query the request was sent to, when the server handed it to another route
 *   (./static-door.ts); else the request's own URL is the one served
 */
export async function handlePublicRequest(request: Request, router: Router, sentUrl?: string): Promise<Response> {
  const started = performance.now();
  const arrived = new Date();
  const url = sentUrl === undefined ? new URL(request.url) : new URL(sentUrl, request.url);
  const s: RequestState = {
    request,
    url,
    router,
    requestId: `req_${randomUUID().replace(/-/g, "")}`,
    headers: {},
    path: url.pathname.startsWith(API_PREFIX) ? url.pathname.slice(API_PREFIX.length) || "/" : url.pathname,
  };
  let response: Response;
  let problem: ApiError | null = null;
  try {
    for (const step of PIPELINE_STEPS) {
      // Most steps are synchronous; awaiting only the promises saves a microtask turn per step.
      const pending = step.run(s);
      if (pending) await pending;
    }
    response = s.response!;
  } catch (err) {
    problem = toProblem(s, await beforeKeyLimit(s, err));
    response = problemResponse(problem, s.requestId, s.headers);
  }
  logRequest(s, response, problem, started, arrived);
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

/** The catalog problem a failed step answers with: its own ApiError, 503 for an unreachable database, else 500. */
function toProblem(s: RequestState, err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (isUnavailable(err)) {
    log().warn({ request_id: s.requestId, err: describe(err) }, "database unavailable");
    return new ApiError(
      "service_unavailable",
      "The service cannot accept this request safely right now; retry after a pause.",
      {},
      { "retry-after": "5" },
    );
  }
  log().error({ request_id: s.requestId, err: describe(err) }, "unexpected error");
  return new ApiError(
    "internal_error",
    "Something went wrong on our side. Retry after a pause and report the request_id if it persists.",
  );
}

/**
 * Refusals that authentication makes only after the key's secret matched: the row may name that key's
 * tenant (the writer looks it up), since only the key's holder can cause it.
 */
const VERIFIED_KEY_REFUSALS = new Set([
  "integration_inactive",
  "tenant_inactive",
  "ip_not_allowed",
  "feature_not_in_plan",
]);

/**
 * One line per request (ids, status and duration in ms; never a key, a body or personal data), and the
 * request-log row (issue 19 item 5), queued without I/O.
 */
function logRequest(
  s: RequestState,
  response: Response,
  problem: ApiError | null,
  started: number,
  arrived: Date,
): void {
  const latencyMs = Math.round((performance.now() - started) * 10) / 10;
  const caller = s.caller;
  log().info(
    {
      request_id: s.requestId,
      method: s.request.method,
      path: s.url.pathname,
      status: response.status,
      duration_ms: latencyMs,
      tenant_id: caller?.tenantId,
      key_id: caller?.key.keyId,
    },
    "public api request",
  );
  const refusedKeyId =
    !caller && problem && VERIFIED_KEY_REFUSALS.has(problem.code) ? bearerKeyId(s.request.headers) : null;
  recordRequest({
    createdAt: arrived,
    tenantId: caller?.tenantId ?? null,
    // The key's data mode (issue 69): the console's request log and usage show each mode apart.
    livemode: caller?.actor.livemode ?? true,
    integrationId: caller?.integrationId ?? null,
    apiKeyId: caller?.key.id ?? null,
    keyId: caller?.key.keyId ?? null,
    refusedKeyId,
    method: s.request.method,
    path: s.path,
    status: response.status,
    problemCode: problem?.code ?? null,
    latencyMs,
    requestId: s.requestId,
    callerAddress: callerIp(s.request.headers),
    // An answer rebuilt from an idempotency record (`Idempotent-Replayed: true`); a problem never is.
    replayed: !problem && s.reply?.replayed === true,
  });
}

/** The public `key_id` of the `Authorization: Bearer` key, or null when it holds none. */
function bearerKeyId(headers: Headers): string | null {
  const m = /^Bearer ([^\s]+)$/i.exec(headers.get("authorization")?.trim() ?? "");
  return (m && parseKey(m[1])?.keyId) || null;
}

function describe(err: unknown): { name?: string; message?: string; code?: string } {
  const e = err as { name?: string; message?: string; code?: string; cause?: { code?: string } };
  return { name: e?.name, message: e?.message?.slice(0, 300), code: e?.code ?? e?.cause?.code };
}
