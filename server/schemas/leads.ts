import { z } from "zod";
import {
  boolParam,
  cursorParam,
  dateOrInstantParam,
  includeDeletedNotStored,
  limitParam,
  MoneySchema,
  Timestamp,
} from "./common";

/** The six canonical lead statuses (spec "Lead"); archive is a flag, not a status. */
export const LEAD_STATUSES = ["new", "qualified", "proposal", "negotiation", "won", "lost"] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];

/**
 * Query of `GET /leads` (spec "GET /leads"). Unknown parameters answer 422. `updated_since` (inclusive) and
 * `updated_after` (strict) exclude each other: both → 422 on `/updated_after` with code `conflict`.
 * `include_deleted=true` → 422 `not_supported` (deleted leads are not stored); `false` is accepted.
 */
export const LeadListQuery = z
  .strictObject({
    limit: limitParam(25),
    cursor: cursorParam.optional(),
    status: z.enum(LEAD_STATUSES, { message: `must be one of ${LEAD_STATUSES.join(", ")}` }).optional(),
    archived: boolParam
      .default(false)
      .meta({ description: "true = only archived leads; false (default) = only non-archived" }),
    updated_since: dateOrInstantParam
      .optional()
      .meta({ description: "changed at or after this moment (inclusive); date or date-time with zone" }),
    updated_after: dateOrInstantParam
      .optional()
      .meta({ description: "changed strictly after this moment; not together with updated_since" }),
    source: z.string().min(1).max(200).optional().meta({ description: "exact source value" }),
    include_deleted: includeDeletedNotStored("deleted leads are not stored"),
  })
  .superRefine((q, ctx) => {
    if (q.updated_since && q.updated_after) {
      ctx.addIssue({
        code: "custom",
        path: ["updated_after"],
        message: "use either updated_since (inclusive) or updated_after (strictly later), not both",
        params: { code: "conflict" },
      });
    }
  });
export type LeadListQuery = z.infer<typeof LeadListQuery>;

/** LeadContact: the lead's contact person (spec "Lead": `contact`). */
export const LeadContactSchema = z
  .object({
    id: z.uuid(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    tags: z.array(z.string()),
    geo_country: z.string().nullable(),
    geo_city: z.string().nullable(),
  })
  .meta({ id: "LeadContact" });

/** LeadAttribution: where the lead came from (spec "Lead": `attribution`). */
export const LeadAttributionSchema = z
  .object({
    utm_source: z.string().nullable(),
    utm_medium: z.string().nullable(),
    utm_campaign: z.string().nullable(),
    first_page: z.string().nullable(),
    referrer: z.string().nullable(),
  })
  .meta({ id: "LeadAttribution" });

/** LeadScore: the last scoring (spec "Lead": `score`); `grade` is class A to D. */
export const LeadScoreSchema = z
  .object({
    score: z.number().nullable(),
    grade: z.string().nullable().meta({ description: "class A to D" }),
    reason: z.string().nullable(),
    flags: z.array(z.string()).nullable(),
    source: z.string().nullable(),
    model: z.string().nullable(),
    scored_at: Timestamp.nullable(),
  })
  .meta({ id: "LeadScore" });

/** LeadFlags (spec "Lead": `flags`). */
export const LeadFlagsSchema = z
  .object({
    buy_intent: z.boolean().nullable(),
    support: z.boolean().nullable(),
    supplier: z.boolean().nullable(),
  })
  .meta({ id: "LeadFlags" });

/** Lead as answered (spec "Resources: Lead"); `etag` equals the `ETag` header of `GET /leads/{id}`. */
export const LeadSchema = z
  .object({
    id: z.uuid(),
    external_id: z.string().nullable().meta({ description: "id in an external CRM; null while none is connected" }),
    external_url: z.string().nullable(),
    version: z.number().int().meta({ description: "version of the lead; grows with every change" }),
    etag: z
      .string()
      .meta({ description: "strong entity tag of this version; equals the `ETag` header of GET /leads/{id}" }),
    status: z.enum(LEAD_STATUSES),
    archived: z.boolean(),
    archived_reason: z.string().nullable(),
    owner: z.string().meta({ description: "`internal` (platform CRM) or `external`" }),
    title: z.string().nullable(),
    source: z.string().nullable(),
    assigned_to: z.string().nullable().meta({ description: "employee id" }),
    product_id: z.string().nullable(),
    course_slug: z.string().nullable(),
    conversation_id: z.string().nullable(),
    intent: z.string().nullable(),
    ai_summary: z.string().nullable(),
    next_action: z.string().nullable(),
    lost_reason: z.string().nullable(),
    value: MoneySchema.nullable(),
    contact: LeadContactSchema.nullable(),
    attribution: LeadAttributionSchema.nullable(),
    score: LeadScoreSchema.nullable(),
    flags: LeadFlagsSchema.nullable(),
    next_action_at: Timestamp.nullable(),
    qualified_at: Timestamp.nullable(),
    won_at: Timestamp.nullable(),
    lost_at: Timestamp.nullable(),
    last_activity_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "Lead" });
export type Lead = z.infer<typeof LeadSchema>;
