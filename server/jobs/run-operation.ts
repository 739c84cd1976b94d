import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { operations } from "@/db/schema";
import { languageModelFor } from "@/server/services/ai-seller/current-model";
import type { LanguageModel, SellerOutput } from "@/server/services/ai-seller/language-model";
import {
  AI_UNAVAILABLE,
  aiReplyContext,
  completeAiReply,
  endAiReply,
  OPERATION_TIMEOUT,
} from "@/server/services/conversations/ai-reply";
import { claimOperation, OPERATION_LEASE_MS, type ClaimedRun } from "@/server/services/operations/operation-runs";
import { runGeneration } from "./run-generation";
import { runStrategistTurn } from "./run-strategist-turn";
import { runUnderLease } from "./leased-run";

/** What one step did: the operation's status after it, and whether nothing more will happen. */
export interface RunResult {
  status: "queued" | "running" | "succeeded" | "failed" | "canceled" | "gone";
  final: boolean;
}

/** Options of {@link runOperation}. */
export interface RunOptions {
  /** A claim the caller already holds (the local driver); without it the step claims the operation itself. */
  claim?: ClaimedRun;
  leaseMs?: number;
  /** The language model of live operations; default the process's (`AI_PROVIDER`). */
  model?: LanguageModel;
  /**
   * The offline model of test-mode operations; default the `catalog` model (languageModelFor). Never the
   * configured external one: tests pass a slowed catalog model here to load the test-mode lane.
   */
  offlineModel?: LanguageModel;
}

const FINAL = new Set(["succeeded", "failed", "canceled"]);

/**
 * One idempotent step of an operation (DESIGN "State and background work"; spec States "Asynchronous
 * operation"), run by the local driver and by the Inngest function `run-operation`:
 * - finished or missing → nothing; leased by another live run → nothing (that run finishes it);
 * - else claim it (`running`, a new lease and run number); an `article.generation` runs runGeneration
 *   (run-generation.ts), a `strategist.turn` runStrategistTurn (run-strategist-turn.ts); an AI reply:
 *   past its deadline → `failed` with `operation_timeout`, the hold released, handoff to an operator;
 *   conversation taken over or closed meanwhile → `canceled`, the hold released;
 *   the model answers (under the run's lease, renewed while it answers; given up at the deadline as a
 *   timeout) → `succeeded`: the reply message, its cost charged and the rest released (a live
 *   operation asks `opts.model`, the configured one; a test-mode one only ever the offline model, issue 76
 *   item 3, whatever `opts.model` is);
 *   the model fails → `failed` with `ai_unavailable`, the hold released, handoff (`ai_unavailable_handoff`);
 *   in the sandbox, a customer message `test:ai_unavailable` or `test:fail` ends it as a model failure or a
 *   timeout does, without asking the model (server/services/conversations/sandbox-magic.ts).
 * Every finish is guarded by the run number, so a run whose lease expired (a killed or stalled worker)
 * and was taken over writes nothing: the operation completes, and its hold is settled, once.
 */
export async function runOperation(db: Db, id: string, opts: RunOptions = {}): Promise<RunResult> {
  const claim = opts.claim ?? (await claimOperation(db, id, opts.leaseMs ?? OPERATION_LEASE_MS));
  if (!claim) {
    const [row] = await db.select({ status: operations.status }).from(operations).where(eq(operations.id, id));
    if (!row) return { status: "gone", final: true };
    return { status: row.status as RunResult["status"], final: FINAL.has(row.status) };
  }
  const { op, attempt } = claim;
  const done = (o: { status: string } | null): RunResult =>
    o ? { status: o.status as RunResult["status"], final: true } : { status: "running", final: false };
  // An article generation (issue 72) has its own run; everything below is the AI seller's reply.
  if (op.type === "article.generation")
    return done(
      await runGeneration(
        db,
        claim,
        { model: opts.model, offlineModel: opts.offlineModel },
        opts.leaseMs ?? OPERATION_LEASE_MS,
      ),
    );
  // A strategist turn (issue 73) likewise.
  if (op.type === "strategist.turn")
    return done(
      await runStrategistTurn(
        db,
        claim,
        { model: opts.model, offlineModel: opts.offlineModel },
        opts.leaseMs ?? OPERATION_LEASE_MS,
      ),
    );
  if (op.deadlineAt.getTime() <= Date.now()) return done(await endAiReply(db, id, attempt, OPERATION_TIMEOUT));
  const ctx = await aiReplyContext(db, op);
  if (ctx.kind === "cancel") return done(await endAiReply(db, id, attempt, { status: "canceled" }));
  // A sandbox's magic content (`test:ai_unavailable`, `test:fail`) ends the run as the real failure does.
  if (ctx.kind === "fail") return done(await endAiReply(db, id, attempt, ctx.end));
  // Live model only for a live operation on live data: a sandbox conversation is answered offline
  // whatever its operation's mode. The call runs under the run's lease (renewed while the model answers, so
  // a slow answer is never taken over by another worker or by this one) and is given up at the deadline.
  const live = op.livemode && ctx.livemode;
  const model = (live ? opts.model : opts.offlineModel) ?? languageModelFor(live);
  const outcome = await runUnderLease(db, claim, opts.leaseMs ?? OPERATION_LEASE_MS, "the AI seller", () =>
    model.reply(ctx.input),
  );
  if (outcome === "timeout") return done(await endAiReply(db, id, attempt, OPERATION_TIMEOUT));
  if (outcome === "unavailable") return done(await endAiReply(db, id, attempt, AI_UNAVAILABLE));
  const out: SellerOutput = outcome.value;
  return done(await completeAiReply(db, id, attempt, out));
}
