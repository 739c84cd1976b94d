import type { Db } from "@/db/client";
import { languageModelFor } from "@/server/services/ai-seller/current-model";
import type { LanguageModel } from "@/server/services/ai-seller/language-model";
import {
  completeGeneration,
  failGeneration,
  GENERATION_TIMEOUT,
  generationBrief,
  jobOfOperation,
  markGenerationRunning,
  WRITER_UNAVAILABLE,
} from "@/server/services/article-generation/generation-run";
import { OPERATION_LEASE_MS, type ClaimedRun } from "@/server/services/operations/operation-runs";
import type { Operation } from "@/server/schemas/operations";
import { runUnderLease } from "./leased-run";

/**
 * The keyword that makes a sandbox generation fail as an unavailable writer does (docs/article-generation.md
 * "Test mode"), so an integrator can test the failure path (`article.generation.failed`, the hold released).
 * Ordinary text in live data.
 */
export const SANDBOX_WRITER_FAILURE = "test:ai_unavailable";

/**
 * One run of a claimed `article.generation` operation (issue 72; runOperation dispatches here):
 * past its deadline → `failed` with `operation_timeout`, the hold released; otherwise the brief is read, the
 * job made `running`, and the writer (`model.write`: a live generation on live data asks `model`, the
 * configured one; any other only the offline writer) writes the draft, recorded with its cost
 * (completeGeneration), while the run renews its lease every third of `leaseMs`; a writer that fails →
 * `failed` with `ai_unavailable`, one still writing at the deadline → `failed` with `operation_timeout`,
 * the hold released either way. Every
 * finish is guarded by the run number (finishOperation), so a generation whose worker was killed is
 * written once, by the run that took it over.
 * @returns the Operation when this run finished it, null when another run owns it.
 */
export async function runGeneration(
  db: Db,
  claim: ClaimedRun,
  models: { model?: LanguageModel; offlineModel?: LanguageModel },
  leaseMs: number = OPERATION_LEASE_MS,
): Promise<Operation | null> {
  const { op, attempt } = claim;
  if (op.deadlineAt.getTime() <= Date.now()) return failGeneration(db, op.id, attempt, GENERATION_TIMEOUT);
  const job = await jobOfOperation(db, op.id);
  if (!job)
    return failGeneration(db, op.id, attempt, {
      code: "not_found",
      message: "The operation has no generation job.",
    });
  const brief = await generationBrief(db, job);
  if (!("shopName" in brief)) return failGeneration(db, op.id, attempt, brief);
  await markGenerationRunning(db, job.id);
  if (!job.livemode && job.keyword === SANDBOX_WRITER_FAILURE)
    return failGeneration(db, op.id, attempt, WRITER_UNAVAILABLE);
  const live = op.livemode && job.livemode;
  const model = (live ? models.model : models.offlineModel) ?? languageModelFor(live);
  // A model may write for minutes: the lease is renewed while it writes, and the write is given up at the
  // deadline.
  const outcome = await runUnderLease(db, claim, leaseMs, "the article writer", () => model.write(brief));
  if (outcome === "timeout") return failGeneration(db, op.id, attempt, GENERATION_TIMEOUT);
  if (outcome === "unavailable") return failGeneration(db, op.id, attempt, WRITER_UNAVAILABLE);
  return completeGeneration(db, op.id, attempt, brief, outcome.value);
}
