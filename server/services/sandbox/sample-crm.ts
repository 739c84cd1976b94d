import type { Db } from "@/db/client";
import { crmStatusMaps, leadChanges, leadScores } from "@/db/schema";
import { SCORER_MODEL } from "../leads/lead-scorer";
import { momentOf, type SandboxContext } from "./sample-context";

/**
 * The sandbox's CRM samples (issue 70): a timeline row for each sample lead (its creation), three sample
 * scorings (free: sample history, no money moved) and a sample status map of an external CRM, so that
 * `GET /crm/status-map` and the console's lead timeline have something to show in test mode.
 */
export async function seedSandboxCrm(tx: Db, ctx: SandboxContext): Promise<void> {
  const leads = ctx.samples.leads;
  if (leads.length)
    await tx.insert(leadChanges).values(
      leads.map((l, i) => ({
        ...ctx.owner,
        leadId: l.id,
        version: 1,
        kind: "created",
        fields: ["title", "status", "contact"],
        toStatus: "new",
        actor: "system",
        createdAt: momentOf(ctx, 13 - (i % 13), 0.2),
      })),
    );
  const scored = leads.slice(0, 3);
  if (scored.length)
    await tx.insert(leadScores).values(
      scored.map((l, i) => ({
        ...ctx.owner,
        leadId: l.id,
        score: [82, 57, 31][i]!,
        grade: ["A", "B", "C"][i]!,
        reason: "Sample scoring: an engaged conversation, buying words in the conversation, a complete contact.",
        flags: { buy_intent: i < 2, support: false, supplier: false },
        features: { engagement: 20, buy_intent: i < 2 ? 25 : 0, completeness: 15 },
        source: "platform",
        model: SCORER_MODEL,
        costMinor: 0n,
        createdAt: momentOf(ctx, 1, 0.5),
      })),
    );
  await tx.insert(crmStatusMaps).values({
    ...ctx.owner,
    map: { "New request": "new", "In progress": "qualified", "Offer sent": "proposal", Paid: "won", Cancelled: "lost" },
    updatedAt: new Date(ctx.now),
  });
}
