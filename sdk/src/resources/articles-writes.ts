import type { ArticlePublish, ArticleUpdate, ArticleWritten, Site } from "../types.js";
import { ApiError } from "../errors.js";
import { keyOf, unwrap, type CallOptions, type Context, type WriteOptions } from "./context.js";

/** An article with its strong entity tag (the `ETag` header): pass `etag` as `ifMatch` to `update`. */
export interface TaggedArticle {
  article: ArticleWritten;
  etag: string;
}

/** Options of `update`: the write's options and the `If-Match` to send. */
export interface ArticleUpdateOptions extends WriteOptions {
  /** The `etag` you read: a writer that changed the article since makes the API answer 412. Omit to overwrite. */
  ifMatch?: string;
}

/**
 * The answer's article and its `ETag` header.
 * @throws ApiError for any answer outside 2xx
 */
async function tagged(
  pending: Promise<{ data?: unknown; error?: unknown; response: Response }>,
): Promise<TaggedArticle> {
  const r = await pending;
  if (!r.response.ok) throw ApiError.fromResponse(r.response, r.error);
  return { article: r.data as ArticleWritten, etag: r.response.headers.get("etag") ?? "" };
}

/**
 * Article edits, approval, publication and the tenant's sites (preview `articles-writes`: switched on per
 * tenant; for other tenants every method answers ApiError `not_found`). See docs/articles.md.
 */
export function articlesWritesResource(ctx: Context) {
  return {
    /**
     * `GET /articles/{id}` (scope `articles:read`) with its `ETag`; the status may be `handed_off`.
     * @throws ApiError `not_found`; `validation_failed` on `/content` past 2,000,000 bytes of HTML
     */
    get: (id: string, o?: CallOptions): Promise<TaggedArticle> =>
      tagged(ctx.raw.GET("/articles/{id}", { params: { path: { id } }, signal: o?.signal })),

    /**
     * `PATCH /articles/{id}` (scope `articles:write`): only the fields sent change; `content` (HTML) is
     * sanitized on write; `published_url` confirms your own publication of a `handed_off` article (it becomes
     * `published`, event `article.published`). The status is kept otherwise.
     * @throws ApiError `precondition_failed` (412: changed since you read it; `problem.etag` is the current
     *   one), `invalid_state` (`published_url` before a hand-off), `payload_too_large` (body over 256 KB),
     *   `validation_failed`, `not_found`
     */
    update: (id: string, body: ArticleUpdate, o?: ArticleUpdateOptions): Promise<TaggedArticle> =>
      tagged(
        ctx.raw.PATCH("/articles/{id}", {
          params: {
            path: { id },
            header: { "Idempotency-Key": keyOf(ctx, o), ...(o?.ifMatch ? { "If-Match": o.ifMatch } : {}) },
          },
          body,
          signal: o?.signal,
        }),
      ),

    /**
     * `POST /articles/{id}/approve` (scope `articles:write`; free): `draft` or `review` → `approved`.
     * @throws ApiError `invalid_state` from any other status, `not_found`
     */
    approve: (id: string, o?: WriteOptions): Promise<TaggedArticle> =>
      tagged(
        ctx.raw.POST("/articles/{id}/approve", {
          params: { path: { id }, header: { "Idempotency-Key": keyOf(ctx, o) } },
          signal: o?.signal,
        }),
      ),

    /**
     * `POST /articles/{id}/publish` (scope `articles:write`). `{ target: "connector", site_id, publish_mode }`
     * queues a job of the article's current version for the site's connector (or answers the existing one);
     * `{ target: "none" }` hands the article off (`handed_off`, event `article.ready`): publish it yourself,
     * then `update(id, { published_url })`.
     * @throws ApiError `invalid_state` (site not working or not linked, article not approved or empty),
     *   `not_found` (article or site), `validation_failed` (missing `site_id`/`publish_mode`; `/content` over
     *   2,000,000 bytes of HTML or a 3,000,000-byte payload)
     */
    publish: (id: string, body: ArticlePublish, o?: WriteOptions): Promise<TaggedArticle> =>
      tagged(
        ctx.raw.POST("/articles/{id}/publish", {
          params: { path: { id }, header: { "Idempotency-Key": keyOf(ctx, o) } },
          body,
          signal: o?.signal,
        }),
      ),

    /** `GET /sites` (scope `articles:read`): your sites with their connector's status (`not_linked`, `working`, `not_working`). */
    sites: async (o?: CallOptions): Promise<Site[]> =>
      (await unwrap(ctx.raw.GET("/sites", { signal: o?.signal }))).data,
  };
}
