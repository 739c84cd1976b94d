import { sql } from "drizzle-orm";
import { contacts, leads } from "@/db/schema";
import type { z } from "zod";
import type { LeadContactSchema } from "@/server/schemas/leads";

type ContactRow = typeof contacts.$inferSelect;

/**
 * The select list of a lead read from {@link LEAD_FROM}: one JSON text per row (`json`), the spec's Lead
 * with its fields in the spec's order, spliced into the answer as it is:
 * `select ${LEAD_SELECT} from ${LEAD_FROM} where ...`.
 *
 * The lead's own fields were written as text when the lead was written (`api_head`, `api_middle`,
 * `api_tail`, by the trigger `lead_answer_text`, migration 0016): names and order of the spec, `value` as
 * money from minor units (spec "Money": `{amount: "12.34", currency}`, exact beyond 2^53; null without a
 * currency), `attribution`, `score` and `flags` as the trigger `lead_answer_fields` read them (migration
 * 0015), moments as ISO Z text. A read adds the two values the trigger cannot write: `etag` (the generated
 * column `"<version>-<22 base64url chars of sha256(id:version)>"`, computed after the trigger runs) and
 * `contact` (a LeadContact of the `contact_row`, or null: another table's row, which changes without the
 * lead).
 *
 * Why (issue 22): a `/leads` page that parsed each row's JSON into an object, shaped it and serialized the
 * page again spent about a sixth of the app's busy time there; PostgreSQL then built each lead's JSON on
 * every read, which was half of the page query's execution (0.58 → 0.29 ms for 26 leads, EXPLAIN ANALYZE)
 * on a machine where PostgreSQL and the app share the cores. Why `row_to_json` of a lateral row for the
 * contact rather than `json_build_object`: PostgreSQL 15 looks up the type and output function of every
 * value of a `json_build_object` call again on every row, and copies and escapes every key.
 */
export const LEAD_SELECT = sql`${leads.apiHead} || to_json(${leads.etag})::text || ${leads.apiMiddle}
  || case when ${contacts.id} is null then 'null' else row_to_json(contact_row)::text end
  || ${leads.apiTail} as json`;

/**
 * The FROM list of a lead query read with {@link LEAD_SELECT}: leads and their contact (left join, within the
 * tenant and the lead's mode: a contact id can never pull another tenant's person, nor a sandbox lead a live
 * one), with a lateral row of the contact's fields in the spec's order; PostgreSQL flattens the lateral row
 * into the same scan.
 */
export const LEAD_FROM = sql`${leads} left join ${contacts}
  on ${contacts.id} = ${leads.contactId} and ${contacts.tenantId} = ${leads.tenantId}
    and ${contacts.livemode} = ${leads.livemode}
  cross join lateral (select ${contacts.id} as id, ${contacts.firstName} as first_name,
    ${contacts.lastName} as last_name, ${contacts.email} as email, ${contacts.phone} as phone,
    ${contacts.tags} as tags, ${contacts.geoCountry} as geo_country, ${contacts.geoCity} as geo_city) contact_row`;

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
