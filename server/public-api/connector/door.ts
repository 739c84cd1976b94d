import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { getDb, type Db } from "@/db/client";
import { env } from "@/server/env";
import { ApiError } from "@/server/errors";
import { check, validationError } from "@/server/lib/validation";
import { log } from "@/server/log";
import { ClaimQuery, JobParam, LeaseBody, ResultBody } from "@/server/schemas/connector";
import { afterCommit } from "@/server/services/events/work-notifier";
import { addressKey, callerIp } from "@/server/lib/client-ip";
import {
  rateLimitHeaders,
  takeAddressLimit,
  takeRateLimit,
  type RateRoom,
} from "@/server/services/limits/rate-limiter";
import { DEFAULT_LIMITS } from "@/server/services/limits/rate-limits";
import { authenticateSite, type ConnectorSite } from "@/server/services/publishing/connector-sites";
import { waitForJob } from "@/server/services/publishing/job-claim";
import { releaseLease, renewLease, reportResult } from "@/server/services/publishing/job-lease";
import { readJsonBody, refuseLargeBody } from "../body";
import { problemResponse } from "../problem";
import { isUnavailable } from "../unavailable";

/** Path prefix of the site connector protocol (DESIGN "The site connector is a door of its own"). */
export const CONNECTOR_PREFIX = "/api/connector/v1";

/**
 * Requests a site's connectors may send per sliding minute, all calls together (claims, heartbeats,
 * results, releases), counted per site in buckets of their own: never against the tenant's API keys'.
 * A long poll makes about 2 claims a minute; a job costs a claim, a result and a heartbeat or two.
 */
export const CONNECTOR_PER_MIN = 300;

/** The protocol's operations (its OpenAPI document: ./document.ts). */
export type ConnectorOperation = "claimJob" | "renewLease" | "reportResult" | "releaseLease";

interface Call {
  db: Db;
  site: ConnectorSite;
  request: Request;
  params: Record<string, string>;
  body: unknown;
  query: unknown;
}

/** What a handler answers: status and JSON body (none for 204). */
type Answer = { status: number; body?: unknown };

const leaseSeconds = () => env().connectorLeaseSeconds;

const OPERATIONS: Record<
  ConnectorOperation,
  { query?: z.ZodType; body?: z.ZodType; params?: boolean; write: boolean; run: (c: Call) => Promise<Answer> }
> = {
  claimJob: {
    query: ClaimQuery,
    write: false,
    run: async ({ db, site, request, query }) => {
      const { wait } = query as { wait: number };
      const job = await waitForJob(db, site, {
        waitMs: wait * 1000,
        leaseSeconds: leaseSeconds(),
        signal: request.signal,
      });
      return job ? { status: 200, body: job } : { status: 204 };
    },
  },
  renewLease: {
    body: LeaseBody,
    params: true,
    write: false,
    run: async ({ db, site, params, body }) => ({
      status: 200,
      body: await renewLease(db, site, params.id!, (body as { lease_id: string }).lease_id, leaseSeconds()),
    }),
  },
  releaseLease: {
    body: LeaseBody,
    params: true,
    write: false,
    run: async ({ db, site, params, body }) => {
      await releaseLease(db, site, params.id!, (body as { lease_id: string }).lease_id);
      return { status: 204 };
    },
  },
  reportResult: {
    body: ResultBody,
    params: true,
    write: true,
    run: async ({ db, site, params, body }) => ({
      status: 200,
      body: await reportResult(db, site, params.id!, body as z.infer<typeof ResultBody>),
    }),
  },
};

/**
 * Serves one call of the site connector protocol (`/api/connector/v1`, issue 71; docs/site-connector.md):
 * token (401 `invalid_api_key`; the call stamps the site's `last_seen_at`) → the site's own rate limit
 * ({@link CONNECTOR_PER_MIN}, 429 with `Retry-After`) → body (256 KB, JSON) → validation (404 for a
 * malformed job id, 422 with JSON Pointers) → the service, a result in one transaction whose events are
 * announced after the commit. Every refusal is problem+json from the API's catalog; every answer carries
 * `X-Request-Id` and the `RateLimit-*` headers once the token was accepted. Never rejects.
 * @param params the route's path parameters (`id` of the job routes)
 */
export async function serveConnector(
  request: Request,
  operation: ConnectorOperation,
  params: Record<string, string> = {},
): Promise<Response> {
  const started = performance.now();
  const requestId = `req_${randomUUID().replace(/-/g, "")}`;
  const headers: Record<string, string> = {};
  let site: ConnectorSite | undefined;
  let response: Response;
  try {
    const op = OPERATIONS[operation];
    const db = await getDb();
    site = await authenticateSite(db, bearer(request.headers.get("authorization")));
    Object.assign(headers, rateLimitHeaders(await siteLimit(site)));
    if (op.params && !check(JobParam, params).ok) throw new ApiError("not_found", "No such job.");
    const raw = op.body ? await readJsonBody(request) : await refuseLargeBody(request);
    const errors = [];
    let query: unknown;
    let body: unknown;
    const q = Object.fromEntries(new URL(request.url).searchParams);
    if (op.query) {
      const r = check(op.query, q);
      if (r.ok) query = r.value;
      else errors.push(...r.errors);
    } else errors.push(...Object.keys(q).map((n) => unknownParameter(n)));
    if (op.body) {
      const r = check(op.body, raw ?? {});
      if (r.ok) body = r.value;
      else errors.push(...r.errors);
    }
    if (errors.length) throw validationError(errors);
    const call = { db, site, request, params, body, query };
    const answer = op.write
      ? await afterCommit(() => db.transaction((tx) => op.run({ ...call, db: tx as Db })))
      : await op.run(call);
    const h = { ...headers, "x-request-id": requestId, "cache-control": "no-store" };
    response =
      answer.body === undefined
        ? new Response(null, { status: answer.status, headers: h })
        : Response.json(answer.body, { status: answer.status, headers: h });
  } catch (err) {
    response = problemResponse(toProblem(await beforeTokenLimit(request, headers, err), requestId), requestId, headers);
  }
  log().info(
    {
      request_id: requestId,
      method: request.method,
      path: new URL(request.url).pathname,
      status: response.status,
      duration_ms: Math.round(performance.now() - started),
      site_id: site?.id,
      tenant_id: site?.tenantId,
    },
    "connector request",
  );
  return response;
}

/**
 * A call refused before its token was accepted counts against its address, as the public API's do
 * (server/public-api/pipeline.ts): its answer gets the `RateLimit-*` headers, or becomes 429.
 * @returns the error to answer with
 */
async function beforeTokenLimit(request: Request, headers: Record<string, string>, err: unknown): Promise<unknown> {
  if ("ratelimit-limit" in headers) return err;
  const address = callerIp(request.headers);
  try {
    Object.assign(headers, rateLimitHeaders(await takeAddressLimit(address ? addressKey(address) : "unknown")));
    return err;
  } catch (limited) {
    return limited;
  }
}

/** The token of `Authorization: Bearer <token>`, or null. */
function bearer(value: string | null): string | null {
  const m = /^Bearer\s+(\S+)$/i.exec(value?.trim() ?? "");
  return m ? m[1]! : null;
}

function unknownParameter(name: string) {
  return { field: `/${name}`, code: "unknown_parameter", message: `Unknown query parameter "${name}".` };
}

/**
 * Counts the call against the site's own window ({@link CONNECTOR_PER_MIN} per minute) with the API's
 * limiter and store (server/services/limits/rate-limiter.ts): both of its buckets are the site's
 * (`site_<id>`), so no API key or tenant bucket is touched.
 * @throws ApiError 429 `rate_limited` with `Retry-After`; 503 when the limit store is down
 */
async function siteLimit(site: ConnectorSite): Promise<RateRoom> {
  const limits = { ...DEFAULT_LIMITS, write_per_min: CONNECTOR_PER_MIN };
  const subject = `site_${site.id}`;
  try {
    return await takeRateLimit({ keyId: subject, tenantId: subject, limits, tenantLimits: limits }, "write");
  } catch (err) {
    if (err instanceof ApiError && err.code === "rate_limited")
      throw new ApiError(
        "rate_limited",
        `Too many connector calls for this site (${CONNECTOR_PER_MIN} per minute); retry after ${err.headers["retry-after"]} s.`,
        {},
        err.headers,
      );
    throw err;
  }
}

/** The catalog problem of a failure: its own ApiError, 503 for an unreachable database, else 500. */
function toProblem(err: unknown, requestId: string): ApiError {
  if (err instanceof ApiError) return err;
  if (isUnavailable(err))
    return new ApiError(
      "service_unavailable",
      "The platform cannot serve connectors right now; retry after a pause.",
      {},
      { "retry-after": "5" },
    );
  log().error({ request_id: requestId, err: (err as Error)?.message?.slice(0, 300) }, "connector request failed");
  return new ApiError("internal_error", "Something went wrong on our side; retry after a pause.");
}
