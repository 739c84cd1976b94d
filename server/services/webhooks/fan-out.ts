import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { familyPattern, INTEGRATION_ADDRESSED, readScopesForEvent } from "@/server/webhook-transport/event-catalog";
import { integrationEffectiveScopes } from "../integrations/integrations";
import { ownedByOwner } from "./owner";

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The event to fan out, as just written to the outbox. */
export interface FanOutEvent {
  id: string;
  tenantId: string;
  /** The event's mode: it goes only to subscriptions of the same mode (false = the tenant's sandbox). */
  livemode: boolean;
  type: string;
  /** The event's `data`; read for the addressee of integration-addressed types (`api_key.expiring`). */
  data?: Record<string, unknown>;
}

/** Options of {@link fanOutEvent}. */
export interface FanOutOptions {
  /**
   * Queue only for this subscription, whatever its `events` (the `webhook.test` of
   * `POST /webhooks/{id}/test`); it still has to be active and of the event's tenant and mode.
   */
  onlySubscriptionId?: string;
}

/**
 * Queues an event for delivery (spec "States and transitions: Webhook delivery": (none) → `pending`):
 * one `webhook_deliveries` row, `pending` with `next_attempt_at` now, per ACTIVE subscription of the
 * event's tenant AND mode whose `events` hold the exact type or its `<family>.*` pattern, and whose
 * integration may receive it. The mode (issue 69): a test subscription (made in the sandbox) gets only
 * sandbox events, a live subscription never gets one; each delivery row takes the mode with it.
 * - `api_key.expiring` only to subscriptions of the integration that owns the key (`data.integration_id`;
 *   none when it is missing);
 * - events about personal-data resources (`conversation.*`, `message.created`, `lead.*`, `contact.*`) only
 *   when the integration's effective scopes hold a matching read scope (EVENT_READ_SCOPES), thin or not.
 * Paused subscriptions get nothing (no backlog is built while paused). Call it with the transaction that
 * records the event: deliveries exist exactly when the event does.
 * @returns the ids of the new deliveries (empty when nobody subscribed); the worker's hook point.
 */
export async function fanOutEvent(db: Db, event: FanOutEvent, opts: FanOutOptions = {}): Promise<string[]> {
  const s = webhookSubscriptions;
  const conds: SQL[] = [ownedByOwner(s, event), eq(s.status, "active")];
  if (opts.onlySubscriptionId) conds.push(eq(s.id, opts.onlySubscriptionId));
  else {
    conds.push(sql`(${event.type} = any(${s.events}) or ${familyPattern(event.type)} = any(${s.events}))`);
    const addressee = INTEGRATION_ADDRESSED[event.type];
    if (addressee) {
      const integrationId = event.data?.[addressee];
      if (typeof integrationId !== "string" || !UUID_RE.test(integrationId)) return [];
      conds.push(eq(s.integrationId, integrationId));
    }
    const scopes = readScopesForEvent(event.type);
    if (scopes) {
      const allowed = await subscriptionsHoldingScopes(db, conds, scopes);
      if (!allowed.length) return [];
      conds.push(inArray(s.id, allowed));
    }
  }
  const rows = await db
    .insert(webhookDeliveries)
    .select((qb) =>
      qb
        .select({
          id: sql`gen_random_uuid()`.as("id"),
          tenantId: s.tenantId,
          livemode: s.livemode,
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

/**
 * Ids of the subscriptions matching `conds` whose integration's effective scopes (integration scopes ∩
 * role ∩ owner's rights ∩ license, as a request would have them) hold one of `scopes`.
 */
async function subscriptionsHoldingScopes(db: Db, conds: SQL[], scopes: readonly string[]): Promise<string[]> {
  const s = webhookSubscriptions;
  const candidates = await db
    .select({ id: s.id, integrationId: s.integrationId })
    .from(s)
    .where(and(...conds));
  const verdicts = new Map<string, boolean>();
  for (const integrationId of new Set(candidates.map((c) => c.integrationId))) {
    const effective: readonly string[] = await integrationEffectiveScopes(db, integrationId);
    verdicts.set(
      integrationId,
      scopes.some((x) => effective.includes(x)),
    );
  }
  return candidates.filter((c) => verdicts.get(c.integrationId)).map((c) => c.id);
}
