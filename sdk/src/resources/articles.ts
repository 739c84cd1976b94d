import { Paginated } from "../paginate.js";
import type { Article, ArticleListQuery, ArticleQuery, ArticleSummary } from "../types.js";
import { unwrap, type CallOptions, type Context } from "./context.js";

/** The tenant's own articles (spec "GET /articles"; scope `articles:read`). */
export function articlesResource(ctx: Context) {
  return {
    /** `GET /articles`: summaries (no content), newest `updated_at` first; every page. */
    list: (query: ArticleListQuery = {}, o?: CallOptions): Paginated<ArticleSummary> =>
      new Paginated(
        (cursor) => unwrap(ctx.raw.GET("/articles", { params: { query: { ...query, cursor } }, signal: o?.signal })),
        query.cursor,
      ),

    /**
     * `GET /articles/{id}` with `content` as cleaned `html` (default), `markdown`, or `blocks` (an array of `{type, html}`).
     * @throws ApiError `not_found`; `validation_failed` on `/content` past 2,000,000 bytes of HTML
     */
    get: (id: string, query: ArticleQuery = {}, o?: CallOptions): Promise<Article> =>
      unwrap(ctx.raw.GET("/articles/{id}", { params: { path: { id }, query }, signal: o?.signal })),
  };
}
