import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { conversations, leadChanges, leads, tenants } from "@/db/schema";
import { ApiError, invalidField, notFound } from "@/server/errors";
import { parseAmount } from "@/server/lib/money";
import type { CreateLead, UpdateLead } from "@/server/schemas/lead-writes";
import type { Lead, LeadStatus } from "@/server/schemas/leads";
import { actorLabel, type Actor } from "../actor";
import { recordEvent } from "../events/outbox";
import { livemodeOf, ownedBy, ownerOf } from "../tenant-scope";
import { changeLeadContact, findOrMakeContact } from "./lead-contact";
import { ifMatchAllows, parseIfMatch, preconditionFailed } from "./lead-etag";
import { getLead } from "./leads";

type LeadRow = typeof leads.$inferSelect;

/** The moment column a move into a status stamps (spec "Lead": `qualified_at`, `won_at`, `lost_at`). */
const STAMP: Partial<Record<LeadStatus, "qualifiedAt" | "wonAt" | "lostAt">> = {
  qualified: "qualifiedAt",
  won: "wonAt",
  lost: "lostAt",
};

/** The tenant's CRM mode (`internal` or `external`): leads carry it as `owner`. */
export async function crmModeOf(db: Db, tenantId: string): Promise<string> {
  const [t] = await db.select({ mode: tenants.crmMode }).from(tenants).where(eq(tenants.id, tenantId));
  return t?.mode ?? "internal";
}

const lostNeedsReason = () =>
  invalidField("/lost_reason", "required", "A lead moved to lost needs a lost_reason (why it was lost).");

/** Writes the timeline row of a lead's new version (lead_changes). */
export async function recordLeadChange(
  db: Db,
  actor: Actor,
  row: { leadId: string; version: number; kind: string; fields: string[]; from?: string | null; to?: string | null },
): Promise<void> {
  await db.insert(leadChanges).values({
    ...ownerOf(actor),
    leadId: row.leadId,
    version: row.version,
    kind: row.kind,
    fields: row.fields,
    fromStatus: row.from ?? null,
    toStatus: row.to ?? null,
    actor: actorLabel(actor),
  });
}

/**
 * `POST /leads` (issue 70 item 1): a lead of the actor's tenant and mode, version 1, `owner` the tenant's CRM
 * mode; its contact found by email or phone or made (lead-contact.ts); event `lead.created` (ids and version).
 * Call it in the request's transaction.
 * @throws ApiError 422 on `/conversation_id` for a conversation that is not the tenant's (in this mode), on
 *   `/lost_reason` for a lost lead without a reason.
 */
export async function createLead(db: Db, actor: Actor, input: CreateLead): Promise<Lead> {
  const status = input.status ?? "new";
  if (status === "lost" && !input.lost_reason?.trim()) throw lostNeedsReason();
  if (input.conversation_id) {
    const [c] = await db
      .select({ id: conversations.id })
      .from(conversations)
      .where(and(ownedBy(conversations, actor), eq(conversations.id, input.conversation_id)));
    if (!c)
      throw invalidField("/conversation_id", "not_found", "No conversation of this tenant (and key mode) has this id.");
  }
  const contactId = input.contact ? await findOrMakeContact(db, actor, input.contact) : null;
  const now = new Date();
  const stamp = STAMP[status];
  const [row] = await db
    .insert(leads)
    .values({
      ...ownerOf(actor),
      title: input.title,
      status,
      source: input.source?.trim() || null,
      valueMinor: input.value ? parseAmount(input.value.amount) : null,
      valueCurrency: input.value?.currency ?? null,
      contactId,
      attribution: input.attribution ?? null,
      conversationId: input.conversation_id ?? null,
      externalId: input.external_id?.trim() || null,
      lostReason: input.lost_reason?.trim() || null,
      owner: (await crmModeOf(db, actor.tenantId)) === "external" ? "external" : "internal",
      ...(stamp ? { [stamp]: now } : {}),
      createdAt: now,
      updatedAt: now,
    })
    .returning({ id: leads.id, version: leads.version });
  const fields = Object.keys(input).filter((k) => input[k as keyof CreateLead] !== undefined);
  await recordLeadChange(db, actor, {
    leadId: row!.id,
    version: row!.version,
    kind: "created",
    fields,
    to: status,
  });
  await recordEvent(db, {
    tenantId: actor.tenantId,
    type: "lead.created",
    livemode: livemodeOf(actor),
    data: {
      lead_id: row!.id,
      contact_id: contactId,
      conversation_id: input.conversation_id ?? null,
      version: row!.version,
    },
  });
  return getLead(db, actor, row!.id);
}

/** The lead row of the actor's tenant and mode. @throws ApiError 404 `not_found`. */
async function leadRow(db: Db, actor: Actor, id: string): Promise<LeadRow> {
  const [row] = await db
    .select()
    .from(leads)
    .where(and(ownedBy(leads, actor), eq(leads.id, id)));
  if (!row) throw notFound("Lead");
  return row;
}

/** Columns of the simple fields of a PATCH, by their API names. */
const SIMPLE = {
  archived: "archived",
  archived_reason: "archivedReason",
  title: "title",
  assigned_to: "assignedTo",
  next_action: "nextAction",
  lost_reason: "lostReason",
  intent: "intent",
} as const satisfies Partial<Record<keyof UpdateLead, keyof LeadRow>>;

/**
 * `PATCH /leads/{id}` (issue 70 item 2) under `If-Match` (RFC 9110 strong comparison with the lead's etag).
 * Only fields that differ from the lead change it; a change writes the new version with one conditional
 * UPDATE (`... where version = <the version If-Match named>`), so of concurrent writers with the same tag
 * exactly one wins and the others get 412. Status moves stamp `qualified_at`, `won_at`, `lost_at`; events
 * `lead.updated` (changed fields and version) and, for a move, `lead.status_changed` (from, to). A body that
 * changes nothing answers the lead as it is (same version). Call it in the request's transaction.
 * @throws ApiError 428 `precondition_required` (no If-Match), 400 `bad_request` (not an entity tag), 404,
 *   412 `precondition_failed` with the current `etag`, 409 `invalid_state` (status while the tenant's CRM is
 *   external), 422 on `/lost_reason` (lost without a reason).
 */
export async function updateLead(
  db: Db,
  actor: Actor,
  id: string,
  ifMatch: string | null,
  input: UpdateLead,
): Promise<Lead> {
  const tags = parseIfMatch(ifMatch);
  const cur = await leadRow(db, actor, id);
  if (!ifMatchAllows(tags, cur.etag)) throw preconditionFailed(cur.etag);
  const set: Partial<Record<keyof LeadRow, unknown>> = {};
  const changed: string[] = [];
  const put = (field: string, col: keyof LeadRow, v: unknown, same: boolean) => {
    if (same) return;
    set[col] = v;
    changed.push(field);
  };
  for (const [api, col] of Object.entries(SIMPLE) as [keyof typeof SIMPLE, keyof LeadRow][]) {
    const raw = input[api];
    if (raw === undefined) continue;
    const v = typeof raw === "string" ? raw.trim() || null : raw;
    put(api, col, v, cur[col] === v);
  }
  if (input.value !== undefined) {
    const minor = input.value ? parseAmount(input.value.amount) : null;
    const currency = input.value?.currency ?? null;
    if (minor !== cur.valueMinor || currency !== cur.valueCurrency) {
      set.valueMinor = minor;
      set.valueCurrency = currency;
      changed.push("value");
    }
  }
  if (input.next_action_at !== undefined) {
    const at = input.next_action_at === null ? null : new Date(input.next_action_at);
    put("next_action_at", "nextActionAt", at, at?.getTime() === cur.nextActionAt?.getTime());
  }
  const to = input.status;
  const moves = to !== undefined && to !== cur.status;
  if (moves) {
    if ((await crmModeOf(db, actor.tenantId)) === "external")
      throw new ApiError(
        "invalid_state",
        "The tenant's CRM mode is external: the external CRM owns the lead's status, so it cannot be changed here.",
      );
    const stamp = STAMP[to];
    set.status = to;
    if (stamp) set[stamp] = new Date();
    changed.push("status");
  }
  const finalStatus = moves ? to : cur.status;
  const finalReason = "lostReason" in set ? set.lostReason : cur.lostReason;
  if (finalStatus === "lost" && (moves || "lostReason" in set) && !finalReason) throw lostNeedsReason();
  if (input.contact) {
    // Written before the lead's conditional UPDATE: when that one loses, the transaction rolls this back.
    const c = await changeLeadContact(db, actor, cur.contactId, input.contact);
    if (c.changed) changed.push("contact");
    if (c.contactId !== cur.contactId) set.contactId = c.contactId;
  }
  if (!changed.length) return getLead(db, actor, id);
  // The precondition and the write in one statement: a writer that read the same version and committed
  // first has moved `version`, and this UPDATE then matches no row (DESIGN "Optimistic concurrency").
  const [row] = await db
    .update(leads)
    .set({ ...(set as Partial<typeof leads.$inferInsert>), version: sql`${leads.version} + 1`, updatedAt: new Date() })
    .where(and(ownedBy(leads, actor), eq(leads.id, id), eq(leads.version, cur.version)))
    .returning({ version: leads.version });
  if (!row) {
    const [now] = await db
      .select({ etag: leads.etag })
      .from(leads)
      .where(and(ownedBy(leads, actor), eq(leads.id, id)));
    if (!now) throw notFound("Lead");
    throw preconditionFailed(now.etag);
  }
  await recordLeadChange(db, actor, {
    leadId: id,
    version: row.version,
    kind: "updated",
    fields: changed,
    from: moves ? cur.status : null,
    to: moves ? to : null,
  });
  const event = { tenantId: actor.tenantId, livemode: livemodeOf(actor) };
  await recordEvent(db, {
    ...event,
    type: "lead.updated",
    data: { lead_id: id, version: row.version, changed_fields: changed },
  });
  if (moves)
    await recordEvent(db, {
      ...event,
      type: "lead.status_changed",
      data: { lead_id: id, version: row.version, from: cur.status, to },
    });
  return getLead(db, actor, id);
}
