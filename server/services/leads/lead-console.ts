import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { disclosures, integrations, leadChanges } from "@/db/schema";
import type { Lead, LeadStatus } from "@/server/schemas/leads";
import type { StaffActor } from "../actor";
import { ownedBy } from "../tenant-scope";
import { leadScoreHistory } from "./lead-scoring";
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
 * disclosure-journal rows that carried it (newest 20). @throws ApiError 404.
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
