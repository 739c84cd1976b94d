import { hash } from "node:crypto";
import { sql } from "drizzle-orm";
import { isoText } from "@/db/iso-text";
import { contacts, leads } from "@/db/schema";
import { money } from "@/server/lib/money";
import type { Lead } from "@/server/schemas/leads";
import type { z } from "zod";
import type { LeadContactSchema } from "@/server/schemas/leads";

type ContactRow = typeof contacts.$inferSelect;

/**
 * Strong entity tag of one version of a lead: `"<version>-<22 base64url chars of sha256(id:version)>"`.
 * It changes with every version, and the id in the hash keeps two leads at the same version apart.
 */
export function leadEtag(id: string, version: number): string {
  // crypto.hash, one call without a Hash object: a page tags 25 to 100 leads (issue 22).
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
 * The select list of a lead and its contact under the spec's field names: timestamps ISO Z text,
 * `value_minor` text (a bigint beyond 2^53 stays exact), `contact` a LeadContact or null (from the
 * `contact_row` of {@link LEAD_FROM}), the jsonb sub-objects as stored. Read it as one JSON text
 * per row with {@link LEAD_JSON}; {@link toLead} finishes the row.
 */
const LEAD_COLUMNS = sql`${leads.id} as id, ${leads.externalId} as external_id,
  ${leads.externalUrl} as external_url, ${leads.version} as version, ${leads.status} as status,
  ${leads.archived} as archived, ${leads.archivedReason} as archived_reason, ${leads.owner} as owner,
  ${leads.title} as title, ${leads.source} as source, ${leads.assignedTo} as assigned_to,
  ${leads.productId} as product_id, ${leads.courseSlug} as course_slug,
  ${leads.conversationId} as conversation_id, ${leads.intent} as intent, ${leads.aiSummary} as ai_summary,
  ${leads.nextAction} as next_action, ${leads.lostReason} as lost_reason,
  ${leads.valueMinor}::text as value_minor, ${leads.valueCurrency} as value_currency,
  case when ${contacts.id} is null then null else row_to_json(contact_row) end as contact,
  ${leads.attribution} as attribution, ${leads.score} as score, ${leads.flags} as flags,
  ${isoText(leads.nextActionAt)} as next_action_at, ${isoText(leads.qualifiedAt)} as qualified_at,
  ${isoText(leads.wonAt)} as won_at, ${isoText(leads.lostAt)} as lost_at,
  ${isoText(leads.lastActivityAt)} as last_activity_at, ${isoText(leads.createdAt)} as created_at,
  ${isoText(leads.updatedAt)} as updated_at`;

/**
 * One lead and its contact as one JSON text (the {@link LEAD_COLUMNS} row, its aliases the keys), selected
 * from {@link LEAD_FROM}: `select ${LEAD_JSON} as json from ${LEAD_FROM} where ...`.
 *
 * Why one JSON text: drizzle's per-column row mapping (`mapResultRow`, a `Date` per timestamp) was about a
 * tenth of the app's CPU on a `/leads` page (issue 22, README "Whose garbage"); a JSON text per row is one
 * native `JSON.parse`, where a plain row of 38 columns costs the driver a string per column (postgres.js
 * and, more so, PGlite: `--quick` embedded `/leads` 0.27 → 0.25 with plain rows). Why `row_to_json` of a
 * lateral row rather than `json_build_object`: PostgreSQL 15 looks up the type and output function of every
 * value of a `json_build_object` call again on every row, and copies and escapes every key; on a page of
 * 26 rich leads that made the statement 0.38 ms against 0.30 ms with `row_to_json` (pgbench, the same
 * columns; 0.20 ms as a plain row).
 */
export const LEAD_JSON = sql<string>`row_to_json(lead_row)::text`;

/**
 * The FROM list of a lead query read with {@link LEAD_JSON}: leads, their contact (left join, within the
 * tenant: a contact id can never pull another tenant's person), the contact's LeadContact row and the lead's
 * row of {@link LEAD_COLUMNS}; PostgreSQL flattens both lateral rows into the same scan (the plan is the
 * one without them).
 */
export const LEAD_FROM = sql`${leads} left join ${contacts}
  on ${contacts.id} = ${leads.contactId} and ${contacts.tenantId} = ${leads.tenantId}
  cross join lateral (select ${contacts.id} as id, ${contacts.firstName} as first_name,
    ${contacts.lastName} as last_name, ${contacts.email} as email, ${contacts.phone} as phone,
    ${contacts.tags} as tags, ${contacts.geoCountry} as geo_country, ${contacts.geoCity} as geo_city) contact_row
  cross join lateral (select ${LEAD_COLUMNS}) lead_row`;

/** What {@link LEAD_JSON} parses to: a Lead's fields, with `value` and the jsonb sub-objects still raw. */
export type LeadRecord = Omit<Lead, "etag" | "value" | "attribution" | "score" | "flags"> & {
  value_minor: string | null;
  value_currency: string | null;
  attribution: Record<string, unknown> | null;
  score: Record<string, unknown> | null;
  flags: Record<string, unknown> | null;
};

/**
 * {@link LEAD_JSON}'s text → the spec's Lead (fields in the spec's order): adds the etag, money from minor
 * units, and reads the jsonb sub-objects field by field.
 */
export function toLead(json: string): Lead {
  const r = JSON.parse(json) as LeadRecord;
  return {
    id: r.id,
    external_id: r.external_id,
    external_url: r.external_url,
    version: r.version,
    etag: leadEtag(r.id, r.version),
    status: r.status,
    archived: r.archived,
    archived_reason: r.archived_reason,
    owner: r.owner,
    title: r.title,
    source: r.source,
    assigned_to: r.assigned_to,
    product_id: r.product_id,
    course_slug: r.course_slug,
    conversation_id: r.conversation_id,
    intent: r.intent,
    ai_summary: r.ai_summary,
    next_action: r.next_action,
    lost_reason: r.lost_reason,
    value: r.value_minor !== null && r.value_currency ? money(BigInt(r.value_minor), r.value_currency) : null,
    contact: r.contact,
    attribution: attribution(r.attribution),
    score: score(r.score),
    flags: flags(r.flags),
    next_action_at: r.next_action_at,
    qualified_at: r.qualified_at,
    won_at: r.won_at,
    lost_at: r.lost_at,
    last_activity_at: r.last_activity_at,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
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
