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
 * One lead and its contact as JSON text, built by PostgreSQL with the spec's field names: the scalar fields
 * are final (timestamps ISO Z, `contact` a LeadContact or null); `value_minor` is text (a bigint beyond
 * 2^53 stays exact) and the jsonb sub-objects come as stored, for {@link toLead} to finish.
 *
 * Why not drizzle's typed rows: on a `/leads` page drizzle's per-column row mapping (`mapResultRow`, a
 * `Date` per timestamp) was about a tenth of the app's CPU and 29 % of its allocated bytes (issue 22,
 * README "Whose garbage"); one JSON text per row is one native `JSON.parse`. The query must join
 * `contacts` to `leads` (left join, within the tenant), as server/services/leads/leads.ts does.
 */
export const LEAD_JSON = sql<string>`json_build_object(
  'id', ${leads.id}, 'external_id', ${leads.externalId}, 'external_url', ${leads.externalUrl},
  'version', ${leads.version}, 'status', ${leads.status}, 'archived', ${leads.archived},
  'archived_reason', ${leads.archivedReason}, 'owner', ${leads.owner}, 'title', ${leads.title},
  'source', ${leads.source}, 'assigned_to', ${leads.assignedTo}, 'product_id', ${leads.productId},
  'course_slug', ${leads.courseSlug}, 'conversation_id', ${leads.conversationId}, 'intent', ${leads.intent},
  'ai_summary', ${leads.aiSummary}, 'next_action', ${leads.nextAction}, 'lost_reason', ${leads.lostReason},
  'value_minor', ${leads.valueMinor}::text, 'value_currency', ${leads.valueCurrency},
  'contact', case when ${contacts.id} is null then null else json_build_object(
    'id', ${contacts.id}, 'first_name', ${contacts.firstName}, 'last_name', ${contacts.lastName},
    'email', ${contacts.email}, 'phone', ${contacts.phone}, 'tags', ${contacts.tags},
    'geo_country', ${contacts.geoCountry}, 'geo_city', ${contacts.geoCity}) end,
  'attribution', ${leads.attribution}, 'score', ${leads.score}, 'flags', ${leads.flags},
  'next_action_at', ${isoText(leads.nextActionAt)}, 'qualified_at', ${isoText(leads.qualifiedAt)},
  'won_at', ${isoText(leads.wonAt)}, 'lost_at', ${isoText(leads.lostAt)},
  'last_activity_at', ${isoText(leads.lastActivityAt)}, 'created_at', ${isoText(leads.createdAt)},
  'updated_at', ${isoText(leads.updatedAt)})::text`;

/** What {@link LEAD_JSON} parses to: a Lead's fields, with `value` and the jsonb sub-objects still raw. */
export type LeadRecord = Omit<Lead, "etag" | "value" | "attribution" | "score" | "flags"> & {
  value_minor: string | null;
  value_currency: string | null;
  attribution: Record<string, unknown> | null;
  score: Record<string, unknown> | null;
  flags: Record<string, unknown> | null;
};

/**
 * {@link LEAD_JSON}'s text → the spec's Lead (fields in the spec's order): adds the etag, money from
 * minor units, and reads the jsonb sub-objects field by field.
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
