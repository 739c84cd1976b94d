import type { Db } from "@/db/client";
import { languageModelFor } from "@/server/services/ai-seller/current-model";
import type { LanguageModel } from "@/server/services/ai-seller/language-model";
import { OPERATION_LEASE_MS, type ClaimedRun } from "@/server/services/operations/operation-runs";
import {
  ANALYST_UNAVAILABLE,
  completeTurn,
  failTurn,
  markTurnRunning,
  TURN_TIMEOUT,
  turnInput,
  turnOfOperation,
} from "@/server/services/strategist/turn-run";
import type { Operation } from "@/server/schemas/operations";
import { runUnderLease } from "./leased-run";

/**
 * The message that makes a sandbox turn fail as an unavailable model does (docs/strategist.md "Test
 * mode"), so an integrator can test the failure path (the hold released, `error` on the turn). Ordinary
 * text in live data.
 */
export const SANDBOX_ANALYST_FAILURE = "test:ai_unavailable";

/**
 * One run of a claimed `strategist.turn` operation (issue 73; runOperation dispatches here): past its
 * deadline → `failed` with `operation_timeout`; otherwise the turn is made `running`, the analyst's input
 * read (turn-run.ts `turnInput`: the tenant's own figures only) and `model.analyze` asked (a live turn on
 * live data asks `model`, the configured one; any other only the offline analyst) under the run's lease
 * (leased-run.ts); its answer is recorded with its cost (completeTurn); a model that fails → `failed` with
 * `ai_unavailable`, one still working at the deadline → `operation_timeout`, the hold released either way.
 * Every finish is guarded by the run number (finishOperation), so a turn is answered once.
 * @returns the Operation when this run finished it, null when another run owns it.
 */
export async function runStrategistTurn(
  db: Db,
  claim: ClaimedRun,
  models: { model?: LanguageModel; offlineModel?: LanguageModel },
  leaseMs: number = OPERATION_LEASE_MS,
): Promise<Operation | null> {
  const { op, attempt } = claim;
  if (op.deadlineAt.getTime() <= Date.now()) return failTurn(db, op.id, attempt, TURN_TIMEOUT);
  const turn = await turnOfOperation(db, op.id);
  if (!turn)
    return failTurn(db, op.id, attempt, { code: "not_found", message: "The operation has no strategist turn." });
  await markTurnRunning(db, turn.id);
  if (!turn.livemode && turn.content.trim() === SANDBOX_ANALYST_FAILURE)
    return failTurn(db, op.id, attempt, ANALYST_UNAVAILABLE);
  const input = await turnInput(db, turn);
  const live = op.livemode && turn.livemode;
  const model = (live ? models.model : models.offlineModel) ?? languageModelFor(live);
  const outcome = await runUnderLease(db, claim, leaseMs, "the strategist", () => model.analyze(input));
  if (outcome === "timeout") return failTurn(db, op.id, attempt, TURN_TIMEOUT);
  if (outcome === "unavailable") return failTurn(db, op.id, attempt, ANALYST_UNAVAILABLE);
  return completeTurn(db, op.id, attempt, outcome.value);
}
