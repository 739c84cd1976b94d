import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { webhookDeliveries, webhookDeliveryAttempts } from "@/db/schema";
import type { WebhookDeliveryAttempt, WebhookDeliveryWithAttempts } from "@/server/schemas/webhooks";
import type { DeliveryResult } from "@/server/webhook-transport/delivery-client";
import { findJournalDelivery, toDelivery } from "./journal";
import { ownedByOwner, type WebhookOwner } from "./owner";

// Issue 75 item 2, the attempt log: one `webhook_delivery_attempts` row per HTTP attempt of a delivery,
// written by the delivery step together with the delivery's new state, and read by
// `GET /webhooks/{id}/deliveries/{delivery_id}` and the console.

/** One attempt as the delivery step records it (a row of `webhook_delivery_attempts` without its owner). */
export interface AttemptLogEntry {
  /** The step's clock, as `delivered_at` and the signature's `t`. */
  attemptedAt: Date;
  durationMs: number;
  responseStatus: number | null;
  responseHeaders: Record<string, string> | null;
  responseBody: string | null;
  error: string | null;
}

/** The log entry of what the delivery client reported for one POST made at `attemptedAt`. */
export function attemptLogEntry(result: DeliveryResult, attemptedAt: Date): AttemptLogEntry {
  return {
    attemptedAt,
    durationMs: result.durationMs,
    responseStatus: result.statusCode,
    responseHeaders: result.responseHeaders ?? null,
    responseBody: result.responseBody ?? null,
    error: result.error,
  };
}

const column = (c: AnyPgColumn) => sql.identifier(c.name);

/**
 * Writes a delivery's outcome and its attempt row in ONE statement: `with moved as (update ... where guard
 * returning ...) insert into webhook_delivery_attempts select ... from moved`. The attempt row exists only
 * when the guarded UPDATE moved the delivery, so a worker that lost its lease (another one took the row
 * over and records its own attempt) leaves no orphan row, and no crash between two statements can leave
 * a state change without its attempt, or the other way round. The row takes the delivery's tenant and mode.
 * @param set the delivery's new columns (lease included)
 * @param guard the UPDATE's whole condition (id, lease, attempt number, state)
 * @returns true when the guard held: the outcome and the attempt were recorded.
 */
export async function recordOutcomeWithAttempt(
  db: Db,
  set: Partial<typeof webhookDeliveries.$inferInsert>,
  guard: SQL,
  entry: AttemptLogEntry,
): Promise<boolean> {
  const d = webhookDeliveries;
  const a = webhookDeliveryAttempts;
  const moved = db
    .update(d)
    .set(set)
    .where(guard)
    .returning({ id: d.id, tenantId: d.tenantId, livemode: d.livemode })
    .getSQL();
  const headers = entry.responseHeaders === null ? null : JSON.stringify(entry.responseHeaders);
  const result = await db.execute(sql`
    with moved as (${moved})
    insert into ${a} (${column(a.deliveryId)}, ${column(a.tenantId)}, ${column(a.livemode)}, ${column(a.attemptedAt)},
      ${column(a.durationMs)}, ${column(a.responseStatus)}, ${column(a.responseHeaders)}, ${column(a.responseBody)},
      ${column(a.error)})
    select moved.id, moved.tenant_id, moved.livemode, ${entry.attemptedAt.toISOString()}::timestamptz,
      ${entry.durationMs}::int, ${entry.responseStatus}::int, ${headers}::jsonb, ${entry.responseBody}::text,
      ${entry.error}::text
    from moved
    returning ${column(a.id)}`);
  return rowsOf(result).length > 0;
}

/** Row → the API's WebhookDeliveryAttempt. */
export function toAttempt(row: typeof webhookDeliveryAttempts.$inferSelect): WebhookDeliveryAttempt {
  return {
    attempted_at: row.attemptedAt.toISOString(),
    duration_ms: row.durationMs,
    response_status: row.responseStatus,
    response_headers: row.responseHeaders,
    response_body: row.responseBody,
    error: row.error,
  };
}

/**
 * `GET /webhooks/{id}/deliveries/{delivery_id}` (issue 75 item 2): the journal row with every attempt made
 * for it, oldest first (attempts of earlier cycles stay after a resend).
 * @throws ApiError 404 `not_found` as {@link findJournalDelivery}: a missing or foreign subscription (other
 *   integration, tenant or mode), a delivery of another subscription, or one older than 30 days.
 */
export async function getDeliveryWithAttempts(
  db: Db,
  owner: WebhookOwner,
  subscriptionId: string,
  deliveryId: string,
): Promise<WebhookDeliveryWithAttempts> {
  const row = await findJournalDelivery(db, owner, subscriptionId, deliveryId);
  const a = webhookDeliveryAttempts;
  const attempts = await db
    .select()
    .from(a)
    .where(and(ownedByOwner(a, owner), eq(a.deliveryId, row.id)))
    .orderBy(asc(a.attemptedAt), asc(a.id));
  return { ...toDelivery(row), attempts: attempts.map(toAttempt) };
}
