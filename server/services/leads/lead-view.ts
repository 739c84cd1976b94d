import { createHash } from "node:crypto";
import type { contacts, leads } from "@/db/schema";
import { money } from "@/server/lib/money";
import type { Lead, LeadStatus } from "@/server/schemas/leads";
import type { z } from "zod";
import type { LeadContactSchema } from "@/server/schemas/leads";

type LeadRow = typeof leads.$inferSelect;
type ContactRow = typeof contacts.$inferSelect;

/**
 * Strong entity tag of one version of a lead: `"<version>-<22 base64url chars of sha256(id:version)>"`.
 * It changes with every version, and the id in the hash keeps two leads at the same version apart.
 */
export function leadEtag(id: string, version: number): string {
  return `"${version}-${createHash("sha256").update(`${id}:${version}`).digest("base64url").slice(0, 22)}"`;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);
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

/** Lead row (and its contact row, when any) → the spec's Lead; money from minor units, timestamps ISO Z. */
export function toLead(l: LeadRow, c: ContactRow | null): Lead {
  return {
    id: l.id,
    external_id: l.externalId,
    external_url: l.externalUrl,
    version: l.version,
    etag: leadEtag(l.id, l.version),
    status: l.status as LeadStatus,
    archived: l.archived,
    archived_reason: l.archivedReason,
    owner: l.owner,
    title: l.title,
    source: l.source,
    assigned_to: l.assignedTo,
    product_id: l.productId,
    course_slug: l.courseSlug,
    conversation_id: l.conversationId,
    intent: l.intent,
    ai_summary: l.aiSummary,
    next_action: l.nextAction,
    lost_reason: l.lostReason,
    value: l.valueMinor !== null && l.valueCurrency ? money(l.valueMinor, l.valueCurrency) : null,
    contact: c ? toLeadContact(c) : null,
    attribution: attribution(l.attribution),
    score: score(l.score),
    flags: flags(l.flags),
    next_action_at: iso(l.nextActionAt),
    qualified_at: iso(l.qualifiedAt),
    won_at: iso(l.wonAt),
    lost_at: iso(l.lostAt),
    last_activity_at: iso(l.lastActivityAt),
    created_at: l.createdAt.toISOString(),
    updated_at: l.updatedAt.toISOString(),
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
