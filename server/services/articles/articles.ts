import { articleEtag } from "./article-etag";
import { and, desc, eq, gt, inArray, isNull, ne, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { articles } from "@/db/schema";
import { invalidField, notFound } from "@/server/errors";
import {
  ARTICLE_STATUSES,
  type Article,
  type ArticleFormat,
  type ArticleStatus,
  type ArticleSummary,
} from "@/server/schemas/articles";
import type { PreviewPublication } from "@/server/schemas/article-writes";
import type { Actor } from "../actor";
import { ownedBy } from "../tenant-scope";
import { articleBlocks, articleMarkdown, cleanArticleHtml, htmlBytes } from "./article-html";
import { editorDocumentToHtml } from "./editor-document";

type ArticleRow = typeof articles.$inferSelect;

/** Keyset position of an article in the list order: [updated_at as ISO string or null, id]. */
export type ArticlePosition = [string | null, string];

/** Article HTML limit of the spec's "Limits": UTF-8 bytes of the stored or converted HTML. */
export const ARTICLE_HTML_MAX_BYTES = 2_000_000;

/**
 * What an actor may see: its tenant's own blog in the actor's mode (live or the sandbox; tenant-scope.ts),
 * never the platform's shared blog (never listed, reads as missing), and only the statuses of the spec
 * (`handed_off` belongs to a planned feature and is not answered).
 */
function visible(actor: Actor, withHandedOff = false): SQL {
  const statuses: string[] = withHandedOff ? [...ARTICLE_STATUSES, "handed_off"] : [...ARTICLE_STATUSES];
  return and(ownedBy(articles, actor), ne(articles.blog, "shared"), inArray(articles.status, statuses))!;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** Row → the spec's ArticleSummary. */
export function toArticleSummary(a: ArticleRow): ArticleSummary {
  return {
    id: a.id,
    title: a.title,
    slug: a.slug,
    status: a.status as ArticleStatus,
    locale: a.locale,
    keyword: a.keyword,
    meta_title: a.metaTitle,
    meta_description: a.metaDescription,
    cover_image_url: a.coverImageUrl,
    word_count: a.wordCount,
    created_at: iso(a.createdAt),
    updated_at: iso(a.updatedAt),
    published_at: iso(a.publishedAt),
  };
}

/**
 * Rows strictly after `after` in the order `updated_at DESC NULLS LAST, id DESC`. Within dated rows the
 * next ones are older (or as old with a smaller id), then every undated row; within undated rows only
 * those with a smaller id.
 */
function afterPosition([updatedAt, id]: ArticlePosition): SQL {
  if (updatedAt === null) return and(isNull(articles.updatedAt), sql`${articles.id} < ${id}::uuid`)!;
  return or(
    sql`(${articles.updatedAt}, ${articles.id}) < (${updatedAt}::timestamptz, ${id}::uuid)`,
    isNull(articles.updatedAt),
  )!;
}

/**
 * `GET /articles`: a page of the ArticleSummary items the actor may see ({@link visible}) ordered by `updated_at` descending (undated last), then `id`
 * descending, strictly after `after`. `updatedAfter` keeps rows updated strictly later (undated rows never
 * match). Fetches `limit + 1` rows to know whether a next page exists. `withHandedOff` (preview
 * `articles-writes`, issue 71) lists `handed_off` articles too.
 */
export async function listArticles(
  db: Db,
  actor: Actor,
  q: {
    limit: number;
    status?: ArticleStatus | "handed_off";
    updatedAfter?: Date;
    after?: ArticlePosition;
    withHandedOff?: boolean;
  },
): Promise<{ articles: ArticleSummary[]; next: ArticlePosition | null }> {
  const conds: SQL[] = [visible(actor, q.withHandedOff)];
  if (q.status) conds.push(eq(articles.status, q.status));
  if (q.updatedAfter) conds.push(gt(articles.updatedAt, q.updatedAfter));
  if (q.after) conds.push(afterPosition(q.after));
  const rows = await db
    .select()
    .from(articles)
    .where(and(...conds))
    .orderBy(sql`${articles.updatedAt} desc nulls last`, desc(articles.id))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    articles: page.map(toArticleSummary),
    next: rows.length > q.limit && last ? [iso(last.updatedAt), last.id] : null,
  };
}

/**
 * The stored publication record as answered: only the spec's fields, so a stray key in the jsonb never
 * leaks. A record of target `none` (preview `articles-writes`) is answered only with `withNone`: v1's
 * publication is "through a site module" and is null otherwise.
 */
export function toPublication(p: ArticleRow["publication"], withNone = false): PreviewPublication | null {
  if (!p || (p.target === "none" && !withNone)) return null;
  return { target: p.target, state: p.state, published_url: p.published_url ?? null, error: p.error ?? null };
}

const TOO_LARGE = () =>
  invalidField(
    "/content",
    "too_large",
    `The article's HTML is over ${ARTICLE_HTML_MAX_BYTES.toLocaleString("en")} bytes and cannot be answered.`,
  );

/**
 * `content` of an article in `format`: a transferred article's body lives in the shared blog, so it is
 * empty ("" or []). An editor document is converted to HTML first and, in blocks, answered as one `html`
 * block. @throws ApiError 422 on `/content` when the stored or converted HTML is over 2,000,000 UTF-8 bytes.
 */
export function articleContent(
  a: Pick<ArticleRow, "status" | "bodyHtml" | "bodyDoc">,
  format: ArticleFormat,
): Article["content"] {
  if (a.status === "transferred") return format === "blocks" ? [] : "";
  const fromDoc = a.bodyHtml === null && a.bodyDoc !== null;
  const html = fromDoc ? editorDocumentToHtml(a.bodyDoc) : (a.bodyHtml ?? "");
  if (htmlBytes(html) > ARTICLE_HTML_MAX_BYTES) throw TOO_LARGE();
  if (format === "markdown") return articleMarkdown(html);
  if (format === "html") return cleanArticleHtml(html);
  if (fromDoc) {
    const clean = cleanArticleHtml(html);
    return clean ? [{ type: "html", html: clean }] : [];
  }
  return articleBlocks(html);
}

/**
 * `GET /articles/{id}`: the Article with `content` in `format` and `publication`.
 * @throws ApiError 404 `not_found` for a missing or foreign article, one of the other mode, a shared-blog
 *   one or a planned status;
 *   422 on `/content` per {@link articleContent}.
 */
export async function getArticle(db: Db, actor: Actor, id: string, format: ArticleFormat): Promise<Article> {
  return (await getArticleVersioned(db, actor, id, format)).article;
}

/**
 * {@link getArticle} with the row's `version` (the preview's ETag derives from it; issue 71);
 * `withHandedOff` (preview `articles-writes`) answers a `handed_off` article too.
 */
export async function getArticleVersioned(
  db: Db,
  actor: Actor,
  id: string,
  format: ArticleFormat,
  withHandedOff = false,
): Promise<{ article: Article; version: number; etag: string }> {
  const [row] = await db
    .select()
    .from(articles)
    .where(and(visible(actor, withHandedOff), eq(articles.id, id)));
  if (!row) throw notFound("Article");
  const article = {
    ...toArticleSummary(row),
    content: articleContent(row, format),
    publication: toPublication(row.publication, withHandedOff) as Article["publication"],
  };
  return { article, version: row.version, etag: articleEtag(row) };
}
