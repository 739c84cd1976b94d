import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { strategistActions, strategistTopics } from "@/db/schema";
import { ApiError, notFound } from "@/server/errors";
import { nowMs } from "@/server/lib/clock";
import { OPEN_TOPIC_STATUSES, type StrategistAction, type StrategistTopic } from "@/server/schemas/strategist";
import type { IntegrationActor, StaffActor } from "../actor";
import { ownedBy, ownerOf, type Owner } from "../tenant-scope";
import { actionExpiry, actionVisibleTo, toAction } from "./actions";
import { toTopic } from "./topics";

type ActionRow = typeof strategistActions.$inferSelect;
type TopicRow = typeof strategistTopics.$inferSelect;

/** Who decides: an integration (its own sessions' actions only, as its reads) or a staff member (the tenant's). */
export type DecidingActor = IntegrationActor | StaffActor;

/** How long a topic created by a confirmed action waits for approval before it expires, ms. */
export const TOPIC_WAIT_MS = 14 * 24 * 60 * 60 * 1000;

/** A topic title as compared for duplicates: trimmed, inner spaces collapsed, lower case. */
export function titleKey(title: string): string {
  return title.trim().replace(/\s+/g, " ").toLowerCase();
}

const invalidState = (detail: string) => new ApiError("invalid_state", detail);

/**
 * The action `id` as `actor` may decide it, locked for the decision: an integration sees the actions of
 * the sessions it opened in its mode (spec "Strategist reads"), a staff member every action of the tenant
 * in the console's mode. @throws ApiError 404 `not_found` otherwise.
 */
async function lockAction(db: Db, actor: DecidingActor, id: string): Promise<ActionRow> {
  const [row] = await db
    .select()
    .from(strategistActions)
    .where(and(actionVisibleTo(actor), eq(strategistActions.id, id)))
    .for("update");
  if (!row) throw notFound("Strategist action");
  return row;
}

/** Refuses a decision on an action that no longer waits for one: 409 `invalid_state` naming its status. */
function mustAwaitDecision(row: ActionRow, at: number, verb: string): void {
  const read = toAction(row, at).status;
  if (read !== "proposed")
    throw invalidState(`The action is ${read}; only a proposed action can be ${verb} (it waits 7 days).`);
}

/**
 * Creates the topic a confirmed `propose_topic` action proposes, in the caller's transaction: `proposed`
 * for 14 days ({@link TOPIC_WAIT_MS}), or `duplicate` when an open topic of the tenant and mode has the same
 * title ({@link titleKey}). Topics of one title are created one at a time (a transaction lock on the title),
 * so two confirmations racing cannot both make an original.
 * @returns the topic row, or an error when the proposal cannot become a topic
 */
async function createProposedTopic(
  db: Db,
  owner: Owner,
  action: ActionRow,
  at: Date,
): Promise<TopicRow | { code: string; message: string }> {
  const title = action.title?.trim() ?? "";
  if (action.type !== "propose_topic" || !title)
    return { code: "invalid_proposal", message: "The action proposes no topic title, so no topic was created." };
  const key = titleKey(title);
  const o = ownerOf(owner);
  await db.execute(sql`select pg_advisory_xact_lock(hashtext(${`${o.tenantId}:${o.livemode}:topic:${key}`}))`);
  const [twin] = await db
    .select({ id: strategistTopics.id })
    .from(strategistTopics)
    .where(
      and(
        ownedBy(strategistTopics, owner),
        inArray(strategistTopics.status, [...OPEN_TOPIC_STATUSES]),
        sql`lower(regexp_replace(btrim(${strategistTopics.title}), '\\s+', ' ', 'g')) = ${key}`,
      ),
    )
    .limit(1);
  const [topic] = await db
    .insert(strategistTopics)
    .values({
      ...o,
      title,
      rationale: action.proposal?.rationale ?? null,
      trendScore: action.proposal?.trend_score ?? null,
      clusterId: action.proposal?.cluster_id ?? null,
      source: "chat",
      status: twin ? "duplicate" : "proposed",
      proposedAt: at,
      expiresAt: new Date(at.getTime() + TOPIC_WAIT_MS),
    })
    .returning();
  return topic!;
}

/**
 * `POST /strategist/actions/{id}/confirm` (issue 73 item 1; spec States "Strategist topic and action"), in
 * the caller's transaction: a `proposed` action is confirmed and executed at once: its topic is
 * created (createProposedTopic) and it is `executed` with `result.topic_id`, or `failed` with `error` when
 * the proposal cannot become a topic; `decided_at` set either way.
 * @throws ApiError 404 `not_found` (missing, foreign, another integration's or mode's); 409 `invalid_state`
 *   for an action not `proposed` (decided already, or past its 7 days: expired).
 */
export async function confirmAction(db: Db, actor: DecidingActor, id: string): Promise<StrategistAction> {
  const at = nowMs();
  const row = await lockAction(db, actor, id);
  mustAwaitDecision(row, at, "confirmed");
  const decidedAt = new Date(at);
  // `confirmed` and its execution are one transaction: nobody can read the action between the two, so it is
  // written once, as executed or failed.
  const topic = await createProposedTopic(db, actor, row, decidedAt);
  const [done] = await db
    .update(strategistActions)
    .set({
      decidedAt,
      expiresAt: actionExpiry(row),
      ...("id" in topic
        ? { status: "executed", result: { topic_id: topic.id }, error: null }
        : { status: "failed", error: topic, result: null }),
    })
    .where(eq(strategistActions.id, id))
    .returning();
  return toAction(done!, at);
}

/**
 * `POST /strategist/actions/{id}/cancel` (issue 73 item 1): a `proposed` action becomes `cancelled` with
 * `decided_at`. @throws ApiError 404 `not_found`; 409 `invalid_state` for an action not `proposed`.
 */
export async function cancelAction(db: Db, actor: DecidingActor, id: string): Promise<StrategistAction> {
  const at = nowMs();
  const row = await lockAction(db, actor, id);
  mustAwaitDecision(row, at, "cancelled");
  const [done] = await db
    .update(strategistActions)
    .set({ status: "cancelled", decidedAt: new Date(at), expiresAt: actionExpiry(row) })
    .where(eq(strategistActions.id, id))
    .returning();
  return toAction(done!, at);
}

/** The topic `id` of the actor's tenant and mode, locked for a decision. @throws ApiError 404. */
async function lockTopic(db: Db, owner: Owner, id: string): Promise<TopicRow> {
  const [row] = await db
    .select()
    .from(strategistTopics)
    .where(and(ownedBy(strategistTopics, owner), eq(strategistTopics.id, id)))
    .for("update");
  if (!row) throw notFound("Strategist topic");
  return row;
}

/** A proposed topic whose `expires_at` has passed counts as expired before the daily job writes it. */
const topicExpired = (t: TopicRow, at: number) => t.expiresAt !== null && t.expiresAt.getTime() <= at;

/**
 * `POST /strategist/topics/{id}/approve` (issue 73 item 1): a `proposed` topic (not past `expires_at`)
 * becomes `approved` with `decided_at`; an article can then be generated from it.
 * @throws ApiError 404 `not_found`; 409 `invalid_state` for any other status, or an expired one.
 */
export async function approveTopic(db: Db, owner: Owner, id: string): Promise<StrategistTopic> {
  const at = nowMs();
  const row = await lockTopic(db, owner, id);
  if (row.status !== "proposed" || topicExpired(row, at))
    throw invalidState(
      `The topic is ${row.status === "proposed" ? "expired" : row.status}; only a proposed topic can be approved.`,
    );
  const [done] = await db
    .update(strategistTopics)
    .set({ status: "approved", decidedAt: new Date(at) })
    .where(eq(strategistTopics.id, id))
    .returning();
  return toTopic(done!);
}

/**
 * `POST /strategist/topics/{id}/reject` (issue 73 item 1): a `proposed` (not expired) or `approved` topic
 * becomes `rejected` with `decided_at`. @throws ApiError 404; 409 `invalid_state` for any other status.
 */
export async function rejectTopic(db: Db, owner: Owner, id: string): Promise<StrategistTopic> {
  const at = nowMs();
  const row = await lockTopic(db, owner, id);
  const open = row.status === "approved" || (row.status === "proposed" && !topicExpired(row, at));
  if (!open)
    throw invalidState(
      `The topic is ${row.status === "proposed" ? "expired" : row.status}; only a proposed or approved topic can be rejected.`,
    );
  const [done] = await db
    .update(strategistTopics)
    .set({ status: "rejected", decidedAt: new Date(at) })
    .where(eq(strategistTopics.id, id))
    .returning();
  return toTopic(done!);
}

/**
 * The daily expiry (issue 73 item 1; spec "Limits": strategist action waiting 7 days): in the given tenants
 * (those with the `strategist` preview; every mode), `proposed` actions 7 days old become `expired`, and
 * `proposed` topics past `expires_at` become `expired`. Idempotent; `at` is the clock (ms).
 * @returns how many actions and topics it expired
 */
export async function expireStrategistItems(
  db: Db,
  tenantIds: readonly string[],
  at: number = nowMs(),
): Promise<{ actions: number; topics: number }> {
  if (!tenantIds.length) return { actions: 0, topics: 0 };
  const when = new Date(at).toISOString();
  const a = await db
    .update(strategistActions)
    .set({ status: "expired" })
    .where(
      and(
        inArray(strategistActions.tenantId, [...tenantIds]),
        eq(strategistActions.status, "proposed"),
        sql`coalesce(${strategistActions.expiresAt}, ${strategistActions.createdAt} + interval '7 days') <= ${when}::timestamptz`,
      ),
    )
    .returning({ id: strategistActions.id });
  const t = await db
    .update(strategistTopics)
    .set({ status: "expired" })
    .where(
      and(
        inArray(strategistTopics.tenantId, [...tenantIds]),
        eq(strategistTopics.status, "proposed"),
        sql`${strategistTopics.expiresAt} <= ${when}::timestamptz`,
      ),
    )
    .returning({ id: strategistTopics.id });
  return { actions: a.length, topics: t.length };
}
