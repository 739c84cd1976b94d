import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { articles } from "@/db/schema";
import type { PublicationRecord } from "@/db/schema/content";

/**
 * Shows a job's state as the article's `publication` (spec "Article and ArticleSummary": target, state,
 * published_url, error), unless a later job of the article exists: the article shows its newest job.
 * Does not move the article's `version` (that is the source's; a job of another site would otherwise be
 * superseded by this one's result).
 */
export async function showOnArticle(
  db: Db,
  jobId: string,
  articleId: string,
  shown: Omit<PublicationRecord, "target">,
): Promise<void> {
  await db
    .update(articles)
    .set({ publication: { target: "connector", ...shown } })
    .where(
      and(
        eq(articles.id, articleId),
        sql`not exists (
          select 1 from publication_jobs later, publication_jobs this
          where this.id = ${jobId} and later.article_id = ${articleId} and later.id <> this.id
            and (later.created_at, later.id) > (this.created_at, this.id))`,
      ),
    );
}
