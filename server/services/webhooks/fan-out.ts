import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { familyPattern } from "@/server/webhooks/event-catalog";

/** The event to fan out, as just written to the outbox. */
export interface FanOutEvent {
  id: string;
  tenantId: string;
  type: string;
}

/** Options of {@link fanOutEvent}. */
export interface FanOutOptions {
  /**
   * Queue only for this subscription, whatever its `events` (the `webhook.test` of
   * `POST /webhooks/{id}/test`); it still has to be active and of the event's tenant.
   */
  onlySubscriptionId?: string;
}

/**
 * Queues an event for delivery (spec "States and transitions: Webhook delivery": (none) → `pending`):
 * one `webhook_deliveries` row, `pending` with `next_attempt_at` now, per ACTIVE subscription of the
 * event's tenant whose `events` hold the exact type or its `<family>.*` pattern. Paused subscriptions
 * get nothing (no backlog is built while paused). One INSERT ... SELECT, so call it with the
 * transaction that records the event: deliveries exist exactly when the event does.
 * @returns the ids of the new deliveries (empty when nobody subscribed); the worker's hook point.
 */
export async function fanOutEvent(db: Db, event: FanOutEvent, opts: FanOutOptions = {}): Promise<string[]> {
  const s = webhookSubscriptions;
  const conds = [eq(s.tenantId, event.tenantId), eq(s.status, "active")];
  if (opts.onlySubscriptionId) conds.push(eq(s.id, opts.onlySubscriptionId));
  else conds.push(sql`(${event.type} = any(${s.events}) or ${familyPattern(event.type)} = any(${s.events}))`);
  const rows = await db
    .insert(webhookDeliveries)
    .select((qb) =>
      qb
        .select({
          id: sql`gen_random_uuid()`.as("id"),
          tenantId: s.tenantId,
          subscriptionId: s.id,
          eventId: sql`${event.id}::uuid`.as("event_id"),
          eventType: sql`${event.type}`.as("event_type"),
          state: sql`'pending'`.as("state"),
          attempt: sql`0`.as("attempt"),
          statusCode: sql`null::integer`.as("status_code"),
          durationMs: sql`null::integer`.as("duration_ms"),
          error: sql`null::text`.as("error"),
          nextAttemptAt: sql`now()`.as("next_attempt_at"),
          lockedUntil: sql`null::timestamptz`.as("locked_until"),
          deliveredAt: sql`null::timestamptz`.as("delivered_at"),
          createdAt: sql`now()`.as("created_at"),
        })
        .from(s)
        .where(and(...conds)),
    )
    .returning({ id: webhookDeliveries.id });
  return rows.map((r) => r.id);
}
