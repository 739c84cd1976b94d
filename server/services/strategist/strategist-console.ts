import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { strategistTopics } from "@/db/schema";
import { money, type Money } from "@/server/lib/money";
import type { StrategistTopic } from "@/server/schemas/strategist";
import type { StrategistTurnResult } from "@/server/schemas/strategist-writes";
import type { StaffActor } from "../actor";
import { maxAnalystCostMinor } from "../ai-seller/prices";
import { tenantPaidConcurrency } from "../limits/limit-overrides";
import { answerClickOnce } from "../operations/console-click";
import { ownedBy, type Owner } from "../tenant-scope";
import { findSession, turnAnswer } from "./chat-sessions";
import { toTopic } from "./topics";
import { createTurn, findConsoleTurn, turnModel } from "./turns";

/** Most topics the console's Topics table shows at once. */
export const CONSOLE_TOPICS_LIMIT = 100;

/** Orders of the console's Topics table: the API's (best trend first, not scored last) or newest first. */
export const TOPIC_ORDERS = ["score", "newest"] as const;
export type TopicOrder = (typeof TOPIC_ORDERS)[number];

/**
 * The console's Topics table (issue 73 item 5): the topics of the owner's tenant and mode in any status, or
 * in `status`, best trend first (`score`, as `GET /strategist/topics`) or newest first (`newest`: a topic
 * just made by confirming an action shows on top); at most {@link CONSOLE_TOPICS_LIMIT}.
 */
export async function consoleTopics(
  db: Db,
  owner: Owner,
  q: { status?: string; order: TopicOrder },
): Promise<StrategistTopic[]> {
  const t = strategistTopics;
  const rows = await db
    .select()
    .from(t)
    .where(and(ownedBy(t, owner), q.status ? eq(t.status, q.status) : undefined))
    .orderBy(
      ...(q.order === "newest" ? [desc(t.createdAt), desc(t.id)] : [sql`${t.trendScore} desc nulls last`, desc(t.id)]),
    )
    .limit(CONSOLE_TOPICS_LIMIT);
  return rows.map(toTopic);
}

/**
 * The most a console turn can cost, shown before Send (issue 73 item 5): the hold of a turn with the model
 * the console's mode runs (turns.ts `turnModel`), as money in RUB. Only what the turn used is charged.
 */
export function turnQuote(actor: StaffActor): { max_cost: Money; model: string } {
  const model = turnModel(actor);
  return { max_cost: money(maxAnalystCostMinor(model)), model };
}

/**
 * The console's Send (issue 73 item 5): a paid turn (createTurn) of the staff member's session, paid from the
 * wallet of the console's mode under the tenant's paid concurrency. The click's `consoleKey` (a UUID the
 * page makes per click) makes a repeat answer the first turn and charge nothing (answerClickOnce).
 * @returns the turn and its operation (as `POST /strategist/chat/sessions/{id}/turns` answers)
 * @throws ApiError as createTurn (404 for a session not the staff member's; 409 `invalid_state` while
 *   another turn runs; 402; 503)
 */
export async function consoleSendTurn(
  db: Db,
  actor: StaffActor,
  sessionId: string,
  content: string,
  consoleKey: string,
): Promise<StrategistTurnResult> {
  // The session first: a key is looked up only in a session the staff member may read.
  await findSession(db, actor, sessionId);
  const paidConcurrency = await tenantPaidConcurrency(db, actor.tenantId);
  const find = async () => {
    const id = await findConsoleTurn(db, sessionId, consoleKey);
    return id ? (await turnAnswer(db, actor, id)).body : null;
  };
  return answerClickOnce(db, find, (tx) =>
    createTurn(tx, actor, sessionId, { content }, { paidConcurrency, consoleKey }),
  );
}
