import { and, eq } from "drizzle-orm";
import type { Actor } from "../actor";
import { ownedBy } from "../tenant-scope";
import type { Db } from "@/db/client";
import { webhookDeliveries } from "@/db/schema";
import { ApiError, notFound } from "@/server/errors";
import { announceDeliveries } from "../events/work-notifier";
import { now } from "@/server/lib/clock";
import type { WebhookDelivery } from "@/server/schemas/webhooks";
import { toDelivery } from "./journal";

/**
 * Manual resend of a `dead` delivery from the console (spec "States and transitions: Webhook delivery":
 * a dead delivery is never resent automatically, so a person decides). The row becomes `pending` with
 * `next_attempt_at` = now, `attempt` 0 and `error` null, and the jobs driver is told it is due (after the
 * commit when run inside `afterCommit`).
 * @returns the delivery as the journal shows it (WebhookDelivery).
 * @throws ApiError 404 `not_found` when the delivery is missing, of another tenant or of the other mode
 *   (a sandbox delivery is resent only from Test mode); 409 `invalid_state` when it is not `dead` (pending,
 *   failed and delivered rows are still scheduled or already done).
 */
export async function resendDeadDelivery(db: Db, actor: Actor, deliveryId: string): Promise<WebhookDelivery> {
  const mine = and(ownedBy(webhookDeliveries, actor), eq(webhookDeliveries.id, deliveryId));
  // The state condition sits in the UPDATE itself, so two clicks (or a worker) cannot both move the row.
  const [row] = await db
    .update(webhookDeliveries)
    .set({
      state: "pending",
      // A manual resend starts a fresh retry schedule: the eight retries were spent on the old outage, and
      // counting on from them would make the first new failure dead again at once.
      attempt: 0,
      nextAttemptAt: now(),
      lockedUntil: null,
      error: null,
      statusCode: null,
      durationMs: null,
    })
    .where(and(mine, eq(webhookDeliveries.state, "dead")))
    .returning();
  if (!row) {
    const [other] = await db.select({ state: webhookDeliveries.state }).from(webhookDeliveries).where(mine);
    if (!other) throw notFound("Webhook delivery");
    throw new ApiError("invalid_state", `Only a dead delivery can be resent; this one is ${other.state}.`);
  }
  announceDeliveries([row.id]);
  return toDelivery(row);
}
