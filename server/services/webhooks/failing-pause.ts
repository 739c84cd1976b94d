import { and, eq, inArray, isNotNull, isNull, or, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { memberships, staffUsers, tenants, webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { env } from "@/server/env";
import { log } from "@/server/log";
import { sendMail } from "../mail/mailer";
import { announceDeliveries } from "../events/work-notifier";

// Adaptive delivery, the subscription side (issue 75 item 4): a run of failed attempts is tracked in
// `webhook_subscriptions.failing_since`; three days of it pause the subscription with `paused_reason`
// `failing` and mail the staff who manage webhooks; setting it active again clears both and makes its
// waiting deliveries due at once.

/** How long a subscription may fail without a single success before the platform pauses it, ms (3 days). */
export const FAILING_PAUSE_MS = 3 * 24 * 60 * 60 * 1000;

/** `paused_reason` of a subscription the platform paused because its deliveries kept failing. */
export const PAUSED_FAILING = "failing";

/** The staff right whose holders are told about a pause (the right of the console's Webhooks page). */
const NOTIFIED_RIGHT = "manage_webhooks";

/**
 * Records a failed attempt on its subscription; call it in the transaction that records the attempt's
 * outcome, after the subscription row was locked (see {@link lockSubscription}). `failing_since` becomes
 * `at` when no run was open; when the run has lasted {@link FAILING_PAUSE_MS} or more, an active
 * subscription becomes `paused` with `paused_reason: failing`. One UPDATE does both, and writes the row
 * only when one of them applies (a failure inside an open run, the usual case, writes nothing). The status
 * condition sits in the UPDATE, so of concurrent failures exactly one pauses (and so one email goes out).
 * @param at the attempt's time
 * @returns the start of the failing run when this call paused the subscription, else null
 */
export async function noteFailedAttempt(db: Db, subscriptionId: string, at: Date): Promise<Date | null> {
  const s = webhookSubscriptions;
  const since = sql`coalesce(${s.failingSince}, ${at.toISOString()}::timestamptz)`;
  // The pause applies to an active subscription whose run (open, or opened by this failure) is 3 days old.
  const pauses = sql`(${s.status} = 'active' and ${since} <= ${new Date(at.getTime() - FAILING_PAUSE_MS).toISOString()}::timestamptz)`;
  const [row] = await db
    .update(s)
    .set({
      failingSince: since,
      status: sql`case when ${pauses} then 'paused' else ${s.status} end`,
      pausedReason: sql`case when ${pauses} then ${PAUSED_FAILING} else ${s.pausedReason} end`,
      updatedAt: sql`case when ${pauses} then now() else ${s.updatedAt} end`,
    })
    .where(and(eq(s.id, subscriptionId), or(isNull(s.failingSince), pauses)))
    .returning({ failingSince: s.failingSince });
  // SET's expressions all read the row as it was, so `pauses` chose the same way in each of them; RETURNING
  // reads the new row: this call paused it exactly when the run it returns is 3 days old (a run it opened
  // is `at`, never old enough).
  if (!row || row.failingSince === null) return null;
  return row.failingSince.getTime() <= at.getTime() - FAILING_PAUSE_MS ? row.failingSince : null;
}

/**
 * Ends a run of failures: a successful attempt clears `failing_since`. Writes only when a run is open,
 * so the usual success costs no write on the subscription.
 */
export async function noteSuccessfulAttempt(db: Db, subscriptionId: string): Promise<void> {
  const s = webhookSubscriptions;
  await db
    .update(s)
    .set({ failingSince: null })
    .where(and(eq(s.id, subscriptionId), isNotNull(s.failingSince)));
}

/**
 * Locks a subscription row for the attempt's write transaction (FOR NO KEY UPDATE: deliveries being
 * queued, which only key-share it, are not held up). Taken before the delivery row, in the same order as
 * a resume (subscription, then its deliveries), so the two never deadlock.
 */
export async function lockSubscription(db: Db, subscriptionId: string): Promise<void> {
  await db
    .select({ id: webhookSubscriptions.id })
    .from(webhookSubscriptions)
    .where(eq(webhookSubscriptions.id, subscriptionId))
    .for("no key update");
}

/**
 * Resuming a subscription (status set `active` by staff or the API; call in that write's transaction,
 * inside afterCommit): `paused_reason` and `failing_since` are cleared, and its deliveries that wait
 * (`pending` or `failed`) become due at `at`, announced to the jobs driver after the commit, so they go
 * out at once instead of at their next 15-minute check. Their attempt counts are kept. Those past the
 * 30-day retention are made `dead` by their next step (attempt-delivery.ts), as before.
 * @returns how many deliveries were made due
 */
export async function resumeSubscription(db: Db, subscriptionId: string, at: Date): Promise<number> {
  await db
    .update(webhookSubscriptions)
    .set({ pausedReason: null, failingSince: null })
    .where(eq(webhookSubscriptions.id, subscriptionId));
  const d = webhookDeliveries;
  const due = await db
    .update(d)
    .set({ nextAttemptAt: at })
    .where(and(eq(d.subscriptionId, subscriptionId), inArray(d.state, ["pending", "failed"])))
    .returning({ id: d.id });
  announceDeliveries(due.map((r) => r.id));
  return due.length;
}

/**
 * Mails the tenant's staff who hold `manage_webhooks` that the platform paused one of its subscriptions
 * for failing (when `SMTP_URL` is set; call after the pause's commit, once per pause). The message names
 * the subscription by id and host only (a URL's path or query may carry a receiver's token). A mail
 * failure is logged by sendMail and never undoes the pause.
 * @returns how many messages were handed to the mail server
 */
export async function mailFailingPause(
  db: Db,
  sub: { id: string; tenantId: string; livemode: boolean; url: string; failingSince: Date | null },
): Promise<number> {
  const staff = await db
    .select({ email: staffUsers.email, tenant: tenants.name })
    .from(memberships)
    .innerJoin(staffUsers, eq(staffUsers.id, memberships.staffUserId))
    .innerJoin(tenants, eq(tenants.id, memberships.tenantId))
    .where(
      and(
        eq(memberships.tenantId, sub.tenantId),
        eq(memberships.active, true),
        sql`${NOTIFIED_RIGHT} = any(${memberships.rights})`,
      ),
    );
  let host = "";
  try {
    host = new URL(sub.url).host;
  } catch {
    host = "(invalid address)";
  }
  const e = env();
  const consoleUrl = `${e.cellOrigins[e.cell]}/console/webhooks`;
  const since = sub.failingSince ? ` since ${sub.failingSince.toISOString()}` : "";
  let sent = 0;
  for (const s of staff) {
    const ok = await sendMail({
      to: s.email,
      subject: `Webhook to ${host} paused: its deliveries failed for 3 days`,
      text:
        `Every delivery attempt of the webhook subscription ${sub.id} (${host}${sub.livemode ? "" : ", test mode"})` +
        ` of ${s.tenant} has failed${since}, so the platform paused it.\n\n` +
        `Its deliveries wait without spending retries. Once the receiver answers again, resume the` +
        ` subscription on the Webhooks page (${consoleUrl}) or with PATCH /webhooks/${sub.id}` +
        ` {"status": "active"}; the waiting deliveries then go out at once. Deliveries older than 30 days` +
        ` are given up.`,
    });
    if (ok) sent++;
  }
  log().info({ tenant_id: sub.tenantId, webhook_id: sub.id, mailed: sent }, "webhook paused for failing");
  return sent;
}
