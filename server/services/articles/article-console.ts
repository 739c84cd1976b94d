import { and, desc, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { publicationJobs, sites } from "@/db/schema";
import type { PREVIEW_ARTICLE_STATUSES } from "@/server/schemas/article-writes";
import type { StaffActor } from "../actor";
import { ownedBy } from "../tenant-scope";
import { getArticleVersioned, listArticles, type ArticlePosition } from "./articles";

/**
 * A page of the console's Articles list (issue 71 item 6): the tenant's own articles in the console's mode,
 * in the API's order and shape (`GET /articles` under the preview `articles-writes`, so `handed_off` ones
 * too), with its status filter.
 */
export function consoleArticlePage(
  db: Db,
  actor: StaffActor,
  q: { status?: Parameters<typeof listArticles>[2]["status"]; after?: ArticlePosition; limit: number },
) {
  return listArticles(db, actor, { ...q, withHandedOff: true });
}

type PreviewArticleStatus = (typeof PREVIEW_ARTICLE_STATUSES)[number];

/** One row of an article's publication history: a job of one version sent to one site. */
export interface PublicationJobView {
  id: string;
  version: number;
  state: string;
  publishMode: string;
  siteId: string;
  /** The site's domain (a revoked site's too: the history keeps it). */
  siteDomain: string;
  publishedUrl: string | null;
  error: string | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * An article's page in the console: the Article as the API answers it under the preview (`content` is the
 * cleaned HTML of `GET /articles/{id}`, the reader view and the editor's starting point), its `etag` (sent
 * back with an edit: a stale one is refused) and `version`, and its publication history: the
 * `publication_jobs` of the article, newest first (at most 50).
 * @throws ApiError 404 for a missing, foreign, other-mode or shared-blog article; 422 `/content` over the
 *   HTML limit.
 */
export async function consoleArticleDetail(db: Db, actor: StaffActor, id: string) {
  const { article, version, etag } = await getArticleVersioned(db, actor, id, "html", true);
  const jobs = await db
    .select({ job: publicationJobs, domain: sites.domain })
    .from(publicationJobs)
    .innerJoin(sites, eq(sites.id, publicationJobs.siteId))
    .where(and(ownedBy(publicationJobs, actor), eq(publicationJobs.articleId, id)))
    .orderBy(desc(publicationJobs.createdAt), desc(publicationJobs.version))
    .limit(50);
  const history: PublicationJobView[] = jobs.map(({ job, domain }) => ({
    id: job.id,
    version: job.version,
    state: job.state,
    publishMode: job.publishMode,
    siteId: job.siteId,
    siteDomain: domain,
    publishedUrl: job.publishedUrl,
    error: job.error,
    createdAt: job.createdAt.toISOString(),
    updatedAt: job.updatedAt.toISOString(),
  }));
  return {
    // The preview's statuses (handed_off too) and the cleaned HTML (format html answers a string).
    article: { ...article, status: article.status as PreviewArticleStatus, content: article.content as string },
    etag,
    version,
    history,
  };
}
