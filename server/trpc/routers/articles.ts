import { z } from "zod";
import { PatchArticleSchema, PREVIEW_ARTICLE_STATUSES, PublishArticleSchema } from "@/server/schemas/article-writes";
import { consoleArticleDetail, consoleArticlePage } from "@/server/services/articles/article-console";
import { approveArticle, patchArticle, publishArticle } from "@/server/services/articles/article-writes";
import { afterCommit } from "@/server/services/events/work-notifier";
import { router, tenantProcedure } from "../init";

/**
 * The console's Articles (issue 71 item 6), in the console's mode. Articles carry no personal data and the
 * API's `articles:read`/`articles:write` need no staff right (access/scopes.ts rightFor), so every member
 * of the tenant may read, edit, approve and publish them (docs/console.md). The writes are the API's
 * services (article-writes.ts) with the member as a StaffActor, each in one transaction whose events
 * (`article.ready`, `article.published`) and their webhook deliveries are announced after the commit, as
 * the public API door does. An edit sends the `etag` the page read as If-Match: a stale one is
 * PRECONDITION_FAILED (`precondition_failed`), never an overwrite.
 */
export const articlesRouter = router({
  list: tenantProcedure
    .input(
      z.object({
        status: z.enum(PREVIEW_ARTICLE_STATUSES).optional(),
        cursor: z.tuple([z.iso.datetime().nullable(), z.uuid()]).nullable().default(null),
        limit: z.number().int().min(1).max(100).default(50),
      }),
    )
    .query(({ ctx, input }) =>
      consoleArticlePage(ctx.db, ctx.actor, {
        status: input.status,
        after: input.cursor ?? undefined,
        limit: input.limit,
      }),
    ),
  get: tenantProcedure
    .input(z.object({ id: z.uuid() }))
    .query(({ ctx, input }) => consoleArticleDetail(ctx.db, ctx.actor, input.id)),
  update: tenantProcedure
    .input(z.object({ id: z.uuid(), etag: z.string().min(1).max(200), change: PatchArticleSchema }))
    .mutation(({ ctx, input }) =>
      afterCommit(() =>
        ctx.db.transaction((tx) => patchArticle(tx as typeof ctx.db, ctx.actor, input.id, input.etag, input.change)),
      ),
    ),
  approve: tenantProcedure
    .input(z.object({ id: z.uuid() }))
    .mutation(({ ctx, input }) =>
      afterCommit(() => ctx.db.transaction((tx) => approveArticle(tx as typeof ctx.db, ctx.actor, input.id))),
    ),
  publish: tenantProcedure
    .input(z.object({ id: z.uuid() }).extend(PublishArticleSchema.shape))
    .mutation(({ ctx, input }) => {
      const { id, ...body } = input;
      return afterCommit(() => ctx.db.transaction((tx) => publishArticle(tx as typeof ctx.db, ctx.actor, id, body)));
    }),
});
