import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { disclosures, integrations, leadChanges } from "@/db/schema";
import { hasErrorCode } from "@/server/lib/error-codes";
import type { LeadScoreResult } from "@/server/schemas/lead-writes";
import type { Lead, LeadStatus } from "@/server/schemas/leads";
import type { StaffActor } from "../actor";
import { ownedBy } from "../tenant-scope";
import { tenantPaidConcurrency } from "../limits/limit-overrides";
import { formatMinor } from "@/server/lib/money";
import { findConsoleScore, LEAD_SCORE_PRICE_MINOR, leadScoreHistory, scoreLeadPaid } from "./lead-scoring";
import { getLead, listLeads, type LeadPosition } from "./leads";

/**
 * A page of the console's Leads list (issue 70 item 6): the leads of the console's tenant and mode in the
 * API's order and shape (`GET /leads`), with its status and archive filters.
 */
export async function consoleLeadPage(
  db: Db,
  actor: StaffActor,
  q: { status?: LeadStatus; archived: boolean; after?: LeadPosition; limit: number },
): Promise<{ leads: Lead[]; next: LeadPosition | null }> {
  const p = await listLeads(db, actor, q);
  return { leads: p.texts.map((t) => JSON.parse(t) as Lead), next: p.next };
}

/**
 * A lead's page in the console: the lead, its timeline of versions (newest first), its scorings and the
 * disclosure-journal rows that carried it (newest 20), and the price of one scoring (decimal RUB) for the
 * Score button. @throws ApiError 404.
 */
export async function consoleLeadDetail(db: Db, actor: StaffActor, id: string) {
  const lead = await getLead(db, actor, id);
  const timeline = await db
    .select()
    .from(leadChanges)
    .where(and(ownedBy(leadChanges, actor), eq(leadChanges.leadId, id)))
    .orderBy(desc(leadChanges.version), desc(leadChanges.createdAt))
    .limit(50);
  const scores = await leadScoreHistory(db, actor, id);
  const disclosed = await db
    .select({
      id: disclosures.id,
      createdAt: disclosures.createdAt,
      route: disclosures.route,
      integrationName: integrations.name,
      requestId: disclosures.requestId,
    })
    .from(disclosures)
    .innerJoin(integrations, eq(integrations.id, disclosures.integrationId))
    .where(
      and(
        ownedBy(disclosures, actor),
        eq(disclosures.resourceType, "lead"),
        sql`${disclosures.resourceIds} @> array[${id}]::text[]`,
      ),
    )
    .orderBy(desc(disclosures.createdAt))
    .limit(20);
  return {
    lead,
    scorePrice: formatMinor(LEAD_SCORE_PRICE_MINOR),
    timeline: timeline.map((c) => ({
      version: c.version,
      kind: c.kind,
      fields: c.fields,
      from: c.fromStatus,
      to: c.toStatus,
      actor: c.actor,
      at: c.createdAt.toISOString(),
    })),
    scores: scores.map((s) => ({
      id: s.id,
      score: s.score,
      grade: s.grade,
      reason: s.reason,
      model: s.model,
      at: s.createdAt.toISOString(),
    })),
    disclosures: disclosed.map((d) => ({ ...d, createdAt: d.createdAt.toISOString() })),
  };
}

/**
 * The console's Score button (issue 70 item 6): one paid scoring of lead `id` by the staff member, in the
 * console's mode (the sandbox wallet pays in Test mode), under the tenant's rules (scoreLeadPaid). The
 * click's `consoleKey` (a UUID the page makes per click) makes a repeat answer the first scoring and charge
 * nothing: a sequential repeat finds the row; a racing one loses on the unique index, its transaction (hold
 * and charge included) rolls back, and it answers the winner's row.
 * @throws ApiError 404; 402 `insufficient_funds` / `spend_limit_reached`; 503 `upstream_unavailable`.
 */
export async function consoleScoreLead(
  db: Db,
  actor: StaffActor,
  id: string,
  consoleKey: string,
): Promise<LeadScoreResult> {
  const again = await findConsoleScore(db, actor, id, consoleKey);
  if (again) return again;
  const paid_concurrency = await tenantPaidConcurrency(db, actor.tenantId);
  try {
    const done = await db.transaction((tx) =>
      scoreLeadPaid(tx as unknown as Db, actor, id, { paidConcurrency: paid_concurrency, consoleKey }),
    );
    return done.result;
  } catch (err) {
    const won = hasErrorCode(err, "23505") ? await findConsoleScore(db, actor, id, consoleKey) : null;
    if (won) return won;
    throw err;
  }
}
