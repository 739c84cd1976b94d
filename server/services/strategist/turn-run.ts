import { and, eq, inArray, isNotNull, lt, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { strategistActions, strategistReports, strategistTopics, strategistTurns, tenants } from "@/db/schema";
import type { AnalystInput, AnalystOutput } from "@/server/lib/strategist/analyst-io";
import { formatMinor } from "@/server/lib/money";
import type { Operation } from "@/server/schemas/operations";
import { costMinor } from "../ai-seller/prices";
import { recordEvent } from "../events/outbox";
import { chargeOf, finishOperation, type RunOutcome } from "../operations/operation-runs";
import { ownedBy, type Owner } from "../tenant-scope";
import { ACTION_WAIT_MS } from "./actions";
import { competitorMasker } from "./competitor-mask";
import { readStrategistFigures } from "./tenant-figures";

type TurnRow = typeof strategistTurns.$inferSelect;

/** How a turn ends without a reply: the operation's and the turn's `error`. */
export interface TurnFailure {
  code: string;
  message: string;
}

/** A turn past its deadline (the engine's operation timeout). */
export const TURN_TIMEOUT: TurnFailure = {
  code: "operation_timeout",
  message: "The strategist did not answer in time; the hold is released and nothing is charged.",
};

/** The model could not answer (after its retries). */
export const ANALYST_UNAVAILABLE: TurnFailure = {
  code: "ai_unavailable",
  message: "The strategist could not answer; the hold is released and nothing is charged. Send the turn again.",
};

/** Earlier turns the analyst is shown, at most (the newest ones). */
const HISTORY_TURNS = 10;
/** Proposals one turn may make, at most. */
const MAX_PROPOSALS = 3;

/** The turn of a `strategist.turn` operation, or undefined (a seeded or foreign row). */
export async function turnOfOperation(db: Db, operationId: string): Promise<TurnRow | undefined> {
  const [turn] = await db.select().from(strategistTurns).where(eq(strategistTurns.operationId, operationId));
  return turn;
}

/** Makes the turn `running` (a claimed run); nothing when it has finished. */
export async function markTurnRunning(db: Db, turnId: string): Promise<void> {
  await db
    .update(strategistTurns)
    .set({ status: "running" })
    .where(and(eq(strategistTurns.id, turnId), inArray(strategistTurns.status, ["queued", "running"])));
}

/**
 * What the analyst is asked for a turn (issue 73 item 3), read in the turn's tenant and mode only: the
 * shop's name, the tenant's figures (tenant-figures.ts), the session's earlier finished turns (the newest
 * {@link HISTORY_TURNS}, oldest first) and the question.
 */
export async function turnInput(db: Db, turn: TurnRow): Promise<AnalystInput> {
  const owner: Owner = { tenantId: turn.tenantId, livemode: turn.livemode };
  const [tenant] = await db.select({ name: tenants.name }).from(tenants).where(eq(tenants.id, turn.tenantId));
  const earlier = await db
    .select({ content: strategistTurns.content, reply: strategistTurns.reply })
    .from(strategistTurns)
    .where(
      and(
        eq(strategistTurns.sessionId, turn.sessionId),
        eq(strategistTurns.status, "succeeded"),
        lt(strategistTurns.createdAt, turn.createdAt),
      ),
    )
    .orderBy(sql`${strategistTurns.createdAt} desc`)
    .limit(HISTORY_TURNS);
  const turns = earlier
    .reverse()
    .flatMap((t) => [
      { role: "user" as const, content: t.content },
      ...(t.reply ? [{ role: "strategist" as const, content: t.reply }] : []),
    ]);
  return {
    shopName: tenant?.name ?? "",
    figures: await readStrategistFigures(db, owner),
    turns,
    question: turn.content,
  };
}

/**
 * The masker of the competitor names the tenant's strategist data knows (topics' domains, reports' names):
 * a reply or proposal never names one (spec "Strategist resources": competitor names are hidden), whatever
 * the model wrote.
 */
async function competitorMaskOf(db: Db, owner: Owner): Promise<(text: string) => string> {
  const domains = await db
    .selectDistinct({ d: strategistTopics.competitorDomain })
    .from(strategistTopics)
    .where(and(ownedBy(strategistTopics, owner), isNotNull(strategistTopics.competitorDomain)))
    .limit(200);
  const names = await db
    .select({ n: strategistReports.competitorNames })
    .from(strategistReports)
    .where(and(ownedBy(strategistReports, owner), isNotNull(strategistReports.competitorNames)))
    .orderBy(sql`${strategistReports.createdAt} desc`)
    .limit(60);
  return competitorMasker([...domains.map((r) => r.d), ...names.flatMap((r) => r.n ?? [])]);
}

/**
 * Records the analyst's answer for run `attempt` of operation `id` in the operation's finishing transaction
 * (finishOperation): the turn `succeeded` with its `reply` and `usage` (competitor names masked), one
 * `propose_topic` action per proposal (at most {@link MAX_PROPOSALS}, waiting 7 days, in the session),
 * event `strategist.turn.completed`; the operation `succeeded` with the tokens priced (prices.ts, charged at
 * most the hold) and `operation.completed`.
 * @returns the Operation, or null when this run no longer owns the operation.
 */
export async function completeTurn(db: Db, id: string, attempt: number, out: AnalystOutput): Promise<Operation | null> {
  return finishOperation(db, id, attempt, async (tx, op): Promise<RunOutcome> => {
    const turn = await turnOfOperation(tx, id);
    if (!turn) return { status: "failed", costMinor: 0n, error: { code: "not_found", message: "The turn is gone." } };
    const owner: Owner = { tenantId: turn.tenantId, livemode: turn.livemode };
    const mask = await competitorMaskOf(tx, owner);
    const now = new Date();
    const cost = costMinor(out.model, out);
    const usage = { cost: { amount: formatMinor(chargeOf(op, cost)), currency: "RUB" }, model: out.model };
    await tx
      .update(strategistTurns)
      .set({ status: "succeeded", reply: mask(out.reply), usage, completedAt: now, error: null })
      .where(eq(strategistTurns.id, turn.id));
    const proposals = out.proposals.filter((p) => p.title.trim()).slice(0, MAX_PROPOSALS);
    if (proposals.length)
      await tx.insert(strategistActions).values(
        proposals.map((p, i) => ({
          tenantId: turn.tenantId,
          livemode: turn.livemode,
          sessionId: turn.sessionId,
          turnId: turn.id,
          type: "propose_topic",
          title: mask(p.title.trim()).slice(0, 200),
          proposal: { rationale: mask(p.rationale), trend_score: p.trendScore, cluster_id: p.clusterId },
          // A millisecond apart, so the list order (newest first) keeps the analyst's order within a turn.
          createdAt: new Date(now.getTime() + i),
          expiresAt: new Date(now.getTime() + i + ACTION_WAIT_MS),
        })),
      );
    await turnCompletedEvent(tx, turn, id, "succeeded");
    return {
      status: "succeeded",
      costMinor: cost,
      model: out.model,
      resource: { type: "strategist_session", id: turn.sessionId },
    };
  });
}

/** Event `strategist.turn.completed` of a finished turn (thin: ids and the turn's status). */
async function turnCompletedEvent(tx: Db, turn: TurnRow, operationId: string, status: string): Promise<void> {
  await recordEvent(tx, {
    tenantId: turn.tenantId,
    type: "strategist.turn.completed",
    livemode: turn.livemode,
    data: {
      type: "strategist_session",
      session_id: turn.sessionId,
      turn_id: turn.id,
      operation_id: operationId,
      status,
    },
  });
}

/**
 * Ends run `attempt` of a turn without a reply, in the operation's finishing transaction: the turn `failed`
 * with `error`, event `strategist.turn.completed` (status failed); the operation `failed` with the same
 * error, its whole hold released, and `operation.completed`.
 * @returns the Operation, or null when this run no longer owns the operation.
 */
export async function failTurn(db: Db, id: string, attempt: number, failure: TurnFailure): Promise<Operation | null> {
  return finishOperation(db, id, attempt, async (tx): Promise<RunOutcome> => {
    const turn = await turnOfOperation(tx, id);
    if (turn) {
      await tx
        .update(strategistTurns)
        .set({ status: "failed", error: failure, completedAt: new Date() })
        .where(eq(strategistTurns.id, turn.id));
      await turnCompletedEvent(tx, turn, id, "failed");
    }
    return {
      status: "failed",
      costMinor: 0n,
      error: failure,
      ...(turn ? { resource: { type: "strategist_session", id: turn.sessionId } } : {}),
    };
  });
}
