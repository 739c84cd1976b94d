import { randomUUID } from "node:crypto";
import type { Db } from "@/db/client";
import { getDb } from "@/db/client";
import { env } from "@/server/env";
import { ApiError } from "@/server/errors";
import { fingerprint } from "@/server/lib/canonical-json";
import { money } from "@/server/lib/money";
import { log } from "@/server/log";
import { authenticate } from "@/server/services/access/authenticate";
import { isNarrowAllowlist } from "@/server/services/access/ip-allowlist";
import type { ApiCaller } from "@/server/services/actor";
import { readWallet, topupUrl } from "@/server/services/wallet/wallet-state";
import { dispatchAfterCommit } from "@/server/jobs/dispatch";
import { readJsonBody } from "./body";
import { callerIp } from "./client-ip";
import type { AnyRoute, Reply, RouteContext } from "./define-route";
import { abandonIdempotency, beginIdempotency, completeIdempotency, IDEMPOTENCY_KEY_MAX } from "./idempotency";
import { problemResponse } from "./problem";
import { applyRateLimit } from "./rate-limit";
import type { Router } from "./router";
import { check, validationError } from "./validation";
import { isUnavailable } from "./unavailable";

/** Mount point of the public API. */
export const API_PREFIX = "/api/public/v1";

/**
 * Answers one public API request (DESIGN "The pipeline of a public request"): request id → route match
 * (404 / 405 with Allow) → key → hooks (rate limits) → wallet gate (402) → scope (403) → personal-data
 * rule (403) → body (400 / 413) → validation (404 for path, 422 for query and body) → idempotency
 * (400 / 409) → handler (in a transaction for writes) → response headers.
 * Never throws: every failure is problem+json; unexpected ones are 500 without internals, and an
 * unreachable database is 503 with Retry-After.
 */
export async function handlePublicRequest(request: Request, router: Router): Promise<Response> {
  const started = performance.now();
  const requestId = `req_${randomUUID().replace(/-/g, "")}`;
  const headers: Record<string, string> = {};
  const url = new URL(request.url);
  let caller: ApiCaller | undefined;
  let response: Response;
  try {
    response = await run();
  } catch (err) {
    response = errorResponse(err);
  }
  log().info(
    {
      request_id: requestId,
      method: request.method,
      path: url.pathname,
      status: response.status,
      duration_ms: Math.round((performance.now() - started) * 10) / 10,
      tenant_id: caller?.tenantId,
      key_id: caller?.key.keyId,
    },
    "public api request",
  );
  return response;

  function errorResponse(err: unknown): Response {
    if (err instanceof ApiError) return problemResponse(err, requestId, headers);
    if (isUnavailable(err)) {
      log().warn({ request_id: requestId, err: describe(err) }, "database unavailable");
      return problemResponse(new ApiError("service_unavailable", "The service cannot accept this request safely right now; retry after a pause.", {}, { "retry-after": "5" }), requestId, headers);
    }
    log().error({ request_id: requestId, err: describe(err) }, "unexpected error");
    return problemResponse(new ApiError("internal_error", "Something went wrong on our side. Retry after a pause and report the request_id if it persists."), requestId, headers);
  }

  async function run(): Promise<Response> {
    const rel = url.pathname.startsWith(API_PREFIX) ? url.pathname.slice(API_PREFIX.length) || "/" : url.pathname;
    const match = router.match(request.method, rel);
    if (match.kind === "not_found") throw new ApiError("not_found", `No route ${request.method} ${rel} exists in this API version.`);
    if (match.kind === "method_not_allowed") {
      throw new ApiError("method_not_allowed", `${request.method} is not supported on ${rel}.`, {}, { allow: match.allow.join(", ") });
    }
    const route = match.route;
    if (route.deprecation) {
      headers["deprecation"] = `@${Math.floor(route.deprecation.deprecatedAt.getTime() / 1000)}`;
      headers["sunset"] = route.deprecation.sunsetAt.toUTCString();
      if (route.deprecation.link) headers["link"] = `<${route.deprecation.link}>; rel="deprecation"`;
    }
    const db = await getDb();
    caller = await authenticate(db, request.headers.get("authorization"), callerIp(request.headers));
    await applyRateLimit(caller, route.rate, headers);

    // Every route reads the state (from the row fetched with the key, normally no query) so that the
    // `Service-Wallet-State: unknown` header of the spec's free reads also reaches /me and /wallet.
    const wallet = await readWallet(db, caller.tenantId, caller.walletRow);
    if (wallet.state === "unknown") {
      headers["service-wallet-state"] = "unknown";
      if (route.rate === "paid") throw new ApiError("upstream_unavailable", "The wallet state cannot be read right now, so paid operations are closed; retry after a pause.", {}, { "retry-after": "30" });
    }
    if (!route.walletExempt) {
      if (wallet.exchange === "suspended") {
        throw new ApiError("wallet_suspended", `Data exchange is suspended because the wallet is ${wallet.state}; top up to resume.`, {
          topup_url: topupUrl(caller.tenantId),
          balance: wallet.balanceMinor === null ? null : money(wallet.balanceMinor),
        });
      }
    }
    if (route.scope && !caller.scopes.includes(route.scope)) {
      throw new ApiError("scope_missing", `This route needs the scope ${route.scope}; the key's effective scopes are listed in GET /me.`);
    }
    if (route.pii && env().cell === "ru") assertPiiTransferAllowed(caller);

    const idemKey = request.headers.get("idempotency-key");
    const idemMode = route.idempotency ?? (route.method === "POST" || route.method === "PATCH" ? "optional" : "none");
    if (idemMode === "required" && !idemKey) {
      throw new ApiError("idempotency_key_required", `${route.method} ${route.path} needs an Idempotency-Key header (a new UUID per operation).`);
    }
    if (idemMode !== "none" && idemKey !== null && (idemKey.length === 0 || idemKey.length > IDEMPOTENCY_KEY_MAX || /[^\x21-\x7e]/.test(idemKey))) {
      throw new ApiError("bad_request", `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX} visible ASCII characters.`);
    }

    let rawBody: unknown = undefined;
    if (route.body) {
      rawBody = await readJsonBody(request);
      if (rawBody === undefined) throw new ApiError("bad_request", "This route needs a JSON body.");
    }
    const params: Record<string, string> = {};
    for (const [k, v] of Object.entries(match.params)) {
      try {
        params[k] = decodeURIComponent(v);
      } catch {
        throw new ApiError("not_found", `No resource at ${rel}.`);
      }
    }
    const ctx = { db, caller, requestId, request } as RouteContext<unknown, unknown, unknown>;
    if (route.params) {
      const p = check(route.params, params);
      if (!p.ok) throw new ApiError("not_found", `No resource at ${rel}.`);
      ctx.params = p.value;
    } else ctx.params = params;
    const errors = [];
    if (route.query) {
      const q = check(route.query, queryObject(url.searchParams));
      if (q.ok) ctx.query = q.value;
      else errors.push(...q.errors);
    } else if ([...url.searchParams.keys()].length) {
      const names = [...new Set(url.searchParams.keys())];
      errors.push(...names.map((n) => ({ field: `/${n}`, code: "unknown_parameter", message: `Unknown query parameter "${n}".` })));
    }
    if (route.body) {
      const b = check(route.body, rawBody);
      if (b.ok) ctx.body = b.value;
      else errors.push(...b.errors);
    }
    if (errors.length) throw validationError(errors);

    const reply = await execute(route, ctx, idemMode !== "none" ? idemKey : null, rawBody);
    return toResponse(route, reply);
  }

  async function execute(route: AnyRoute, ctx: RouteContext<unknown, unknown, unknown>, idemKey: string | null, rawBody: unknown): Promise<Reply> {
    const writes = route.method !== "GET";
    if (!writes) return route.handler(ctx);
    // Events a write records are handed to the jobs driver only after its transaction commits.
    return dispatchAfterCommit(() => executeWrite(route, ctx, idemKey, rawBody));
  }

  async function executeWrite(route: AnyRoute, ctx: RouteContext<unknown, unknown, unknown>, idemKey: string | null, rawBody: unknown): Promise<Reply> {
    const db = ctx.db;
    if (!idemKey) return db.transaction((tx) => route.handler({ ...ctx, db: tx as Db }));
    const begin = await beginIdempotency(db, {
      tenantId: ctx.caller.tenantId,
      keyMode: ctx.caller.keyMode,
      scope: `${route.method} ${new URL(ctx.request.url).pathname}`,
      key: idemKey,
      fingerprint: fingerprint(rawBody),
    });
    if (begin.kind === "replay") {
      if (!route.replay || !begin.resourceId) return { status: begin.status };
      return route.replay(ctx, begin.resourceId, begin.status);
    }
    try {
      return await db.transaction(async (tx) => {
        const reply = await route.handler({ ...ctx, db: tx as Db });
        await completeIdempotency(tx as Db, begin.recordId, reply.status, reply.resource);
        return reply;
      });
    } catch (err) {
      await abandonIdempotency(db, begin.recordId).catch(() => {});
      throw err;
    }
  }

  function toResponse(route: AnyRoute, reply: Reply): Response {
    const h: Record<string, string> = { ...headers, ...reply.headers, "x-request-id": requestId };
    if (route.cacheControl) h["cache-control"] = route.cacheControl;
    if (reply.status === 204 || reply.body === undefined) return new Response(null, { status: reply.status, headers: h });
    h["content-type"] = "application/json";
    return new Response(JSON.stringify(reply.body), { status: reply.status, headers: h });
  }
}

/** RU-cell personal-data rule (spec "Authentication" 7): recipient country RU, a legal basis and a narrow allowlist. Also used for webhook `include_pii`. */
export function assertPiiTransferAllowed(caller: ApiCaller): void {
  const i = caller.integration;
  if (i.piiCountry === "RU" && i.legalBasis && isNarrowAllowlist(caller.key.ipAllowlist)) return;
  throw new ApiError(
    "pii_transfer_not_allowed",
    "Personal data leaves the RU cell only for recipients in the Russian Federation with a legal basis and a narrow IP allowlist (single addresses, IPv4 /24 or IPv6 /56 at most).",
  );
}

/** Query string → object for zod: one value as a string, a repeated name as an array (which fails validation). */
function queryObject(sp: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const k of new Set(sp.keys())) {
    const all = sp.getAll(k);
    out[k] = all.length === 1 ? all[0] : all;
  }
  return out;
}

function describe(err: unknown): { name?: string; message?: string; code?: string } {
  const e = err as { name?: string; message?: string; code?: string; cause?: { code?: string } };
  return { name: e?.name, message: e?.message?.slice(0, 300), code: e?.code ?? e?.cause?.code };
}
