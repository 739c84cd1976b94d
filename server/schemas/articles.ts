import { z } from "zod";
import { Timestamp } from "./common";

/** Article statuses a client may see and filter by (spec "Article and ArticleSummary"); `handed_off` is planned and never answered. */
export const ARTICLE_STATUSES = [
  "draft",
  "review",
  "approved",
  "published",
  "rejected",
  "transferred",
  "external",
] as const;
export const ArticleStatus = z.enum(ARTICLE_STATUSES, { message: `must be one of ${ARTICLE_STATUSES.join(", ")}` });
export type ArticleStatus = z.infer<typeof ArticleStatus>;

/** `format` of `GET /articles/{id}`: how `content` is rendered; `html` by default. */
export const ArticleFormat = z.enum(["html", "markdown", "blocks"], {
  message: "must be one of html, markdown, blocks",
});
export type ArticleFormat = z.infer<typeof ArticleFormat>;

/** One item of `content` in format `blocks`: a simple type and its cleaned HTML, nothing else. */
export const ArticleBlockSchema = z.strictObject({ type: z.string(), html: z.string() });
export type ArticleBlock = z.infer<typeof ArticleBlockSchema>;

/** Publication of an article through a site module (spec "Publication"); null = never published that way. */
export const PublicationSchema = z.object({
  target: z.enum(["connector"]),
  state: z.enum(["queued", "applied", "skipped", "conflict", "failed"]),
  published_url: z.string().nullable(),
  error: z.string().nullable(),
});

/** A list item of `GET /articles` (spec "ArticleSummary"): no content and no publication. */
export const ArticleSummarySchema = z.object({
  id: z.uuid(),
  title: z.string(),
  slug: z.string().nullable(),
  status: ArticleStatus,
  locale: z.string().nullable(),
  keyword: z.string().nullable(),
  meta_title: z.string().nullable(),
  meta_description: z.string().nullable(),
  cover_image_url: z.string().nullable(),
  word_count: z.number().int(),
  created_at: Timestamp.nullable(),
  updated_at: Timestamp.nullable(),
  published_at: Timestamp.nullable(),
});
export type ArticleSummary = z.infer<typeof ArticleSummarySchema>;

/**
 * `GET /articles/{id}` (spec "Article"): the summary plus `content` (a string for html and markdown, an
 * array of blocks for blocks; empty for a `transferred` article) and `publication`.
 */
export const ArticleSchema = ArticleSummarySchema.extend({
  content: z.union([z.string(), z.array(ArticleBlockSchema)]),
  publication: PublicationSchema.nullable(),
});
export type Article = z.infer<typeof ArticleSchema>;
