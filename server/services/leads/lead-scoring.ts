import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { contacts, leads, leadScores, messages, operations } from "@/db/schema";
import { notFound } from "@/server/errors";
import { money } from "@/server/lib/money";
import type { LeadScoreResult } from "@/server/schemas/lead-writes";
import type { IntegrationActor, StaffActor } from "../actor";
import { recordEvent } from "../events/outbox";
import { createPaidOperation, settleHold, type PaidOperationActor } from "../operations/paid-operations";
import { livemodeOf, ownedBy, ownerOf } from "../tenant-scope";
import { scoreLead } from "./lead-scorer";
import { recordLeadChange } from "./lead-writes";

/**
 * Price of one scoring, RUB minor units: a fixed 2.00 RUB (issue 70; docs/leads.md "Price"). The offline
 * scorer costs the platform next to nothing, so the price is flat rather than per token; it is also the hold.
 */
export const LEAD_SCORE_PRICE_MINOR = 200n;

type ScoreRow = typeof leadScores.$inferSelect;

/** The names of the true flags, as LeadScore `flags` and the `lead.scored` event carry them. */
const flagNames = (f: ScoreRow["flags"]) => (Object.keys(f) as (keyof typeof f)[]).filter((k) => f[k]);

/** A lead_scores row as the answer of `POST /leads/{id}/score` (also what a replay rebuilds). */
function toResult(r: ScoreRow): LeadScoreResult {
  return {
    lead_id: r.leadId,
    score: {
      score: r.score,
      grade: r.grade,
      reason: r.reason,
      flags: flagNames(r.flags),
      source: r.source,
      model: r.model,
      scored_at: r.createdAt.toISOString(),
    },
    usage: { cost: money(r.costMinor), model: r.model },
  };
}

/**
 * `POST /leads/{id}/score` (issue 70 item 3): a paid, synchronous scoring by the offline scorer
 * (lead-scorer.ts), in the request's transaction: a paid operation `lead.score` holds the price under the
 * same rules as the AI seller's replies (per-operation maximum, simultaneous operations, daily spend limits,
 * available balance; a sandbox key pays from the sandbox wallet, a test key without the sandbox nothing),
 * the scorer runs, the hold is charged and the operation finished. The lead's `score` and `flags` take the
 * result and its version grows by one; a `lead_scores` row keeps it (the resource a replay answers from);
 * event `lead.scored` (score, level = grade, reason, flags).
 *
 * The console's Score button (issue 70 item 6) runs the same scoring for a staff actor: the operation is
 * the tenant's, started by the staff member (paid-operations.ts), in the console's mode; `consoleKey`
 * (the click's key) is kept on the row so that {@link findConsoleScore} answers a repeat.
 * @returns the answer and the `lead_scores` id (the idempotency record's resource)
 * @throws ApiError 404; 402 `insufficient_funds` / `spend_limit_reached`; 503 `upstream_unavailable`;
 *   a unique violation (23505) when a racing repeat of the same console click committed first.
 */
export async function scoreLeadPaid(
  db: Db,
  actor: PaidOperationActor,
  id: string,
  opts: { paidConcurrency: number; consoleKey?: string },
): Promise<{ result: LeadScoreResult; scoreId: string }> {
  const [lead] = await db
    .select()
    .from(leads)
    .where(and(ownedBy(leads, actor), eq(leads.id, id)));
  if (!lead) throw notFound("Lead");
  const op = await createPaidOperation(db, actor, {
    type: "lead.score",
    maxCostMinor: LEAD_SCORE_PRICE_MINOR,
    paidConcurrency: opts.paidConcurrency,
    conversationId: lead.conversationId,
    messageId: null,
    channelId: null,
  });
  const [contact] = lead.contactId
    ? await db
        .select()
        .from(contacts)
        .where(and(ownedBy(contacts, actor), eq(contacts.id, lead.contactId)))
    : [];
  const said = lead.conversationId
    ? await db
        .select({ content: messages.content, at: messages.createdAt })
        .from(messages)
        .where(
          and(
            ownedBy(messages, actor),
            eq(messages.conversationId, lead.conversationId),
            eq(messages.sender, "customer"),
          ),
        )
        .orderBy(desc(messages.createdAt))
        .limit(50)
    : [];
  const now = new Date();
  const r = scoreLead({
    title: lead.title,
    intent: lead.intent,
    source: lead.source,
    valueMinor: lead.valueMinor,
    contact: contact ?? null,
    customerMessages: said.map((m) => m.content ?? ""),
    lastActivityAt: said[0]?.at ?? lead.lastActivityAt ?? lead.updatedAt,
    now,
  });
  const charged = await settleHold(db, op, LEAD_SCORE_PRICE_MINOR);
  const [row] = await db
    .insert(leadScores)
    .values({
      ...ownerOf(actor),
      leadId: id,
      integrationId: op.integrationId,
      staffUserId: op.staffUserId,
      consoleKey: actor.via === "console" ? (opts.consoleKey ?? null) : null,
      operationId: op.id,
      score: r.score,
      grade: r.grade,
      reason: r.reason,
      flags: r.flags,
      features: r.features,
      source: "platform",
      model: r.model,
      costMinor: charged,
      createdAt: now,
    })
    .returning();
  await db
    .update(operations)
    .set({
      status: "succeeded",
      completedAt: now,
      resourceType: "lead_score",
      resourceId: row!.id,
      chargedMinor: charged,
      usage: { cost: money(charged), model: r.model },
    })
    .where(eq(operations.id, op.id));
  const result = toResult(row!);
  const [updated] = await db
    .update(leads)
    .set({
      score: { ...result.score },
      flags: r.flags,
      version: sql`${leads.version} + 1`,
      updatedAt: now,
    })
    .where(and(ownedBy(leads, actor), eq(leads.id, id)))
    .returning({ version: leads.version });
  await recordLeadChange(db, actor, {
    leadId: id,
    version: updated!.version,
    kind: "scored",
    fields: ["score", "flags"],
  });
  await recordEvent(db, {
    tenantId: actor.tenantId,
    type: "lead.scored",
    livemode: livemodeOf(actor),
    data: {
      lead_id: id,
      version: updated!.version,
      score: r.score,
      level: r.grade,
      reason: r.reason,
      flags: result.score.flags,
    },
  });
  return { result, scoreId: row!.id };
}

/** The answer of a completed scoring, rebuilt for an idempotent replay. @throws ApiError 404. */
export async function getLeadScore(db: Db, actor: IntegrationActor, scoreId: string): Promise<LeadScoreResult> {
  const [row] = await db
    .select()
    .from(leadScores)
    .where(and(ownedBy(leadScores, actor), eq(leadScores.id, scoreId)));
  if (!row) throw notFound("Lead score");
  return toResult(row);
}

/**
 * The scoring a staff member's console click with key `consoleKey` already made of lead `leadId`, as the
 * answer (a repeat of the click charges nothing); null when there is none.
 */
export async function findConsoleScore(
  db: Db,
  actor: StaffActor,
  leadId: string,
  consoleKey: string,
): Promise<LeadScoreResult | null> {
  const [row] = await db
    .select()
    .from(leadScores)
    .where(
      and(
        ownedBy(leadScores, actor),
        eq(leadScores.leadId, leadId),
        eq(leadScores.staffUserId, actor.staffUserId),
        eq(leadScores.consoleKey, consoleKey),
      ),
    );
  return row ? toResult(row) : null;
}

/** The newest scorings of a lead (console timeline), newest first. */
export async function leadScoreHistory(db: Db, actor: Parameters<typeof ownedBy>[1], leadId: string, limit = 20) {
  return db
    .select()
    .from(leadScores)
    .where(and(ownedBy(leadScores, actor), eq(leadScores.leadId, leadId)))
    .orderBy(desc(leadScores.createdAt))
    .limit(limit);
}
