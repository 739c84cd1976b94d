import type { z } from "zod";
import type { ErrorCode } from "@/server/errors";
import type { Db } from "@/db/client";
import type { Scope } from "@/server/services/access/scopes";
import type { ApiCaller } from "@/server/services/actor";

export type HttpMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
/** Rate classes of the spec's "Limits": reads, writes, paid operations. */
export type RateClass = "read" | "write" | "paid";

/** What a handler answers. `resource` names what an idempotent POST/PATCH created or changed, for replays. */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  resource?: { type: string; id: string };
}

/** Everything a handler gets; `db` is a transaction for POST, PATCH, PUT and DELETE. */
export interface RouteContext<P, Q, B> {
  db: Db;
  caller: ApiCaller;
  params: P;
  query: Q;
  body: B;
  requestId: string;
  request: Request;
}

/**
 * A public route, declared once with everything the pipeline (and the OpenAPI document) needs.
 * - `path` uses `{name}` for parameters; a path parameter that fails `params` answers 404.
 * - `idempotency`: `required` answers 400 `idempotency_key_required` without the header; `optional` honours
 *   it when sent; `none` ignores it (PUT, DELETE and reads).
 * - `walletExempt`: served while exchange is suspended (only `/me` and `/wallet`).
 * - `pii`: answers carry personal data; the RU-cell transfer rule is checked before any read.
 * - `replay`: rebuilds the answer of a completed idempotent request from the resource's current state.
 */
export interface RouteDef<P = unknown, Q = unknown, B = unknown> {
  operationId: string;
  summary: string;
  method: HttpMethod;
  path: string;
  scope: Scope | null;
  rate: RateClass;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  idempotency?: "required" | "optional" | "none";
  walletExempt?: boolean;
  pii?: boolean;
  cacheControl?: string;
  /** A 200 answer carries an `ETag` header (set by the handler); documented in OpenAPI as required. */
  etag?: boolean;
  /** Retirement announcement (spec "Versioning" 4): both headers are sent on every answer of the route. */
  deprecation?: { deprecatedAt: Date; sunsetAt: Date; link?: string };
  responses: Record<number, z.ZodType | null>;
  /**
   * Problem codes the handler itself may answer beyond those the pipeline derives from the declaration
   * (auth, wallet, scope, body, idempotency, params, validation): e.g. `invalid_state`. Documented in OpenAPI.
   */
  problems?: ErrorCode[];
  handler: (ctx: RouteContext<P, Q, B>) => Promise<Reply>;
  replay?: (ctx: RouteContext<P, Q, B>, resourceId: string, status: number) => Promise<Reply>;
}

/** Declares a route; the identity function that gives handlers typed `params`, `query` and `body`. */
export function defineRoute<P = Record<string, never>, Q = Record<string, never>, B = undefined>(def: RouteDef<P, Q, B>): RouteDef<P, Q, B> {
  return def;
}

/** A route as stored in the table, its types erased. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteDef<any, any, any>;

/** Reply helpers. */
export const ok = (body: unknown, headers?: Record<string, string>): Reply => ({ status: 200, body, headers });
export const created = (body: unknown, resource?: Reply["resource"]): Reply => ({ status: 201, body, resource });
export const noContent = (): Reply => ({ status: 204 });
