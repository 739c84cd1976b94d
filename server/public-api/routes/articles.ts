import { z } from "zod";
import * as articles from "@/server/services/articles/articles";
import { ArticleFormat, ArticleSchema, ArticleStatus, ArticleSummarySchema } from "@/server/schemas/articles";
import {
  PREVIEW_ARTICLE_STATUSES,
  PreviewArticleSummarySchema,
  WrittenArticleSchema,
} from "@/server/schemas/article-writes";
import { boolParam, cursorParam, dateOrInstantParam, limitParam, pageOf, UuidParam } from "@/server/schemas/common";
import type { AnyRoute } from "../define-route";
import { defineRoute, ok, page } from "../define-route";
import { ArticleListPosition } from "../positions";

const ListQuery = z.strictObject({
  limit: limitParam(25),
  cursor: cursorParam.optional(),
  status: ArticleStatus.optional(),
  updated_after: dateOrInstantParam.optional(),
  // Deleted articles are not kept as tombstones: asking for them is refused rather than silently ignored.
  include_deleted: boolParam
    .refine((v) => !v, {
      message: "deleted articles are not available; omit include_deleted or send false",
      params: { code: "not_supported" },
    })
    .optional(),
});

/**
 * `GET /articles` (spec "GET /articles"): ArticleSummary items, newest `updated_at` first (undated last),
 * then `id` descending; `limit` 1-100 (default 25), `status`, `updated_after` (strictly later), `cursor`.
 */
export const listArticlesRoute = defineRoute({
  operationId: "listArticles",
  summary: "List articles",
  method: "GET",
  path: "/articles",
  scope: "articles:read",
  rate: "read",
  query: ListQuery,
  list: { position: ArticleListPosition },
  responses: { 200: pageOf(ArticleSummarySchema) },
  // Preview articles-writes (issue 71): `handed_off` articles are listed too, and `status` may ask for them.
  previewVariant: {
    preview: "articles-writes",
    responses: { 200: pageOf(PreviewArticleSummarySchema) },
    query: ListQuery.extend({
      status: z
        .enum(PREVIEW_ARTICLE_STATUSES, { message: `must be one of ${PREVIEW_ARTICLE_STATUSES.join(", ")}` })
        .optional(),
    }),
  },
  handler: async ({ db, actor, caller, query, after }) => {
    const p = await articles.listArticles(db, actor, {
      withHandedOff: caller.previews.includes("articles-writes"),
      limit: query.limit,
      status: query.status,
      updatedAfter: query.updated_after,
      after,
    });
    return page(p.articles, p.next);
  },
});

const GetQuery = z.strictObject({ format: ArticleFormat.default("html") });

/**
 * `GET /articles/{id}` (spec "GET /articles/{id}"): the Article with `content` as cleaned html (default),
 * markdown or blocks. Not cached anywhere: the body may change with every edit.
 */
export const getArticleRoute = defineRoute({
  operationId: "getArticle",
  summary: "Read an article",
  method: "GET",
  path: "/articles/{id}",
  scope: "articles:read",
  rate: "read",
  params: UuidParam,
  query: GetQuery,
  cacheControl: "no-store",
  responses: { 200: ArticleSchema },
  // Preview articles-writes (issue 71): a strong ETag for PATCH's If-Match, a `handed_off` article and a
  // publication of target `none` are answered; the v1 answer stays the spec's.
  previewVariant: { preview: "articles-writes", responses: { 200: WrittenArticleSchema }, etag: true },
  handler: async ({ db, actor, caller, params, query }) => {
    const preview = caller.previews.includes("articles-writes");
    const { article, etag } = await articles.getArticleVersioned(db, actor, params.id, query.format, preview);
    if (!preview) return ok(article);
    return ok(article, { etag });
  },
});

/** Routes of this domain, in the order of the spec. */
export const ARTICLE_ROUTES: AnyRoute[] = [listArticlesRoute, getArticleRoute];
