import type { z } from "zod";
import type { Db } from "@/db/client";
import type { ErrorCode } from "@/server/errors";
import type { PreviewFeature } from "@/server/schemas/previews";
import type { Scope } from "@/server/schemas/scopes";
import type { ApiCaller, IntegrationActor } from "@/server/services/actor";
import type { IdempotencyCompletion } from "@/server/services/idempotency/one-statement";
import type { RateClass } from "@/server/services/limits/rate-limiter";
import type { CursorBinding } from "./cursor";

export type { RateClass };
export type HttpMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

/** Resource types of the disclosure journal (spec general fact 6: conversations, messages, leads). */
export type DisclosedResource = "conversation" | "message" | "lead";

/**
 * What a handler answers. `resource` names what an idempotent POST/PATCH created or changed, for replays.
 * A list route answers with {@link page}: `body` is `{data, next_cursor: null}` and `next` the keyset
 * position after the last item, which the pipeline signs into `next_cursor`.
 */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  resource?: { type: string; id: string };
  /** List routes: the position after the page (the sort values of its last row), null at the end. */
  next?: readonly unknown[] | null;
  /**
   * The answer was rebuilt from an idempotency record, not made by the handler: it carries
   * `Idempotent-Replayed: true` and its request-log row `replayed` (issue 75 item 6). Set by the pipeline.
   */
  replayed?: true;
  /**
   * Work after the commit (and after due work was announced), outside the transaction: it gives the final
   * answer, e.g. waiting up to `wait` seconds for an operation (spec "POST /conversations/{id}/messages").
   */
  settle?: () => Promise<Reply>;
}

/**
 * Everything a handler gets; `db` is a transaction for POST, PATCH, PUT and DELETE, except on a
 * `oneStatement` route, whose one statement needs none.
 */
export interface RouteContext<P, Q, B, K = readonly unknown[]> {
  db: Db;
  /** The acting integration: what every service receives. */
  actor: IntegrationActor;
  /** Everything authentication established about the key; only `/me` and `/wallet` report it. */
  caller: ApiCaller;
  params: P;
  query: Q;
  body: B;
  /** List routes: the keyset position of the presented cursor, checked against its binding; undefined on the first page. */
  after?: K;
  /** List routes: what this request's cursors are bound to, made by the pipeline on first use (./answer.ts). */
  walk?: CursorBinding;
  requestId: string;
  request: Request;
  /**
   * The URL the request was sent to. Read this, not `request.url`: the server hands parameterised paths to
   * a static route file, whose own URL `request.url` then is (./static-door.ts).
   */
  url: URL;
  /**
   * `oneStatement` routes under an `Idempotency-Key`: the key's record, for the handler to make or complete in
   * its one statement (when it does not, the pipeline writes the record after it, in a statement of its own).
   */
  completion?: IdempotencyCompletion;
}

/**
 * A public route, declared once with everything the pipeline, the OpenAPI document and the route matrix
 * tests need (DESIGN "Hot path").
 * - `path` uses `{name}` for parameters; a path parameter that fails `params` answers 404.
 * - `idempotency`: `required` answers 400 `idempotency_key_required` without the header; `optional` honours
 *   it when sent; `none` ignores it. Default: {@link idempotencyMode}.
 * - `walletExempt`: served while exchange is suspended (only `/me`, `/wallet` and the test helper that
 *   sets the sandbox wallet, `POST /test-helpers/wallet`, which lifts the suspension it made).
 * - `pii`: answers carry personal data; the RU-cell transfer rule is checked before any read.
 * - `discloses`: the answer's items (a page's `data`, or the single resource) are written to the disclosure
 *   journal by the pipeline before the answer leaves; a failed write answers 503 and no data.
 * - `list`: a keyset-paged list (spec "Limits: pagination rules"). The pipeline binds the cursor to the
 *   tenant, key mode, integration, route and every other query and path parameter, checks a presented one
 *   (422 on `/cursor`), hands the handler `after` (shape-checked by `position`), and signs `next_cursor`.
 * - `replay`: rebuilds the answer of a completed idempotent request from the resource's current state.
 * - `oneStatement`: a write whose handler changes the database in one statement. It runs without a
 *   transaction (the statement is atomic on its own), and under an `Idempotency-Key` it makes or completes
 *   the key's record in that statement through `ctx.completion`: one round trip for a key's first use, not
 *   five (issue 22; ../services/idempotency/one-statement.ts).
 * - `recordsKey`: a `oneStatement` route whose handler takes `ctx.completion` into its statement whenever it
 *   writes and refuses only before it writes. A key's first use is then tried as that statement alone,
 *   without looking the key up first (a key used before makes it change nothing; the full path follows).
 * - `preview`: a Planned route released only to tenants with this preview feature; for any other caller
 *   (including one whose key fails authentication) it answers the Planned 404 before anything else.
 * - `scope`: the scope the key needs, or a list of which any one suffices (`GET /disclosures`: `leads:read`
 *   or `conversations:read`).
 * - `ifMatch`: the handler requires `If-Match` (a change under optimistic concurrency: 428 without it, 400
 *   when it is not an entity tag, 412 when it is not the current one); documented as a required header.
 *   `"optional"`: the handler honours `If-Match` when sent (no 428); documented as an optional header.
 * - `previewVariant`: what the route answers differently for tenants with a preview feature (e.g. a status
 *   only that preview produces): the preview's OpenAPI document (and the SDK's) shows these `responses`,
 *   `etag` and `query`, and the pipeline parses such a tenant's query with that `query`; the v1 document
 *   keeps the route's own. The handler reads `caller.previews` itself.
 * - `description`: what the OpenAPI operation says beyond the notes made from the declaration (e.g. a price).
 */
export interface RouteDef<P = unknown, Q = unknown, B = unknown, K = readonly unknown[]> {
  operationId: string;
  summary: string;
  method: HttpMethod;
  path: string;
  scope: Scope | readonly Scope[] | null;
  rate: RateClass;
  description?: string;
  ifMatch?: boolean | "optional";
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  idempotency?: "required" | "optional" | "none";
  walletExempt?: boolean;
  pii?: boolean;
  discloses?: DisclosedResource;
  list?: { position: z.ZodType<K> };
  cacheControl?: string;
  /** A 2xx answer carries an `ETag` header (set by the handler); documented in OpenAPI as required. */
  etag?: boolean;
  /** Retirement announcement (spec "Versioning" 4): both headers are sent on every answer of the route. */
  deprecation?: { deprecatedAt: Date; sunsetAt: Date; link?: string };
  responses: Record<number, z.ZodType | null>;
  /**
   * Problem codes the handler itself may answer beyond those the pipeline's steps derive from the
   * declaration (server/public-api/pipeline-steps.ts): e.g. `invalid_state`. Documented in OpenAPI.
   */
  problems?: ErrorCode[];
  /** Returns the reply, or a promise of it; a read with everything in hand answers without a promise. */
  handler: (ctx: RouteContext<P, Q, B, K>) => Reply | Promise<Reply>;
  replay?: (ctx: RouteContext<P, Q, B, K>, resourceId: string, status: number) => Promise<Reply>;
  /**
   * Writes only: runs before the handler's transaction (and not for an idempotent replay), with `db`
   * outside any transaction, e.g. to count a paid request against the paid rate (the limit store must not
   * be reached from inside a transaction: the embedded database has one connection). Throwing refuses.
   */
  before?: (ctx: RouteContext<P, Q, B, K>) => Promise<void>;
  /**
   * A JSON Pointer of the body to an array whose items the handler judges one by one (`/events` of
   * `POST /intake/events`, issue 74: one bad event never refuses its batch): refused characters inside an
   * item are left to the handler, which rejects that item alone (server/lib/control-characters.ts).
   */
  itemsJudgedByHandler?: string;
  oneStatement?: boolean;
  recordsKey?: boolean;
  preview?: PreviewFeature;
  previewVariant?: {
    preview: PreviewFeature;
    responses: Record<number, z.ZodType | null>;
    etag?: boolean;
    /** The query the route takes from such a tenant (e.g. a filter value only that preview produces). */
    query?: z.ZodType;
  };
}

/** Declares a route; the identity function that gives handlers typed `params`, `query`, `body` and `after`. */
export function defineRoute<
  P = Record<string, never>,
  Q = Record<string, never>,
  B = undefined,
  K = readonly unknown[],
>(def: RouteDef<P, Q, B, K>): RouteDef<P, Q, B, K> {
  return def;
}

/** A route as stored in the table, its types erased. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteDef<any, any, any, any>;

/**
 * How the pipeline treats `Idempotency-Key` on a route (spec "Common request rules": accepted on POST and
 * PATCH, required where an endpoint says so, ignored on PUT and DELETE): the declaration, else `optional`
 * for POST and PATCH and `none` otherwise. The one place this default lives; OpenAPI reads it too.
 */
export function idempotencyMode(route: Pick<AnyRoute, "idempotency" | "method">): "required" | "optional" | "none" {
  return route.idempotency ?? (route.method === "POST" || route.method === "PATCH" ? "optional" : "none");
}

/** The scopes of a route's `scope` as a list: any one of them suffices; empty for a route without a scope. */
export function scopesOf(route: Pick<AnyRoute, "scope">): readonly Scope[] {
  return route.scope === null ? [] : typeof route.scope === "string" ? [route.scope] : route.scope;
}

/** Reply helpers. */
export const ok = (body: unknown, headers?: Record<string, string>): Reply => ({ status: 200, body, headers });
export const created = (body: unknown, resource?: Reply["resource"]): Reply => ({ status: 201, body, resource });
export const noContent = (): Reply => ({ status: 204 });
/** A list page: `{data, next_cursor}`, where the pipeline turns `next` (the position after the page) into the signed cursor. */
export const page = (data: readonly unknown[], next: readonly unknown[] | null): Reply => ({
  status: 200,
  body: { data, next_cursor: null },
  next,
});

/**
 * A list page whose items are already the JSON texts of their answer form (PostgreSQL wrote them; issue 22):
 * the answer splices them into `{"data":[...],"next_cursor":...}` instead of parsing and serializing each
 * item. `ids[i]` is the id of `texts[i]` (the disclosure journal's rows).
 */
export class TextPage {
  constructor(
    readonly texts: readonly string[],
    readonly ids: readonly string[],
  ) {}

  /**
   * The page's JSON text with its signed `next_cursor` (null on the last page), built by one `join` so that
   * it is one flat string: a concatenation (a template literal around `texts.join(",")`) is a V8 cons string,
   * which undici's `Response` copies whole to flatten it before encoding (`Buffer.byteLength`), a second
   * copy of the body in the young generation on every page (about 19 KB a `/leads` page, issue 22).
   */
  json(nextCursor: string | null): string {
    const { texts } = this;
    const end = `],"next_cursor":${nextCursor === null ? "null" : JSON.stringify(nextCursor)}}`;
    if (texts.length === 0) return `{"data":[${end}`;
    const parts = new Array<string>(2 * texts.length + 1);
    parts[0] = '{"data":[';
    for (let i = 0; i < texts.length; i++) {
      parts[2 * i + 1] = texts[i];
      parts[2 * i + 2] = i === texts.length - 1 ? end : ",";
    }
    return parts.join("");
  }
}

/**
 * A reply body that is already JSON text, sent as it is (a single resource; not for list routes, whose
 * `next_cursor` the pipeline adds). For answers made once and served many times, such as `GET /me`'s.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/** A list page of JSON texts ({@link TextPage}); `next` as in {@link page}. */
export const textPage = (
  items: { texts: readonly string[]; ids: readonly string[] },
  next: readonly unknown[] | null,
): Reply => ({ status: 200, body: new TextPage(items.texts, items.ids), next });
