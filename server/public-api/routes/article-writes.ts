import {
  PatchArticleSchema,
  PublishArticleSchema,
  SiteListSchema,
  WrittenArticleSchema,
} from "@/server/schemas/article-writes";
import { UuidParam } from "@/server/schemas/common";
import { approveArticle, patchArticle, publishArticle } from "@/server/services/articles/article-writes";
import { getArticleVersioned } from "@/server/services/articles/articles";
import { listSites } from "@/server/services/articles/sites";
import type { AnyRoute } from "../define-route";
import { defineRoute, ok, type Reply } from "../define-route";

// Article edits, approval and publication, and the tenant's sites (issue 71), released to tenants with the
// `articles-writes` preview (server/schemas/previews.ts); every other caller gets the Planned 404.

const PREVIEW = "articles-writes" as const;

/** A repeat with the same Idempotency-Key: the article as it is now (preview view) with its `ETag`. */
async function replayArticle(
  ctx: Parameters<NonNullable<AnyRoute["replay"]>>[0],
  id: string,
  status: number,
): Promise<Reply> {
  const { article, etag } = await getArticleVersioned(ctx.db, ctx.actor, id, "html", true);
  return { status, body: article, headers: { etag } };
}

/**
 * `PATCH /articles/{id}`: If-Match honoured when sent (no 428: the spec asks it only of leads); 200 with the
 * article and its new `ETag`. A body over 256 KB is 413 `payload_too_large` (spec "Articles: planned routes").
 */
export const patchArticleRoute = defineRoute({
  operationId: "updateArticle",
  summary: "Edit an article (preview articles-writes)",
  description:
    "Send the `ETag` you read in `If-Match` to refuse a lost update: a writer that changed the article since answers you 412 `precondition_failed` with the current `etag` in the problem body. `content` (HTML) is sanitized on write with the rules of reads. `published_url` confirms your own publication after a publish with target `none` (the article becomes `published`, event `article.published`).",
  method: "PATCH",
  path: "/articles/{id}",
  scope: "articles:write",
  rate: "write",
  preview: PREVIEW,
  cacheControl: "no-store",
  etag: true,
  ifMatch: "optional",
  params: UuidParam,
  body: PatchArticleSchema,
  responses: { 200: WrittenArticleSchema },
  problems: ["precondition_failed", "bad_request", "invalid_state"],
  handler: async ({ db, actor, params, body, request }) => {
    const w = await patchArticle(db, actor, params.id, request.headers.get("if-match"), body);
    return { status: 200, body: w.article, headers: { etag: w.etag }, resource: { type: "article", id: params.id } };
  },
  replay: replayArticle,
});

/** `POST /articles/{id}/approve`: draft or review → approved; free. */
export const approveArticleRoute = defineRoute({
  operationId: "approveArticle",
  summary: "Approve an article (preview articles-writes)",
  method: "POST",
  path: "/articles/{id}/approve",
  scope: "articles:write",
  rate: "write",
  preview: PREVIEW,
  cacheControl: "no-store",
  etag: true,
  params: UuidParam,
  responses: { 200: WrittenArticleSchema },
  problems: ["invalid_state"],
  handler: async ({ db, actor, params }) => {
    const w = await approveArticle(db, actor, params.id);
    return { status: 200, body: w.article, headers: { etag: w.etag }, resource: { type: "article", id: params.id } };
  },
  replay: replayArticle,
});

/** `POST /articles/{id}/publish`: target none (handed off, `article.ready`) or a site connector's job. */
export const publishArticleRoute = defineRoute({
  operationId: "publishArticle",
  summary: "Publish an article (preview articles-writes)",
  description:
    "Target `connector` queues a job of the article's current version for the site's connector (`publish_mode` after the site's drafts-only ceiling), or answers the existing job when the article is unchanged. Target `none` publishes nothing: the article becomes `handed_off`, event `article.ready` is sent, and you confirm your own publication with `PATCH` and `published_url`.",
  method: "POST",
  path: "/articles/{id}/publish",
  scope: "articles:write",
  rate: "write",
  preview: PREVIEW,
  cacheControl: "no-store",
  etag: true,
  params: UuidParam,
  body: PublishArticleSchema,
  responses: { 200: WrittenArticleSchema },
  problems: ["invalid_state"],
  handler: async ({ db, actor, params, body }) => {
    const w = await publishArticle(db, actor, params.id, body);
    return { status: 200, body: w.article, headers: { etag: w.etag }, resource: { type: "article", id: params.id } };
  },
  replay: replayArticle,
});

/** `GET /sites`: the tenant's sites in the key's mode with their connector status. */
export const listSitesRoute = defineRoute({
  operationId: "listSites",
  summary: "List your sites (preview articles-writes)",
  method: "GET",
  path: "/sites",
  scope: "articles:read",
  rate: "read",
  preview: PREVIEW,
  responses: { 200: SiteListSchema },
  handler: async ({ db, actor }) => ok({ data: await listSites(db, actor) }),
});

/** Routes of the `articles-writes` preview. */
export const ARTICLE_WRITE_ROUTES: AnyRoute[] = [
  patchArticleRoute,
  approveArticleRoute,
  publishArticleRoute,
  listSitesRoute,
];
