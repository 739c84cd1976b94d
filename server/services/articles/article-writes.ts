import { and, desc, eq, isNull, ne, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { articles, publicationJobs, sites } from "@/db/schema";
import { ApiError, invalidField, notFound } from "@/server/errors";
import type { ArticleFormat } from "@/server/schemas/articles";
import type { Actor } from "../actor";
import { recordEvent } from "../events/outbox";
import { ifMatchAllows, parseIfMatch } from "../leads/lead-etag";
import { livemodeOf, ownedBy, ownerOf } from "../tenant-scope";
import { articleMarkdown, cleanArticleHtml, htmlBytes } from "./article-html";
import { ARTICLE_HTML_MAX_BYTES, articleContent, toArticleSummary, toPublication } from "./articles";
import { articleEtag } from "./article-etag";
import { siteStatus } from "./sites";

type ArticleRow = typeof articles.$inferSelect;

/** The article as the write routes answer it (status may be `handed_off`) with its etag. */
export interface WrittenArticle {
  article: ReturnType<typeof toArticleSummary> & {
    status: string;
    content: ReturnType<typeof articleContent>;
    publication: ReturnType<typeof toPublication>;
  };
  etag: string;
}

/** Row → the write routes' answer (content as cleaned HTML) and its etag. */
export function writtenArticle(row: ArticleRow, format: ArticleFormat = "html"): WrittenArticle {
  return {
    article: {
      ...toArticleSummary(row),
      content: articleContent(row, format),
      publication: toPublication(row.publication, true),
    },
    etag: articleEtag(row),
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

/**
 * Whether an `If-Match` header sent with a change allows it (RFC 9110 §13.1.1): absent or empty → no
 * precondition; `*` (alone or in the list) → any version; else a strong tag equal to `current`.
 * @throws ApiError 400 `bad_request` when a member is not an entity tag.
 */
function ifMatchHolds(header: string | null, current: string): boolean {
  if (header === null || header.trim() === "") return true;
  if (header.split(",").some((p) => p.trim() === "*")) return true;
  return ifMatchAllows(parseIfMatch(header), current);
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
 *   `published_url` on an article that is not `handed_off`. A body over 256 KB never reaches here (413).
 */
export async function patchArticle(
  db: Db,
  actor: Actor,
  id: string,
  ifMatch: string | null,
  patch: ArticlePatch,
): Promise<WrittenArticle> {
  const row = await articleRow(db, actor, id);
  const current = articleEtag(row);
  if (!ifMatchHolds(ifMatch, current)) throw preconditionFailed(current);
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
  const publishedUrl = patch.published_url;
  if (publishedUrl !== undefined) {
    if (row.status !== "handed_off")
      throw new ApiError(
        "invalid_state",
        `published_url confirms a publication of your own after a publish with target none; this article is ${row.status}.`,
      );
    set.status = "published";
    set.publishedAt = new Date();
    set.publication = { target: "none", state: "applied", published_url: publishedUrl, error: null };
  }
  if (Object.keys(set).length === 0) return writtenArticle(row); // nothing sent: no change, same version
  const [updated] = await db
    .update(articles)
    .set({ ...set, version: sql`${articles.version} + 1`, updatedAt: new Date() })
    .where(eq(articles.id, row.id))
    .returning();
  if (publishedUrl !== undefined)
    await recordEvent(db, {
      tenantId: actor.tenantId,
      livemode: livemodeOf(actor),
      type: "article.published",
      data: { type: "article", article_id: row.id, published_url: publishedUrl },
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

/** The spec's payload limit of a publication (spec "Limits": publish payload 3,000,000 bytes). */
export const ARTICLE_PAYLOAD_MAX_BYTES = 3_000_000;

/**
 * UTF-8 bytes of what a publication sends of an article: title, slug, meta fields, the cleaned HTML and
 * the markdown built from it (issue 71's job payload).
 * @throws ApiError 422 on `/content` when the HTML is over 2,000,000 bytes (articleContent).
 */
export function articlePayloadBytes(row: ArticleRow): number {
  const html = articleContent(row, "html") as string;
  const text = `${row.title}${row.slug ?? ""}${row.metaTitle ?? ""}${row.metaDescription ?? ""}`;
  return htmlBytes(html) + htmlBytes(articleMarkdown(html)) + htmlBytes(text);
}

/** Statuses a publish starts from: the connector needs an approved (or published, edited) article. */
const PUBLISHABLE: Record<PublishInput["target"], ReadonlySet<string>> = {
  connector: new Set(["approved", "published"]),
  none: new Set(["approved", "published", "handed_off"]),
};

/**
 * `POST /articles/{id}/publish` (spec "Articles: planned routes", States "Article and publication").
 * `none`: the article becomes `handed_off` (publication `none`/`queued`, version + 1) and event
 * `article.ready` is emitted. `connector`: a queued job
 * of the article's current version for the site (publish mode after the site's drafts-only ceiling), or
 * the existing job when one of that version and site exists; `publication` shows it `queued`.
 * @throws ApiError 422 `/site_id` or `/publish_mode` missing for connector, `/content` over the limits;
 *   404 foreign or missing article or site; 409 `invalid_state` when the site is not working or not
 *   linked, the article is not approved (or published; `none` also from `handed_off`), or it is empty.
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
  if (!PUBLISHABLE[input.target].has(row.status))
    throw new ApiError("invalid_state", `Only an approved article can be published (this one is ${row.status}).`);
  if ((row.bodyHtml ?? "").trim() === "" && row.bodyDoc === null)
    throw new ApiError("invalid_state", "The article is empty: add content before publishing it.");
  if (articlePayloadBytes(row) > ARTICLE_PAYLOAD_MAX_BYTES)
    throw invalidField("/content", "too_large", `the article's payload is over ${ARTICLE_PAYLOAD_MAX_BYTES} bytes`);

  if (input.target === "none") {
    const [updated] = await db
      .update(articles)
      .set({
        status: "handed_off",
        publication: { target: "none", state: "queued", published_url: null, error: null },
        version: sql`${articles.version} + 1`,
        updatedAt: new Date(),
      })
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
