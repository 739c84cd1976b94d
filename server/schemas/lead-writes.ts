import { z } from "zod";
import { cursorParam, instantParam, limitParam, Timestamp } from "./common";
import { LEAD_STATUSES, LeadScoreSchema } from "./leads";
import { UsageSchema } from "./operations";

// Bodies and answers of the lead writes, the CRM status map and the disclosure journal (issue 70), released
// to tenants with the `leads-writes` preview. The spec names these routes only in passing, so their bodies
// are ours; field names are the Lead's (spec "Lead").

const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);
const nullableText = (max: number) => text(max).nullable().optional();

/** A canonical lead status (spec "Lead"), with a message that lists them. */
export const LeadStatusSchema = z.enum(LEAD_STATUSES, { message: `must be one of ${LEAD_STATUSES.join(", ")}` });

/**
 * Money sent by a client: `amount` a non-negative decimal string with at most 2 fraction digits (never a
 * number, spec "Money"), `currency` an ISO 4217 code of three capital letters.
 */
export const MoneyInputSchema = z
  .strictObject({
    amount: z
      .string()
      .regex(/^\d{1,15}(\.\d{1,2})?$/, "must be a decimal string such as 1500.00 (at most 2 fraction digits)"),
    currency: z.string().regex(/^[A-Z]{3}$/, "must be an ISO 4217 code such as RUB"),
  })
  .meta({ id: "MoneyInput" });

/** Contact fields of a lead write (LeadContact without `id`). */
export const LeadContactInputSchema = z
  .strictObject({
    first_name: nullableText(200),
    last_name: nullableText(200),
    email: z.email("must be an email address").max(320).nullable().optional(),
    phone: z
      .string()
      .regex(/^\+?[0-9 ()-]{3,40}$/, "must be a phone number: digits, spaces, ( ) - and an optional leading +")
      .nullable()
      .optional(),
    tags: z.array(text(100)).max(50, "must have at most 50 tags").optional(),
    geo_country: nullableText(100),
    geo_city: nullableText(200),
  })
  .meta({
    id: "LeadContactInput",
    description: "a contact with the same email or phone in the tenant is reused (and updated), not duplicated",
  });
export type LeadContactInput = z.infer<typeof LeadContactInputSchema>;

/** Attribution of a created lead (LeadAttribution). */
export const LeadAttributionInputSchema = z
  .strictObject({
    utm_source: nullableText(200),
    utm_medium: nullableText(200),
    utm_campaign: nullableText(200),
    first_page: nullableText(2000),
    referrer: nullableText(2000),
  })
  .meta({ id: "LeadAttributionInput" });

/** Body of `POST /leads`. `lost` needs `lost_reason`. */
export const CreateLeadSchema = z
  .strictObject({
    title: z.string().trim().min(1, "must not be empty").max(500, "must be at most 500 characters"),
    // Not a zod default: generated clients would then make it a required member of the body type.
    status: LeadStatusSchema.optional().meta({ description: "default `new`" }),
    source: nullableText(200),
    value: MoneyInputSchema.nullable().optional(),
    contact: LeadContactInputSchema.optional(),
    attribution: LeadAttributionInputSchema.optional(),
    conversation_id: z.uuid("must be the id of one of the tenant's conversations").nullable().optional(),
    external_id: nullableText(200),
    lost_reason: nullableText(500),
  })
  .meta({ id: "CreateLead" });
export type CreateLead = z.infer<typeof CreateLeadSchema>;

/**
 * Body of `PATCH /leads/{id}`: only the fields sent change; `null` clears a nullable one. `lost` needs a
 * `lost_reason` (in the body or already on the lead). A body that changes nothing answers the lead as it is.
 */
export const UpdateLeadSchema = z
  .strictObject({
    status: LeadStatusSchema.optional(),
    archived: z.boolean().optional(),
    archived_reason: nullableText(200),
    title: z.string().trim().min(1, "must not be empty").max(500, "must be at most 500 characters").optional(),
    value: MoneyInputSchema.nullable().optional(),
    assigned_to: nullableText(200),
    next_action: nullableText(1000),
    next_action_at: z.iso
      .datetime({ offset: true, message: "must be an ISO 8601 date-time with a time zone" })
      .nullable()
      .optional(),
    lost_reason: nullableText(500),
    intent: nullableText(500),
    contact: LeadContactInputSchema.optional(),
  })
  .meta({ id: "UpdateLead" });
export type UpdateLead = z.infer<typeof UpdateLeadSchema>;

/** Answer of `POST /leads/{id}/score`: the lead, its new score and what the scoring cost. */
export const LeadScoreResultSchema = z
  .object({
    lead_id: z.uuid(),
    score: LeadScoreSchema,
    usage: UsageSchema,
  })
  .meta({ id: "LeadScoreResult" });
export type LeadScoreResult = z.infer<typeof LeadScoreResultSchema>;

/** Most entries of a status map. */
export const STATUS_MAP_MAX = 200;

/** The CRM status map: an external CRM's status → one of the six canonical statuses. */
export const StatusMapSchema = z
  .object({
    map: z.record(z.string(), z.enum(LEAD_STATUSES)),
    updated_at: Timestamp.nullable().meta({ description: "null while no map was ever set" }),
  })
  .meta({ id: "CrmStatusMap" });

/** Body of `PUT /crm/status-map`: replaces the whole map (at most 200 entries). */
export const PutStatusMapSchema = z
  .strictObject({
    map: z
      .record(z.string().min(1, "an external status must not be empty").max(100), LeadStatusSchema)
      .refine((m) => Object.keys(m).length <= STATUS_MAP_MAX, {
        message: `must have at most ${STATUS_MAP_MAX} entries`,
        params: { code: "out_of_range" },
      }),
  })
  .meta({ id: "PutCrmStatusMap" });

/** One row of the disclosure journal as `GET /disclosures` answers it. */
export const DisclosureSchema = z
  .object({
    id: z.uuid(),
    created_at: Timestamp,
    resource_type: z.string().meta({ description: "conversation, message or lead" }),
    resource_ids: z.array(z.string()),
    route: z
      .string()
      .meta({ description: "the route (`GET /leads/{id}`) or webhook delivery (`webhook lead.created`)" }),
    request_id: z.string().meta({ description: "request id of the answer, or the event id of the delivery" }),
    key_id: z.string().nullable().meta({ description: "public key id that received it; null for webhooks" }),
  })
  .meta({ id: "Disclosure" });
export type Disclosure = z.infer<typeof DisclosureSchema>;

/** Query of `GET /disclosures`: newest first; `from` inclusive, `to` exclusive. */
export const DisclosureListQuery = z.strictObject({
  limit: limitParam(25),
  cursor: cursorParam.optional(),
  resource_type: z
    .enum(["conversation", "message", "lead"], { message: "must be conversation, message or lead" })
    .optional(),
  from: instantParam.optional().meta({ description: "rows at or after this moment" }),
  to: instantParam.optional().meta({ description: "rows before this moment" }),
});
export type DisclosureListQuery = z.infer<typeof DisclosureListQuery>;
