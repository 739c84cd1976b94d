import { and, asc, eq, inArray, isNull, lte, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { webhookDeliveries } from "@/db/schema";

/**
 * Ids of deliveries that are due now and held by no worker (`pending` or `failed`, `next_attempt_at`
 * passed, no live lease), oldest due first; optionally of one tenant. Reads only: the Inngest driver
 * schedules a run per id, and the run's own step takes the lease (server/jobs/attempt-delivery.ts).
 * With `perSubscription` (the sweep, issue 75 item 5), at most that many of each subscription, in turns:
 * every subscription's oldest due one first, then their second ones…, so one subscription's backlog does
 * not fill the list.
 */
export async function dueDeliveryIds(
  db: Db,
  opts: { limit: number; tenantId?: string; now?: Date; perSubscription?: number },
): Promise<string[]> {
  const d = webhookDeliveries;
  const now = opts.now ?? new Date();
  const conds: (SQL | undefined)[] = [
    inArray(d.state, ["pending", "failed"]),
    lte(d.nextAttemptAt, now),
    or(isNull(d.lockedUntil), lte(d.lockedUntil, now)),
  ];
  if (opts.tenantId) conds.push(eq(d.tenantId, opts.tenantId));
  if (!opts.perSubscription) {
    const rows = await db
      .select({ id: d.id })
      .from(d)
      .where(and(...conds))
      .orderBy(asc(d.nextAttemptAt))
      .limit(opts.limit);
    return rows.map((r) => r.id);
  }
  const ranked = db
    .select({
      id: d.id,
      nextAttemptAt: d.nextAttemptAt,
      turn: sql<number>`row_number() over (partition by ${d.subscriptionId} order by ${d.nextAttemptAt})`.as("turn"),
    })
    .from(d)
    .where(and(...conds))
    .as("ranked");
  const rows = await db
    .select({ id: ranked.id })
    .from(ranked)
    .where(lte(ranked.turn, opts.perSubscription))
    .orderBy(asc(ranked.turn), asc(ranked.nextAttemptAt))
    .limit(opts.limit);
  return rows.map((r) => r.id);
}
