import { and, desc, eq, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { strategistActions, strategistSessions } from "@/db/schema";
import { notFound } from "@/server/errors";
import { nowMs } from "@/server/lib/clock";
import type { StrategistAction } from "@/server/schemas/strategist";
import type { IntegrationActor, StaffActor } from "../actor";
import { ownedBy } from "../tenant-scope";

type ActionRow = typeof strategistActions.$inferSelect;

/** How long a proposed action waits for a decision (spec "Limits": strategist action waiting, 7 days), ms. */
export const ACTION_WAIT_MS = 7 * 24 * 60 * 60 * 1000;

/** Keyset position of an action in the list order (newest first): [created_at ISO, id]. */
export type ActionPosition = [string, string];

/** When an action stops waiting: the stored `expires_at`, else creation + 7 days. */
export function actionExpiry(a: Pick<ActionRow, "createdAt" | "expiresAt">): Date {
  return a.expiresAt ?? new Date(a.createdAt.getTime() + ACTION_WAIT_MS);
}

/**
 * Row → StrategistAction. Spec "States and transitions: Strategist topic and action": 7 days after creation
 * without a decision an action is `expired`. The background job that writes that status may not have run
 * yet, so a `proposed` action past its expiry already reads as `expired` here (and the status filter agrees).
 */
export function toAction(a: ActionRow, at: number = nowMs()): StrategistAction {
  const expiresAt = actionExpiry(a);
  const status = a.status === "proposed" && expiresAt.getTime() <= at ? "expired" : a.status;
  return {
    id: a.id,
    session_id: a.sessionId,
    type: a.type,
    title: a.title,
    status: status as StrategistAction["status"],
    result: a.result ?? null,
    error: a.error ?? null,
    created_at: a.createdAt.toISOString(),
    decided_at: a.decidedAt?.toISOString() ?? null,
    expires_at: expiresAt.toISOString(),
  };
}

/** SQL of "the action's wait is over" at `at` (ms), with the same 7-day default as {@link actionExpiry}. */
function waitOver(at: number): SQL {
  const a = strategistActions;
  return sql`coalesce(${a.expiresAt}, ${a.createdAt} + interval '7 days') <= ${new Date(at).toISOString()}::timestamptz`;
}

/** The condition of a status filter on the status as read (see {@link toAction}). */
function statusCondition(status: string, at: number): SQL {
  const a = strategistActions;
  if (status === "expired") return or(eq(a.status, "expired"), and(eq(a.status, "proposed"), waitOver(at)))!;
  if (status === "proposed") return and(eq(a.status, "proposed"), sql`not (${waitOver(at)})`)!;
  return eq(a.status, status);
}

/**
 * The condition "action visible to `actor`", on `strategist_actions` alone (no join): an integration sees
 * only the actions of sessions it opened in its mode (staff sessions, other integrations' sessions and
 * rows of the other mode are invisible; spec "Strategist reads"), a staff member in the console every action
 * of the tenant in the console's mode. The reads and the decisions (decisions.ts) share it.
 */
export function actionVisibleTo(actor: IntegrationActor | StaffActor): SQL {
  if (actor.via === "console") return ownedBy(strategistActions, actor);
  const s = strategistSessions;
  return and(
    ownedBy(strategistActions, actor),
    sql`${strategistActions.sessionId} in (select ${s.id} from ${s} where ${ownedBy(s, actor)} and ${s.integrationId} = ${actor.integrationId})`,
  )!;
}

/**
 * `GET /strategist/actions`: a page of this integration's actions (for a staff member in the console: the
 * tenant's), newest first (`created_at` DESC, `id` DESC), strictly after `after`, optionally by status (as
 * read) and session. Fetches `limit + 1` rows.
 */
export async function listActions(
  db: Db,
  actor: IntegrationActor | StaffActor,
  q: { limit: number; status?: string; sessionId?: string; after?: ActionPosition },
): Promise<{ actions: StrategistAction[]; next: ActionPosition | null }> {
  const at = nowMs();
  const conds = [actionVisibleTo(actor)];
  if (q.status) conds.push(statusCondition(q.status, at));
  if (q.sessionId) conds.push(eq(strategistActions.sessionId, q.sessionId));
  if (q.after) {
    const [c, id] = q.after;
    conds.push(sql`(${strategistActions.createdAt}, ${strategistActions.id}) < (${c}::timestamptz, ${id}::uuid)`);
  }
  const rows = await db
    .select()
    .from(strategistActions)
    .where(and(...conds))
    .orderBy(desc(strategistActions.createdAt), desc(strategistActions.id))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    actions: page.map((a) => toAction(a, at)),
    next: rows.length > q.limit && last ? [last.createdAt.toISOString(), last.id] : null,
  };
}

/** `GET /strategist/actions/{id}`. @throws ApiError 404 `not_found` for a missing, foreign, other-mode, staff or other integration's action. */
export async function getAction(db: Db, actor: IntegrationActor, id: string): Promise<StrategistAction> {
  const [row] = await db
    .select()
    .from(strategistActions)
    .where(and(actionVisibleTo(actor), eq(strategistActions.id, id)));
  if (!row) throw notFound("Strategist action");
  return toAction(row);
}
