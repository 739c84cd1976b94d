import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "@/db/client";
import { operations, strategistTurns } from "@/db/schema";
import { ApiError } from "@/server/errors";
import type { Operation } from "@/server/schemas/operations";
import type { CreateTurn, StrategistTurn } from "@/server/schemas/strategist-writes";
import { languageModelFor } from "../ai-seller/current-model";
import { maxAnalystCostMinor } from "../ai-seller/prices";
import { announceOperations } from "../events/work-notifier";
import { toOperation } from "../operations/operations";
import { createPaidOperation, operationLivemode } from "../operations/paid-operations";
import { ownerOf } from "../tenant-scope";
import { findSession, toTurns, type ChattingActor } from "./chat-sessions";

/** Seconds a caller refused for a running turn is told to wait (`Retry-After`): a turn takes a few seconds. */
export const TURN_RETRY_AFTER_S = 5;

/**
 * The model a turn of `actor` runs, as priced: the configured one (`AI_PROVIDER`) only for a live key or the
 * live console on live data; every test-mode turn runs the offline analyst (issue 76 item 3's rule).
 */
export function turnModel(actor: ChattingActor): string {
  return languageModelFor(operationLivemode(actor) && (actor.livemode ?? true)).analystModel;
}

const busy = (turnId: string) =>
  new ApiError(
    "invalid_state",
    `A turn of this session is still running (${turnId}); one turn at a time. Wait for it (GET /strategist/chat/sessions/{id}), then send the next.`,
    {},
    { "retry-after": String(TURN_RETRY_AFTER_S) },
  );

/** The unfinished turn of a session, if any. */
async function openTurn(db: Db, sessionId: string): Promise<string | null> {
  const [row] = await db
    .select({ id: strategistTurns.id })
    .from(strategistTurns)
    .where(and(eq(strategistTurns.sessionId, sessionId), inArray(strategistTurns.status, ["queued", "running"])));
  return row?.id ?? null;
}

/**
 * `POST /strategist/chat/sessions/{id}/turns` (issue 73 item 2) and the console's Send, in the caller's
 * transaction: the session is locked, so turns of one session are created one at a time, and refused while
 * one is unfinished; then the paid operation `strategist.turn` is created (its hold: the most a turn can
 * cost with the model, prices.ts `maxAnalystCostMinor`; the engine's limits and refusals), the turn
 * (`queued`, in the session's mode) and the operation's `resource` {strategist_session}. The operation is
 * announced to the engine after the commit. `consoleKey` (the console click's key) is kept on the turn, so a
 * repeat of the click finds it ({@link findConsoleTurn}).
 * @returns the turn and its operation envelope
 * @throws ApiError 404 `not_found` (session not the actor's); 409 `invalid_state` with `Retry-After` while a
 *   turn of the session runs; 402 `insufficient_funds` / `spend_limit_reached`; 503 `upstream_unavailable`.
 */
export async function createTurn(
  db: Db,
  actor: ChattingActor,
  sessionId: string,
  body: CreateTurn,
  opts: { paidConcurrency: number; consoleKey?: string },
): Promise<{ turn: StrategistTurn; operation: Operation }> {
  const session = await findSession(db, actor, sessionId, true);
  const running = await openTurn(db, session.id);
  if (running) throw busy(running);
  const op = await createPaidOperation(db, actor, {
    type: "strategist.turn",
    maxCostMinor: maxAnalystCostMinor(turnModel(actor)),
    paidConcurrency: opts.paidConcurrency,
    conversationId: null,
    messageId: null,
    channelId: null,
  });
  const [row] = await db
    .insert(strategistTurns)
    .values({
      ...ownerOf({ tenantId: session.tenantId, livemode: session.livemode }),
      sessionId: session.id,
      operationId: op.id,
      consoleKey: actor.via === "console" ? (opts.consoleKey ?? null) : null,
      content: body.content,
    })
    .returning();
  const [withResource] = await db
    .update(operations)
    .set({ resourceType: "strategist_session", resourceId: session.id })
    .where(eq(operations.id, op.id))
    .returning();
  announceOperations([op.id], op.livemode);
  const [turn] = await toTurns(db, [row!]);
  return { turn: turn!, operation: toOperation(withResource!) };
}

/** The turn a staff member's console click with key `consoleKey` already sent in the session, or null. */
export async function findConsoleTurn(db: Db, sessionId: string, consoleKey: string): Promise<string | null> {
  const [row] = await db
    .select({ id: strategistTurns.id })
    .from(strategistTurns)
    .where(and(eq(strategistTurns.sessionId, sessionId), eq(strategistTurns.consoleKey, consoleKey)));
  return row?.id ?? null;
}
