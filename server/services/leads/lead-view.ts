import { hash } from "node:crypto";
import { sql } from "drizzle-orm";
import { isoText } from "@/db/iso-text";
import { contacts, leads } from "@/db/schema";
import type { Lead } from "@/server/schemas/leads";
import type { z } from "zod";
import type { LeadContactSchema } from "@/server/schemas/leads";

type ContactRow = typeof contacts.$inferSelect;

/**
 * Strong entity tag of one version of a lead: `"<version>-<22 base64url chars of sha256(id:version)>"`.
 * It changes with every version, and the id in the hash keeps two leads at the same version apart.
 * Computed here rather than in SQL: PostgreSQL's `sha256` of the same text cost 3.5 µs a row (pgbench, a
 * page of 26 leads 0.47 → 0.56 ms), `crypto.hash` well under one.
 */
export function leadEtag(id: string, version: number | string): string {
  return `"${version}-${hash("sha256", `${id}:${version}`, "base64url").slice(0, 22)}"`;
}

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const bool = (v: unknown): boolean | null => (typeof v === "boolean" ? v : null);

/** A moment stored as text in jsonb → ISO Z, or null when it is not a readable moment. */
function moment(v: unknown): string | null {
  if (typeof v !== "string") return null;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

// The jsonb sub-objects are written by several producers (scorer, CRM sync, seed): each field is read
// by its expected type and anything else answers null, so the answer always matches the documented shape.
function attribution(a: Record<string, unknown> | null): Lead["attribution"] {
  if (!a) return null;
  return {
    utm_source: str(a.utm_source),
    utm_medium: str(a.utm_medium),
    utm_campaign: str(a.utm_campaign),
    first_page: str(a.first_page),
    referrer: str(a.referrer),
  };
}

function score(s: Record<string, unknown> | null): Lead["score"] {
  if (!s) return null;
  return {
    score: typeof s.score === "number" && Number.isFinite(s.score) ? s.score : null,
    grade: str(s.grade),
    reason: str(s.reason),
    flags: Array.isArray(s.flags) ? s.flags.filter((f): f is string => typeof f === "string") : null,
    source: str(s.source),
    model: str(s.model),
    scored_at: moment(s.scored_at),
  };
}

function flags(f: Record<string, unknown> | null): Lead["flags"] {
  if (!f) return null;
  return { buy_intent: bool(f.buy_intent), support: bool(f.support), supplier: bool(f.supplier) };
}

/**
 * A lead's fields in the spec's order but `etag`, under the spec's names, as PostgreSQL writes them (the
 * `lead_row` of {@link LEAD_FROM}):
 * - `value`, money from minor units (spec "Money": `{amount: "12.34", currency}`, exact beyond 2^53), null
 *   without a currency;
 * - `contact`, a LeadContact (`contact_row`) or null;
 * - `attribution`, `score` and `flags` as stored ({@link leadText} reads them field by field);
 * - moments as ISO Z text.
 */
const LEAD_COLUMNS = sql`${leads.id} as id, ${leads.externalId} as external_id,
  ${leads.externalUrl} as external_url, ${leads.version} as version, ${leads.status} as status,
  ${leads.archived} as archived, ${leads.archivedReason} as archived_reason,
  ${leads.owner} as owner, ${leads.title} as title, ${leads.source} as source, ${leads.assignedTo} as assigned_to,
  ${leads.productId} as product_id, ${leads.courseSlug} as course_slug,
  ${leads.conversationId} as conversation_id, ${leads.intent} as intent, ${leads.aiSummary} as ai_summary,
  ${leads.nextAction} as next_action, ${leads.lostReason} as lost_reason,
  case when ${leads.valueMinor} is not null and ${leads.valueCurrency} <> '' then row_to_json(value_row) end as value,
  case when ${contacts.id} is null then null else row_to_json(contact_row) end as contact,
  ${leads.attribution} as attribution, ${leads.score} as score, ${leads.flags} as flags,
  ${isoText(leads.nextActionAt)} as next_action_at, ${isoText(leads.qualifiedAt)} as qualified_at,
  ${isoText(leads.wonAt)} as won_at, ${isoText(leads.lostAt)} as lost_at,
  ${isoText(leads.lastActivityAt)} as last_activity_at, ${isoText(leads.createdAt)} as created_at,
  ${isoText(leads.updatedAt)} as updated_at`;

/**
 * The select list of a lead read from {@link LEAD_FROM}: one JSON text per row (`json`), the lead's fields
 * in the spec's order but `etag`, with the three jsonb sub-objects as stored; {@link leadText} makes it the
 * Lead's JSON text: `select ${LEAD_SELECT} from ${LEAD_FROM} where ...`.
 *
 * Why PostgreSQL writes the JSON (issue 22): a `/leads` page that parsed each row's JSON into an object,
 * shaped it and serialized the page again spent about a sixth of the app's busy time there, plus the garbage
 * (JSON.parse, toLead, JSON.stringify; `--profile` on 100,000 leads). Splicing PostgreSQL's texts raised the
 * page from 0.345 to 0.393 of `GET /api/health` (four alternating runs of each build on one database). Only
 * the etag and the three sub-objects are made in JavaScript: the sub-objects' producers (scorer, CRM sync,
 * seed) may store any JSON, and PostgreSQL's `sha256` of the etag's text cost 3.5 µs a row. One text per
 * row, of one lateral row: three texts of three lateral rows made PGlite's page 1.26 → 1.6 ms. Why
 * `row_to_json` of a lateral row rather than `json_build_object`: PostgreSQL 15 looks up the type and
 * output function of every value of a `json_build_object` call again on every row, and copies and escapes
 * every key (a page of 26 rich leads: 0.38 ms against 0.30 ms in pgbench).
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

/** The sub-objects of a lead that has none, as PostgreSQL writes them (row_to_json writes no spaces). */
const NO_SUB_OBJECTS = `,"attribution":null,"score":null,"flags":null`;

/** A {@link LEAD_SELECT} text's id: it starts `{"id":"<36 characters of uuid>",`. */
export const leadIdOf = (json: string): string => json.slice(7, 43);

/** A {@link LEAD_SELECT} text's `updated_at`: it ends `"updated_at":"<24 characters of ISO Z>"}`. */
export const leadUpdatedAtOf = (json: string): string => json.slice(-26, -2);

/**
 * A {@link LEAD_SELECT} text → the JSON text of the spec's Lead, fields in the spec's order: the etag goes
 * in after `version`, and `attribution`, `score` and `flags` are read field by field by their documented
 * types.
 */
export function leadText(json: string): string {
  // The first `,"status":` is the field's own: inside a JSON string every `"` is escaped, and the objects
  // before it (none) cannot hold it. Just before it stands `"version":<digits>`.
  const status = json.indexOf(',"status":');
  const version = json.slice(json.lastIndexOf(":", status) + 1, status);
  const etag = JSON.stringify(leadEtag(leadIdOf(json), version));
  // The sub-objects run from the first `,"attribution":` (value and contact before it are ours, without such
  // a key) to the last `,"next_action_at":` (only moments follow it; a stored sub-object may hold any key).
  const from = json.indexOf(',"attribution":', status);
  const to = json.lastIndexOf(',"next_action_at":');
  let subs = json.slice(from, to);
  if (subs !== NO_SUB_OBJECTS) {
    const s = JSON.parse(`{${subs.slice(1)}}`) as Record<
      "attribution" | "score" | "flags",
      Record<string, unknown> | null
    >;
    subs = `,"attribution":${JSON.stringify(attribution(s.attribution))},"score":${JSON.stringify(
      score(s.score),
    )},"flags":${JSON.stringify(flags(s.flags))}`;
  }
  return `${json.slice(0, status)},"etag":${etag}${json.slice(status, from)}${subs}${json.slice(to)}`;
}

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
