import { z } from "zod";

// Shapes of the site connector protocol (`/api/connector/v1`, issue 71; docs/site-connector.md): the
// door validates with them and the connector's OpenAPI document is rendered from them.

/** Longest `wait` of `POST /jobs/claim`, seconds. */
export const CLAIM_WAIT_MAX_S = 25;

/** Query of `POST /jobs/claim`: `wait` 0 to 25 seconds (default 25), the long poll. */
export const ClaimQuery = z.strictObject({
  wait: z
    .string()
    .regex(/^\d+$/, `must be an integer from 0 to ${CLAIM_WAIT_MAX_S}`)
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(0, `must be from 0 to ${CLAIM_WAIT_MAX_S}`)
        .max(CLAIM_WAIT_MAX_S, `must be from 0 to ${CLAIM_WAIT_MAX_S}`),
    )
    .default(CLAIM_WAIT_MAX_S)
    .meta({
      description: `seconds to wait for a due job before answering 204 (0 to ${CLAIM_WAIT_MAX_S})`,
      override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
        for (const k of ["pattern", "format"]) delete jsonSchema[k];
        Object.assign(jsonSchema, {
          type: "integer",
          minimum: 0,
          maximum: CLAIM_WAIT_MAX_S,
          default: CLAIM_WAIT_MAX_S,
        });
      },
    }),
});

/** Path of the job routes. */
export const JobParam = z.object({ id: z.uuid().meta({ description: "the job's id" }) });

const LeaseId = z.string().min(1).max(100).meta({ description: "`lease_id` of the claim answer" });

/** The article a job sends: the version the job pins, cleaned HTML and markdown made from it. */
export const ConnectorArticleSchema = z
  .object({
    id: z.uuid(),
    title: z.string(),
    slug: z
      .string()
      .meta({ description: "address segment of the page: the article's slug, or its id when it has none" }),
    locale: z.string().nullable(),
    keyword: z.string().nullable(),
    meta_title: z.string().nullable(),
    meta_description: z.string().nullable(),
    cover_image_url: z.string().nullable(),
    published_at: z.string().nullable().meta({ description: "first publication, ISO 8601; null before it" }),
    updated_at: z.string().nullable(),
    html: z.string().meta({ description: "body, cleaned of scripts, `on*` handlers and dangerous links" }),
    markdown: z.string().meta({ description: "body as markdown, built from the cleaned HTML" }),
  })
  .meta({ id: "ConnectorArticle" });

/** `200` of `POST /jobs/claim`: one job under a lease. */
export const ClaimedJobSchema = z
  .object({
    id: z.uuid(),
    version: z.number().int().meta({ description: "the article's version this job sends" }),
    lease_id: z.string().meta({ description: "send it with heartbeat, result and release" }),
    lease_until: z.string().meta({ description: "ISO 8601; renew with a heartbeat before it passes" }),
    publish_mode: z.enum(["draft", "publish"]).meta({ description: "after the site's drafts-only ceiling" }),
    livemode: z.boolean().meta({ description: "false for a test-mode site: nothing real should be published" }),
    site: z.object({ id: z.uuid(), domain: z.string() }),
    article: ConnectorArticleSchema,
  })
  .meta({ id: "ConnectorJob" });

/** Body of heartbeat and release. */
export const LeaseBody = z.strictObject({ lease_id: LeaseId }).meta({ id: "ConnectorLease" });

/** `200` of a heartbeat. */
export const LeaseRenewedSchema = z
  .object({ id: z.uuid(), lease_until: z.string().meta({ description: "ISO 8601" }) })
  .meta({ id: "ConnectorLeaseRenewed" });

/** Module results of the spec's States "Article and publication". */
export const JOB_RESULTS = ["applied", "skipped", "conflict", "failed"] as const;
export type JobResultState = (typeof JOB_RESULTS)[number];

/** Body of `POST /jobs/{id}/result`. */
export const ResultBody = z
  .strictObject({
    lease_id: LeaseId,
    state: z.enum(JOB_RESULTS),
    published_url: z
      .url({ protocol: /^https?$/, message: "must be an http(s) URL" })
      .max(2000)
      .optional()
      .meta({ description: "address of the page (applied); publish mode makes the article published" }),
    error: z
      .string()
      .max(200)
      .optional()
      .meta({ description: "reason of a conflict, failure or skip, up to 200 characters" }),
  })
  .meta({ id: "ConnectorResult" });
export type ResultInput = z.infer<typeof ResultBody>;

/** `200` of a result: the job as it ended. */
export const JobResultSchema = z
  .object({
    id: z.uuid(),
    state: z.enum(JOB_RESULTS),
    published_url: z.string().nullable(),
    error: z.string().nullable(),
  })
  .meta({ id: "ConnectorJobResult" });
