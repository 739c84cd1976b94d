import { and, asc, desc, eq, inArray, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { operations, strategistActions, strategistSessions, strategistTurns } from "@/db/schema";
import { notFound } from "@/server/errors";
import { nowMs } from "@/server/lib/clock";
import type { Operation } from "@/server/schemas/operations";
import type { StrategistSession, StrategistTurn } from "@/server/schemas/strategist-writes";
import type { IntegrationActor, StaffActor } from "../actor";
import { toOperation } from "../operations/operations";
import { ownedBy, ownerOf } from "../tenant-scope";
import { toAction } from "./actions";

type SessionRow = typeof strategistSessions.$inferSelect;
type TurnRow = typeof strategistTurns.$inferSelect;

/** Who chats: an integration (its own sessions) or a staff member in the console (their own sessions). */
export type ChattingActor = IntegrationActor | StaffActor;

/**
 * The condition "session visible to `actor`": of the actor's tenant and mode, opened by that integration
 * (an API key sees no staff session and no other integration's, as `GET /strategist/actions`), or by that
 * staff member.
 */
export function sessionVisibleTo(actor: ChattingActor): SQL {
  return and(
    ownedBy(strategistSessions, actor),
    actor.via === "api"
      ? eq(strategistSessions.integrationId, actor.integrationId)
      : eq(strategistSessions.staffUserId, actor.staffUserId),
  )!;
}

/**
 * `POST /strategist/chat/sessions` (issue 73 item 2): a new, empty session of the actor, free.
 * @returns the session (no turns)
 */
export async function createSession(db: Db, actor: ChattingActor): Promise<StrategistSession> {
  const [row] = await db
    .insert(strategistSessions)
    .values({
      ...ownerOf(actor),
      integrationId: actor.via === "api" ? actor.integrationId : null,
      staffUserId: actor.via === "console" ? actor.staffUserId : null,
    })
    .returning();
  return { id: row!.id, created_at: row!.createdAt.toISOString(), turns: [] };
}

/**
 * The session `id` as `actor` sees it, optionally locked (`forUpdate`: a new turn serializes on it).
 * @throws ApiError 404 `not_found` for a missing, foreign, other-mode or other actor's session.
 */
export async function findSession(db: Db, actor: ChattingActor, id: string, forUpdate = false): Promise<SessionRow> {
  const q = db
    .select()
    .from(strategistSessions)
    .where(and(sessionVisibleTo(actor), eq(strategistSessions.id, id)));
  const [row] = forUpdate ? await q.for("update") : await q;
  if (!row) throw notFound("Strategist chat session");
  return row;
}

/** Rows of turns → StrategistTurn, each with the actions it proposed (oldest first). */
export async function toTurns(db: Db, rows: TurnRow[]): Promise<StrategistTurn[]> {
  if (!rows.length) return [];
  const acts = await db
    .select()
    .from(strategistActions)
    .where(
      inArray(
        strategistActions.turnId,
        rows.map((r) => r.id),
      ),
    )
    .orderBy(asc(strategistActions.createdAt), asc(strategistActions.id));
  const at = nowMs();
  return rows.map((r) => ({
    id: r.id,
    session_id: r.sessionId,
    status: r.status as StrategistTurn["status"],
    content: r.content,
    reply: r.reply,
    actions: acts.filter((a) => a.turnId === r.id).map((a) => toAction(a, at)),
    usage: r.usage ?? null,
    error: r.error ?? null,
    operation_id: r.operationId,
    created_at: r.createdAt.toISOString(),
    completed_at: r.completedAt?.toISOString() ?? null,
  }));
}

/**
 * `GET /strategist/chat/sessions/{id}` (issue 73 item 2): the session with its turns, oldest first.
 * @throws ApiError 404 `not_found` as {@link findSession}.
 */
export async function getSession(db: Db, actor: ChattingActor, id: string): Promise<StrategistSession> {
  const s = await findSession(db, actor, id);
  const rows = await db
    .select()
    .from(strategistTurns)
    .where(eq(strategistTurns.sessionId, s.id))
    .orderBy(asc(strategistTurns.createdAt), asc(strategistTurns.id));
  return { id: s.id, created_at: s.createdAt.toISOString(), turns: await toTurns(db, rows) };
}

/**
 * The console's session list: the staff member's sessions in the console's mode, newest first (at most
 * `limit`), without their turns.
 */
export async function listStaffSessions(
  db: Db,
  actor: StaffActor,
  limit = 20,
): Promise<{ id: string; created_at: string }[]> {
  const rows = await db
    .select({ id: strategistSessions.id, createdAt: strategistSessions.createdAt })
    .from(strategistSessions)
    .where(sessionVisibleTo(actor))
    .orderBy(desc(strategistSessions.createdAt), desc(strategistSessions.id))
    .limit(limit);
  return rows.map((r) => ({ id: r.id, created_at: r.createdAt.toISOString() }));
}

/**
 * A turn and its operation as the turn route answers them: 200 once the operation finished, else 202.
 * @throws ApiError 404 `not_found` when the turn is not the actor's.
 */
export async function turnAnswer(
  db: Db,
  actor: ChattingActor,
  turnId: string,
): Promise<{ status: 200 | 202; body: { turn: StrategistTurn; operation: Operation } }> {
  const [row] = await db
    .select({ turn: strategistTurns, op: operations })
    .from(strategistTurns)
    .innerJoin(strategistSessions, eq(strategistSessions.id, strategistTurns.sessionId))
    .innerJoin(operations, eq(operations.id, strategistTurns.operationId))
    .where(and(sessionVisibleTo(actor), eq(strategistTurns.id, turnId)));
  if (!row) throw notFound("Strategist turn");
  const [turn] = await toTurns(db, [row.turn]);
  const operation = toOperation(row.op);
  const running = operation.status === "queued" || operation.status === "running";
  return { status: running ? 202 : 200, body: { turn: turn!, operation } };
}
