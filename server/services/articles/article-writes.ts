import { and, desc, eq, isNull, ne, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { articles, publicationJobs, sites } from "@/db/schema";
import { ApiError, invalidField, notFound } from "@/server/errors";
import type { ArticleFormat } from "@/server/schemas/articles";
import type { Actor } from "../actor";
import { recordEvent } from "../events/outbox";
import { parseIfMatch, ifMatchAllows } from "../leads/lead-etag";
import { livemodeOf, ownedBy, ownerOf } from "../tenant-scope";
import { cleanArticleHtml, htmlBytes } from "./article-html";
import { ARTICLE_HTML_MAX_BYTES, articleContent, toArticleSummary } from "./articles";
import { articleEtag } from "./article-etag";
import { siteStatus } from "./sites";

type ArticleRow = typeof articles.$inferSelect;

/** The article as the write routes answer it (status may be `handed_off`) with its etag. */
export interface WrittenArticle {
  article: ReturnType<typeof toArticleSummary> & {
    status: string;
    content: ReturnType<typeof articleContent>;
    publication: ArticleRow["publication"];
  };
  etag: string;
}

/** Row → the write routes' answer (content as cleaned HTML) and its etag. */
export function writtenArticle(row: ArticleRow, format: ArticleFormat = "html"): WrittenArticle {
  return {
    article: { ...toArticleSummary(row), content: articleContent(row, format), publication: row.publication },
    etag: articleEtag(row.id, row.version),
  };
}

/**
 * The actor's own article in any status (the tenant blog, never the shared one), locked for the change.
 * @throws ApiError 404 `not_found`.
 */
async function articleRow(db: Db, actor: Actor, id: string): Promise<ArticleRow> {
  const [row] = await db
    .select()
    .from(articles)
    .where(and(ownedBy(articles, actor), ne(articles.blog, "shared"), eq(articles.id, id)))
    .for("update");
  if (!row) throw notFound("Article");
  return row;
}

/** 412 with the current etag in the problem body. */
function preconditionFailed(etag: string): ApiError {
  return new ApiError(
    "precondition_failed",
    "The article changed since you read it (If-Match is not its current ETag); read it again and reapply your change.",
    { etag },
  );
}

/** Fields of `PATCH /articles/{id}` (all optional; `content` is HTML). */
export interface ArticlePatch {
  title?: string;
  slug?: string | null;
  content?: string;
  meta_title?: string | null;
  meta_description?: string | null;
  published_url?: string;
}

const words = (html: string) =>
  html
    .replace(/<[^>]*>/g, " ")
    .split(/\s+/)
    .filter(Boolean).length;

/**
 * `PATCH /articles/{id}`: applies the fields sent; `If-Match` is honoured when sent (`*` matches any
 * version). `content` is sanitized on write with the read rules (cleanArticleHtml) and replaces an editor
 * document. The status is kept (an approved or published article stays so; its next publish makes a new
 * job version). `published_url` confirms a `handed_off` article: it becomes `published`, event
 * `article.published`. The version grows by one.
 * @throws ApiError 404; 400/412 for If-Match; 422 `/content` over 2,000,000 bytes; 409 `invalid_state` for
 *   `published_url` on an article that is not `handed_off`.
 */
export async function patchArticle(
  db: Db,
  actor: Actor,
  id: string,
  ifMatch: string | null,
  patch: ArticlePatch,
): Promise<WrittenArticle> {
  const row = await articleRow(db, actor, id);
  const current = articleEtag(row.id, row.version);
  if (ifMatch !== null && ifMatch.trim() !== "*" && !ifMatchAllows(parseIfMatch(ifMatch), current))
    throw preconditionFailed(current);
  const set: Partial<typeof articles.$inferInsert> = {};
  if (patch.title !== undefined) set.title = patch.title;
  if (patch.slug !== undefined) set.slug = patch.slug;
  if (patch.meta_title !== undefined) set.metaTitle = patch.meta_title;
  if (patch.meta_description !== undefined) set.metaDescription = patch.meta_description;
  if (patch.content !== undefined) {
    if (htmlBytes(patch.content) > ARTICLE_HTML_MAX_BYTES)
      throw invalidField("/content", "too_large", `content is over ${ARTICLE_HTML_MAX_BYTES} bytes of HTML`);
    set.bodyHtml = cleanArticleHtml(patch.content);
    set.bodyDoc = null;
    set.wordCount = words(set.bodyHtml);
  }
  let published = false;
  if (patch.published_url !== undefined) {
    if (row.status !== "handed_off" && row.status !== "published")
      throw new ApiError(
        "invalid_state",
        "published_url confirms a publication of your own: publish the article with target none first.",
      );
    published = row.status === "handed_off";
    set.status = "published";
    set.publishedAt = new Date();
  }
  const [updated] = await db
    .update(articles)
    .set({ ...set, version: sql`${articles.version} + 1`, updatedAt: new Date() })
    .where(eq(articles.id, row.id))
    .returning();
  if (patch.published_url !== undefined)
    await recordEvent(db, {
      tenantId: actor.tenantId,
      livemode: livemodeOf(actor),
      type: "article.published",
      data: { type: "article", article_id: row.id, published_url: patch.published_url, confirmed: published },
    });
  return writtenArticle(updated!);
}

const APPROVABLE = new Set(["draft", "review"]);

/**
 * `POST /articles/{id}/approve`: `draft` or `review` → `approved` (version + 1).
 * @throws ApiError 404; 409 `invalid_state` from any other status.
 */
export async function approveArticle(db: Db, actor: Actor, id: string): Promise<WrittenArticle> {
  const row = await articleRow(db, actor, id);
  if (!APPROVABLE.has(row.status))
    throw new ApiError(
      "invalid_state",
      `An article in status ${row.status} cannot be approved (only draft or review).`,
    );
  const [updated] = await db
    .update(articles)
    .set({ status: "approved", version: sql`${articles.version} + 1`, updatedAt: new Date() })
    .where(eq(articles.id, row.id))
    .returning();
  return writtenArticle(updated!);
}

/** Body of `POST /articles/{id}/publish`. */
export interface PublishInput {
  target: "connector" | "none";
  site_id?: string;
  publish_mode?: "draft" | "publish";
}

/** The spec's payload limit of a connector job (title, meta and HTML together). */
export const ARTICLE_PAYLOAD_MAX_BYTES = 3_000_000;

/**
 * `POST /articles/{id}/publish` (spec "Articles: planned routes", States "Article and publication").
 * `none`: the article becomes `handed_off` and event `article.ready` is emitted. `connector`: a queued job
 * of the article's current version for the site (publish mode after the site's drafts-only ceiling), or
 * the existing job when one of that version and site exists; `publication` shows it `queued`.
 * @throws ApiError 422 `/site_id` or `/publish_mode` missing for connector, `/content` over the limits;
 *   404 foreign or missing article or site; 409 `invalid_state` when the site is not working or not
 *   linked, the article is not approved (or already handed off for `none`), or it is empty.
 */
export async function publishArticle(db: Db, actor: Actor, id: string, input: PublishInput): Promise<WrittenArticle> {
  if (input.target === "connector") {
    if (!input.site_id) throw invalidField("/site_id", "required", "site_id is required for target connector");
    if (!input.publish_mode)
      throw invalidField(
        "/publish_mode",
        "required",
        "publish_mode (draft or publish) is required for target connector",
      );
  }
  const row = await articleRow(db, actor, id);
  const site = input.site_id
    ? (
        await db
          .select()
          .from(sites)
          .where(and(ownedBy(sites, actor), eq(sites.id, input.site_id), isNull(sites.revokedAt)))
      )[0]
    : undefined;
  if (input.target === "connector" && !site) throw notFound("Site");
  const allowed = input.target === "none" ? ["approved", "published"] : ["approved", "published"];
  if (!allowed.includes(row.status))
    throw new ApiError("invalid_state", `Only an approved article can be published (this one is ${row.status}).`);
  const html = row.bodyHtml ?? "";
  if (html.trim() === "" && row.bodyDoc === null)
    throw new ApiError("invalid_state", "The article is empty: add content before publishing it.");
  const content = articleContent(row, "html") as string; // 422 over 2,000,000 bytes
  const payload = htmlBytes(content) + htmlBytes(`${row.title}${row.metaTitle ?? ""}${row.metaDescription ?? ""}`);
  if (payload > ARTICLE_PAYLOAD_MAX_BYTES)
    throw invalidField("/content", "too_large", `the article's payload is over ${ARTICLE_PAYLOAD_MAX_BYTES} bytes`);

  if (input.target === "none") {
    const [updated] = await db
      .update(articles)
      .set({ status: "handed_off", version: sql`${articles.version} + 1`, updatedAt: new Date() })
      .where(eq(articles.id, row.id))
      .returning();
    await recordEvent(db, {
      tenantId: actor.tenantId,
      livemode: livemodeOf(actor),
      type: "article.ready",
      data: { type: "article", article_id: row.id },
    });
    return writtenArticle(updated!);
  }

  const status = siteStatus(site!.lastSeenAt, new Date());
  if (status !== "working")
    throw new ApiError(
      "invalid_state",
      `The site ${site!.domain} is ${status.replace("_", " ")}: its connector must poll first.`,
    );
  const [existing] = await db
    .select()
    .from(publicationJobs)
    .where(
      and(
        ownedBy(publicationJobs, actor),
        eq(publicationJobs.articleId, row.id),
        eq(publicationJobs.siteId, site!.id),
        eq(publicationJobs.version, row.version),
      ),
    )
    .orderBy(desc(publicationJobs.createdAt))
    .limit(1);
  if (existing) return writtenArticle(row);
  const mode = site!.draftsOnly ? "draft" : input.publish_mode!;
  await db.insert(publicationJobs).values({
    ...ownerOf(actor),
    articleId: row.id,
    siteId: site!.id,
    version: row.version,
    publishMode: mode,
  });
  // The job's version is the article's: publication changes do not move the version (the etag is the source's).
  const [updated] = await db
    .update(articles)
    .set({ publication: { target: "connector", state: "queued", published_url: null, error: null } })
    .where(eq(articles.id, row.id))
    .returning();
  return writtenArticle(updated!);
}
