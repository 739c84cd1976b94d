import { and, eq, gte, inArray, isNull, lt, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { webhookDeliveries } from "@/db/schema";
import { ApiError, notFound } from "@/server/errors";
import { now, nowMs } from "@/server/lib/clock";
import type { WebhookDelivery } from "@/server/schemas/webhooks";
import { announceDeliveries } from "../events/work-notifier";
import { livemodeOf, type Owner } from "../tenant-scope";
import { findJournalDelivery, JOURNAL_RETENTION_MS, journalRows, toDelivery } from "./journal";
import { ownedByOwner, type WebhookOwner } from "./owner";
import { findSubscription } from "./subscriptions";

// Issue 75 item 3: a `dead` or `failed` delivery is sent again on request, from the API
// (`POST /webhooks/{id}/deliveries/{delivery_id}/resend`) or the console (Resend, "Resend all dead since").
// Spec "States and transitions: Webhook delivery": a dead delivery is never resent automatically, so a
// person or the integrator decides; a failed one may be hurried instead of waiting for its next retry.

/** States a resend starts a new attempt cycle from. */
export const RESENDABLE_STATES = ["dead", "failed"] as const;

/** At most this many ids of a bulk resend are announced to the jobs driver; the poll and sweep find the rest. */
const ANNOUNCE_AT_MOST = 1_000;

/**
 * The new cycle: `pending`, due now, `attempt` 0 (a full retry schedule follows: the retries were spent
 * on the old outage, and counting on from them would make the first new failure dead again at once), the
 * last attempt's status, duration and error cleared. The attempt log keeps the old attempts.
 */
const newCycle = () => ({
  state: "pending",
  attempt: 0,
  nextAttemptAt: now(),
  lockedUntil: null,
  error: null,
  statusCode: null,
  durationMs: null,
});

/**
 * Rows a resend may move: dead or failed, and not leased. A failed delivery may be in the middle of an
 * attempt (a worker holds its lease): resetting it then would send it twice at once and drop that
 * attempt's outcome, so it waits until the lease has ended (a lease ends with the attempt, or expires).
 */
const resendable = (): SQL =>
  and(
    inArray(webhookDeliveries.state, [...RESENDABLE_STATES]),
    or(isNull(webhookDeliveries.lockedUntil), lt(webhookDeliveries.lockedUntil, sql`now()`)),
  ) as SQL;

/**
 * Starts a new attempt cycle for one `dead` or `failed` delivery of the owner's tenant and mode (the
 * console's Resend; the API's goes through {@link resendSubscriptionDelivery}). The state condition sits in
 * the UPDATE itself, so two clicks (or a worker) cannot both move the row. The jobs driver is told the
 * delivery is due (after the commit when run inside `afterCommit`).
 * @param opts.subscriptionId only a delivery of this subscription, created in the last 30 days (the API's
 *   journal view); without it any delivery of the owner's tenant and mode.
 * @returns the delivery as the journal shows it (WebhookDelivery), now `pending`.
 * @throws ApiError 404 `not_found` when the delivery is missing, of another tenant or of the other mode
 *   (a sandbox delivery is resent only from Test mode) or, with `subscriptionId`, of another subscription or
 *   older than 30 days; 409 `invalid_state` when it is `pending` or `delivered`, or an attempt of it is
 *   under way.
 */
export async function resendDelivery(
  db: Db,
  owner: Owner,
  deliveryId: string,
  opts: { subscriptionId?: string } = {},
): Promise<WebhookDelivery> {
  const scope = { tenantId: owner.tenantId, livemode: livemodeOf(owner) };
  const mine = and(
    opts.subscriptionId ? journalRows(scope, opts.subscriptionId) : ownedByOwner(webhookDeliveries, scope),
    eq(webhookDeliveries.id, deliveryId),
  );
  const [row] = await db.update(webhookDeliveries).set(newCycle()).where(and(mine, resendable())).returning();
  if (!row) {
    const [other] = await db.select({ state: webhookDeliveries.state }).from(webhookDeliveries).where(mine);
    if (!other) throw notFound("Webhook delivery");
    if ((RESENDABLE_STATES as readonly string[]).includes(other.state))
      throw new ApiError("invalid_state", "An attempt of this delivery is under way; resend it when it has ended.");
    throw new ApiError("invalid_state", `Only a dead or failed delivery can be resent; this one is ${other.state}.`);
  }
  announceDeliveries([row.id]);
  return toDelivery(row);
}

/**
 * `POST /webhooks/{id}/deliveries/{delivery_id}/resend`: {@link resendDelivery} for a delivery of one
 * subscription of the owner's integration.
 * @throws ApiError 404 `not_found` for a missing or foreign subscription or delivery (or one older than 30
 *   days); 409 `invalid_state` as resendDelivery.
 */
export async function resendSubscriptionDelivery(
  db: Db,
  owner: WebhookOwner,
  subscriptionId: string,
  deliveryId: string,
): Promise<WebhookDelivery> {
  await findSubscription(db, owner, subscriptionId);
  return resendDelivery(db, owner, deliveryId, { subscriptionId });
}

/**
 * The answer of a replayed resend (same `Idempotency-Key`): the delivery as it is now; nothing is resent
 * again. @throws ApiError 404 as {@link findJournalDelivery}.
 */
export async function readResentDelivery(
  db: Db,
  owner: WebhookOwner,
  subscriptionId: string,
  deliveryId: string,
): Promise<WebhookDelivery> {
  return toDelivery(await findJournalDelivery(db, owner, subscriptionId, deliveryId));
}

/**
 * The console's "Resend all dead since …" (issue 75 item 3): every `dead` delivery of the subscription
 * created at or after `since` (and in the 30 days the journal shows) starts a new attempt cycle, in one
 * UPDATE. Failed ones are left alone: they are still on their schedule.
 * @returns how many deliveries were resent.
 * @throws ApiError 404 `not_found` for a missing or foreign subscription.
 */
export async function resendDeadSince(
  db: Db,
  owner: WebhookOwner,
  subscriptionId: string,
  since: Date,
): Promise<{ resent: number }> {
  await findSubscription(db, owner, subscriptionId);
  const from = new Date(Math.max(since.getTime(), nowMs() - JOURNAL_RETENTION_MS));
  const rows = await db
    .update(webhookDeliveries)
    .set(newCycle())
    .where(
      and(
        journalRows(owner, subscriptionId),
        gte(webhookDeliveries.createdAt, from),
        eq(webhookDeliveries.state, "dead"),
      ),
    )
    .returning({ id: webhookDeliveries.id });
  announceDeliveries(rows.slice(0, ANNOUNCE_AT_MOST).map((r) => r.id));
  return { resent: rows.length };
}
