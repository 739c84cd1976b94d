import { z } from "zod";
import { ArticleSchema, ArticleSummarySchema, ARTICLE_STATUSES } from "./articles";

// Bodies and answers of the article writes and sites (issue 71), released to tenants with the
// `articles-writes` preview. Field names are the Article's (spec "Article and ArticleSummary").

const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);

/** `PATCH /articles/{id}`: only the fields sent change; `content` is HTML, sanitized on write. */
export const PatchArticleSchema = z
  .strictObject({
    title: text(500).min(1, "must not be empty").optional(),
    slug: text(200)
      .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "must be lowercase letters, digits and single hyphens")
      .nullable()
      .optional(),
    content: z.string().optional(),
    meta_title: text(300).nullable().optional(),
    meta_description: text(1000).nullable().optional(),
    published_url: z
      .url({ protocol: /^https?$/, message: "must be an http or https address" })
      .max(2000)
      .optional()
      .meta({ description: "confirms your own publication after a publish with target none" }),
  })
  .meta({ id: "ArticlePatch" });

/** `POST /articles/{id}/publish`. */
export const PublishArticleSchema = z
  .strictObject({
    target: z.enum(["connector", "none"], { message: "must be connector or none" }),
    site_id: z.uuid("must be a uuid").optional(),
    publish_mode: z.enum(["draft", "publish"], { message: "must be draft or publish" }).optional(),
  })
  .meta({ id: "ArticlePublish" });

/** Statuses under the preview: the spec's and `handed_off` (published with target `none`, not yet confirmed). */
export const PREVIEW_ARTICLE_STATUSES = [...ARTICLE_STATUSES, "handed_off"] as const;

/**
 * Publication under the preview (spec "Publication"): `target` is `connector` (a site connector's job) or
 * `none` (handed off to the tenant: `queued` until `PATCH` with `published_url` makes it `applied`).
 */
export const PreviewPublicationSchema = z
  .object({
    target: z.enum(["connector", "none"]),
    state: z.enum(["queued", "applied", "skipped", "conflict", "failed"]),
    published_url: z.string().nullable(),
    error: z.string().nullable(),
  })
  .meta({ id: "PublicationPreview" });
export type PreviewPublication = z.infer<typeof PreviewPublicationSchema>;

/**
 * The Article as the preview's routes answer it (`GET /articles/{id}` and the writes): the status may
 * also be `handed_off`, the publication's target `none` (spec "States": "Article and publication").
 */
export const WrittenArticleSchema = ArticleSchema.extend({
  status: z.enum(PREVIEW_ARTICLE_STATUSES),
  publication: PreviewPublicationSchema.nullable(),
}).meta({ id: "ArticleWritten" });

/** An ArticleSummary of `GET /articles` under the preview: the status may also be `handed_off`. */
export const PreviewArticleSummarySchema = ArticleSummarySchema.extend({
  status: z.enum(PREVIEW_ARTICLE_STATUSES),
}).meta({ id: "ArticleSummaryPreview" });

/** An item of `GET /sites` (issue 71). */
export const SiteSchema = z
  .object({
    id: z.uuid(),
    domain: z.string(),
    status: z.enum(["not_linked", "working", "not_working"]).meta({
      description: "not_linked: its connector never polled; working: polled within the last 5 minutes",
    }),
    drafts_only: z.boolean(),
    last_seen_at: z.string().nullable(),
  })
  .meta({ id: "Site" });

/** `GET /sites`. */
export const SiteListSchema = z.object({ data: z.array(SiteSchema) });
