import { and, desc, eq, gt, inArray, sql, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { webhookDeliveries } from "@/db/schema";
import { notFound } from "@/server/errors";
import { nowMs } from "@/server/lib/clock";
import type { WebhookDelivery } from "@/server/schemas/webhooks";
import { ownedByOwner, type WebhookOwner } from "./owner";
import { findSubscription } from "./subscriptions";

/** How long the delivery journal is kept and shown (spec "Limits": 30 days), ms. */
export const JOURNAL_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** Keyset position in the journal: (created_at, id) of the last row, walked newest first. */
export type DeliveryPosition = [string, string];

type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** Row → the spec's WebhookDelivery (exactly its fields). */
export function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    event_id: row.eventId,
    state: row.state as WebhookDelivery["state"],
    attempt: row.attempt,
    status_code: row.statusCode,
    duration_ms: row.durationMs,
    error: row.error,
    next_attempt_at: row.nextAttemptAt?.toISOString() ?? null,
    delivered_at: row.deliveredAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  };
}

/**
 * The journal's rows of one subscription as the owner sees them: its tenant and mode, the subscription, and
 * created less than 30 days ago (older rows are no longer shown, even before the cleanup removes them).
 */
export function journalRows(owner: { tenantId: string; livemode: boolean }, subscriptionId: string): SQL {
  const d = webhookDeliveries;
  return and(
    ownedByOwner(d, owner),
    eq(d.subscriptionId, subscriptionId),
    gt(d.createdAt, new Date(nowMs() - JOURNAL_RETENTION_MS)),
  ) as SQL;
}

/**
 * One journal row of a subscription of the owner (issue 75 item 2, the door of the attempt log).
 * @throws ApiError 404 `not_found` when the subscription is missing or of another integration, tenant or
 *   mode, or the delivery is missing, of another subscription or older than 30 days.
 */
export async function findJournalDelivery(
  db: Db,
  owner: WebhookOwner,
  subscriptionId: string,
  deliveryId: string,
): Promise<DeliveryRow> {
  await findSubscription(db, owner, subscriptionId);
  const [row] = await db
    .select()
    .from(webhookDeliveries)
    .where(and(journalRows(owner, subscriptionId), eq(webhookDeliveries.id, deliveryId)));
  if (!row) throw notFound("Webhook delivery");
  return row;
}

/**
 * `GET /webhooks/{id}/deliveries`: the journal of one subscription, newest first by (created_at, id),
 * strictly after `after`, optionally of one `state`. Rows older than 30 days are never returned, even
 * before the cleanup removes them. Only rows of the owner's mode: a test subscription's journal is the sandbox's.
 * @throws ApiError 404 when the subscription is missing or of another integration, tenant or mode.
 */
export async function listDeliveries(
  db: Db,
  owner: WebhookOwner,
  subscriptionId: string,
  q: { limit: number; state?: WebhookDelivery["state"]; after?: DeliveryPosition },
): Promise<{ deliveries: WebhookDelivery[]; next: DeliveryPosition | null }> {
  await findSubscription(db, owner, subscriptionId);
  const d = webhookDeliveries;
  const conds = [journalRows(owner, subscriptionId)];
  if (q.state) conds.push(eq(d.state, q.state));
  if (q.after) conds.push(sql`(${d.createdAt}, ${d.id}) < (${q.after[0]}::timestamptz, ${q.after[1]}::uuid)`);
  const rows = await db
    .select()
    .from(d)
    .where(and(...conds))
    .orderBy(desc(d.createdAt), desc(d.id))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    deliveries: page.map(toDelivery),
    next: rows.length > q.limit && last ? [last.createdAt.toISOString(), last.id] : null,
  };
}

/** A journal row as the console shows it: the API's WebhookDelivery plus the event type. */
export type ConsoleDelivery = WebhookDelivery & { event_type: string };

/**
 * {@link listDeliveries} with each row's event type, which the API's WebhookDelivery leaves out and the
 * console shows. @throws ApiError 404 as listDeliveries.
 */
export async function listDeliveriesWithTypes(
  db: Db,
  owner: WebhookOwner,
  subscriptionId: string,
  q: { limit: number; state?: WebhookDelivery["state"]; after?: DeliveryPosition },
): Promise<{ deliveries: ConsoleDelivery[]; next: DeliveryPosition | null }> {
  const page = await listDeliveries(db, owner, subscriptionId, q);
  const ids = page.deliveries.map((d) => d.id);
  const types = ids.length
    ? await db
        .select({ id: webhookDeliveries.id, type: webhookDeliveries.eventType })
        .from(webhookDeliveries)
        .where(and(ownedByOwner(webhookDeliveries, owner), inArray(webhookDeliveries.id, ids)))
    : [];
  const typeOf = new Map(types.map((t) => [t.id, t.type]));
  return { deliveries: page.deliveries.map((d) => ({ ...d, event_type: typeOf.get(d.id) ?? "" })), next: page.next };
}
