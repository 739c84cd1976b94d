import { z } from "zod";
import { TOPIC_SOURCES } from "@/server/lib/article-writing/article-brief";
import { UsageSchema } from "./operations";

// The editorial profile and article generation jobs (issue 72), released to tenants with the
// `article-generation` preview. Field names are the spec's ("Articles: planned routes").

// A string field left out, null or blank is cleared; a list left out is empty (editorial-profile.ts).
const text = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`).nullable().optional();
const list = <T extends z.ZodType<string>>(item: T, max: number) =>
  z.array(item).max(max, `must have at most ${max} items`).optional();

/**
 * `PUT /articles/editorial-profile`: the whole profile (a field left out is cleared). `niche` may be empty
 * here; generation refuses to start without it (409 `editorial_profile_required`).
 */
export const PutEditorialProfileSchema = z
  .strictObject({
    niche: text(500).meta({ description: "what the articles are about; required before generation" }),
    audience: text(1000),
    tone: text(500),
    presentation: text(1000).meta({ description: "how the text is laid out (lists, tables, length of sections…)" }),
    topic_sources: list(z.enum(TOPIC_SOURCES, { message: `must be one of ${TOPIC_SOURCES.join(", ")}` }), 6).refine(
      (v) => !v || new Set(v).size === v.length,
      "must not repeat a source",
    ),
    source_urls: list(z.url({ protocol: /^https?$/, message: "must be an http or https address" }).max(2000), 20),
    avoid: list(z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters"), 100),
    example_text: text(10_000).meta({
      description: "a sample of your own writing; its style is followed, never copied",
    }),
    locale: z
      .string()
      .regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, "must be a language tag such as ru or en-GB")
      .nullable()
      .optional(),
  })
  .meta({ id: "EditorialProfileInput" });
export type PutEditorialProfile = z.infer<typeof PutEditorialProfileSchema>;

/** The editorial profile (`GET`/`PUT /articles/editorial-profile`); unset fields are null or []. */
export const EditorialProfileSchema = z
  .object({
    niche: z.string().nullable(),
    audience: z.string().nullable(),
    tone: z.string().nullable(),
    presentation: z.string().nullable(),
    topic_sources: z.array(z.enum(TOPIC_SOURCES)),
    source_urls: z.array(z.string()),
    avoid: z.array(z.string()),
    example_text: z.string().nullable(),
    locale: z.string().nullable(),
    updated_at: z.string().nullable().meta({ description: "null: never saved" }),
  })
  .meta({ id: "EditorialProfile" });
export type EditorialProfileView = z.infer<typeof EditorialProfileSchema>;

/** Words an ordered article aims at when the order does not say (issue 72 item 2). */
export const DEFAULT_TARGET_WORDS = 1200;

/** `POST /articles/generation-jobs`: `topic_id` or `keyword`, exactly one. */
export const CreateGenerationJobSchema = z
  .strictObject({
    topic_id: z.uuid("must be a uuid").optional().meta({ description: "a strategist topic, proposed or approved" }),
    keyword: z.string().trim().min(1, "must not be empty").max(200, "must be at most 200 characters").optional(),
    title: z.string().trim().min(1, "must not be empty").max(500, "must be at most 500 characters").optional(),
    locale: z
      .string()
      .regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, "must be a language tag such as ru or en-GB")
      .optional(),
    target_words: z
      .number("must be a whole number")
      .int("must be a whole number")
      .min(300, "must be at least 300")
      .max(4000, "must be at most 4000")
      .default(DEFAULT_TARGET_WORDS),
  })
  .superRefine((b, ctx) => {
    if ((b.topic_id === undefined) === (b.keyword === undefined))
      ctx.addIssue({
        code: "custom",
        path: b.topic_id === undefined ? ["keyword"] : ["topic_id"],
        message: "send either topic_id or keyword, not both and not neither",
      });
  })
  .meta({ id: "GenerationJobCreate" });
export type CreateGenerationJob = z.infer<typeof CreateGenerationJobSchema>;

/** Statuses of a generation job: those of its operation, without `canceled`. */
export const GENERATION_JOB_STATUSES = ["queued", "running", "succeeded", "failed"] as const;

/** `GET /articles/generation-jobs/{id}` (issue 72 item 2). */
export const GenerationJobSchema = z
  .object({
    id: z.uuid(),
    status: z.enum(GENERATION_JOB_STATUSES),
    topic_id: z.uuid().nullable(),
    keyword: z.string().nullable(),
    article_id: z.uuid().nullable().meta({ description: "the draft written, once succeeded" }),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    created_at: z.string(),
    completed_at: z.string().nullable(),
    usage: UsageSchema.nullable(),
  })
  .meta({ id: "GenerationJob" });
export type GenerationJob = z.infer<typeof GenerationJobSchema>;
