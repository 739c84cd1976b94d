import { sql } from "drizzle-orm";
import { isoText } from "@/db/iso-text";
import { contacts, leads } from "@/db/schema";
import type { z } from "zod";
import type { LeadContactSchema } from "@/server/schemas/leads";

type ContactRow = typeof contacts.$inferSelect;

/**
 * A lead's fields in the spec's order, under the spec's names, as PostgreSQL writes them (the `lead_row`
 * of {@link LEAD_FROM}):
 * - `etag`, the generated column (`"<version>-<22 base64url chars of sha256(id:version)>"`);
 * - `value`, money from minor units (spec "Money": `{amount: "12.34", currency}`, exact beyond 2^53), null
 *   without a currency;
 * - `contact`, a LeadContact (`contact_row`) or null;
 * - `attribution`, `score` and `flags` as the trigger `lead_answer_fields` wrote them when the lead was
 *   written (migration 0015): read field by field by their documented types, keys in the spec's order;
 * - moments as ISO Z text.
 */
const LEAD_COLUMNS = sql`${leads.id} as id, ${leads.externalId} as external_id,
  ${leads.externalUrl} as external_url, ${leads.version} as version, ${leads.etag} as etag, ${leads.status} as status,
  ${leads.archived} as archived, ${leads.archivedReason} as archived_reason,
  ${leads.owner} as owner, ${leads.title} as title, ${leads.source} as source, ${leads.assignedTo} as assigned_to,
  ${leads.productId} as product_id, ${leads.courseSlug} as course_slug,
  ${leads.conversationId} as conversation_id, ${leads.intent} as intent, ${leads.aiSummary} as ai_summary,
  ${leads.nextAction} as next_action, ${leads.lostReason} as lost_reason,
  case when ${leads.valueMinor} is not null and ${leads.valueCurrency} <> '' then row_to_json(value_row) end as value,
  case when ${contacts.id} is null then null else row_to_json(contact_row) end as contact,
  ${leads.attributionApi} as attribution, ${leads.scoreApi} as score, ${leads.flagsApi} as flags,
  ${isoText(leads.nextActionAt)} as next_action_at, ${isoText(leads.qualifiedAt)} as qualified_at,
  ${isoText(leads.wonAt)} as won_at, ${isoText(leads.lostAt)} as lost_at,
  ${isoText(leads.lastActivityAt)} as last_activity_at, ${isoText(leads.createdAt)} as created_at,
  ${isoText(leads.updatedAt)} as updated_at`;

/**
 * The select list of a lead read from {@link LEAD_FROM}: one JSON text per row (`json`), the spec's Lead
 * with its fields in the spec's order, spliced into the answer as it is:
 * `select ${LEAD_SELECT} from ${LEAD_FROM} where ...`.
 *
 * Why PostgreSQL writes the JSON (issue 22): a `/leads` page that parsed each row's JSON into an object,
 * shaped it and serialized the page again spent about a sixth of the app's busy time there, plus the garbage
 * (JSON.parse, toLead, JSON.stringify; `--profile` on 100,000 leads). Splicing PostgreSQL's texts raised the
 * page from 0.345 to 0.393 of `GET /api/health` (four alternating runs of each build on one database). The
 * etag and the three sub-objects, which the app still made on every read after that (6-8 µs a lead, a tenth
 * of the page's app time), are made when a lead is written (migration 0015). One text per row, of one
 * lateral row: three texts of three lateral rows made PGlite's page 1.26 → 1.6 ms. Why `row_to_json` of a
 * lateral row rather than `json_build_object`: PostgreSQL 15 looks up the type and output function of
 * every value of a `json_build_object` call again on every row, and copies and escapes every key (a page
 * of 26 rich leads: 0.38 ms against 0.30 ms in pgbench).
 */
export const LEAD_SELECT = sql`row_to_json(lead_row)::text as json`;

/**
 * The FROM list of a lead query read with {@link LEAD_SELECT}: leads, their contact (left join, within the
 * tenant: a contact id can never pull another tenant's person), and lateral rows for the contact, the value
 * and the lead; PostgreSQL flattens the lateral rows into the same scan (the plan is the one without them).
 */
export const LEAD_FROM = sql`${leads} left join ${contacts}
  on ${contacts.id} = ${leads.contactId} and ${contacts.tenantId} = ${leads.tenantId}
  cross join lateral (select ${contacts.id} as id, ${contacts.firstName} as first_name,
    ${contacts.lastName} as last_name, ${contacts.email} as email, ${contacts.phone} as phone,
    ${contacts.tags} as tags, ${contacts.geoCountry} as geo_country, ${contacts.geoCity} as geo_city) contact_row
  cross join lateral (select (${leads.valueMinor}::numeric * 0.01)::text as amount,
    ${leads.valueCurrency} as currency) value_row
  cross join lateral (select ${LEAD_COLUMNS}) lead_row`;

/** A row of {@link LEAD_SELECT}. */
export interface LeadTextRow {
  json: string;
}

/** A {@link LEAD_SELECT} text's id: it starts `{"id":"<36 characters of uuid>",`. */
export const leadIdOf = (json: string): string => json.slice(7, 43);

/** A {@link LEAD_SELECT} text's `updated_at`: it ends `"updated_at":"<24 characters of ISO Z>"}`. */
export const leadUpdatedAtOf = (json: string): string => json.slice(-26, -2);

/** A contacts row as LeadContact (spec "Lead": `contact`), also the personal data `include_pii` adds to webhook events. */
export function toLeadContact(c: ContactRow): z.infer<typeof LeadContactSchema> {
  return {
    id: c.id,
    first_name: c.firstName,
    last_name: c.lastName,
    email: c.email,
    phone: c.phone,
    tags: c.tags,
    geo_country: c.geoCountry,
    geo_city: c.geoCity,
  };
}
