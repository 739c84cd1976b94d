import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { executePrepared } from "@/db/prepared";
import { livemodeOf, type Owner } from "../tenant-scope";

/** Journal error of a delivery deferred, or given up, because the tenant's exchange is suspended. */
export const WALLET_SUSPENDED = "wallet_suspended";

/** A delivery taken by a worker: its id and the end of the lease (pass it to attemptDelivery). */
export interface ClaimedDelivery {
  id: string;
  lockedUntil: Date;
}

/**
 * Claims up to `limit` due deliveries (state `pending` or `failed`, `next_attempt_at` <= now, no live
 * lease), oldest due first, by setting `locked_until` = now + `leaseMs` (DESIGN "State lives in
 * PostgreSQL"). `FOR UPDATE SKIP LOCKED` lets any number of workers share one database without taking
 * the same row; a worker that dies leaves a lease that simply expires, after which another claims the
 * row again (at-least-once delivery). Database clock throughout.
 * @param leaseMs lease length, ms; must exceed one attempt (10 s timeout) with margin
 */
export async function claimDueDeliveries(db: Db, opts: { limit: number; leaseMs: number }): Promise<ClaimedDelivery[]> {
  if (opts.limit <= 0) return [];
  const interval = `${Math.max(1, Math.round(opts.leaseMs))} milliseconds`;
  const rows = await executePrepared<{ id: string; locked_ms: string }>(
    db,
    "deliveries_claim_due",
    sql`
    update webhook_deliveries set locked_until = now() + ${interval}::interval
    where id in (
      select id from webhook_deliveries
      where state in ('pending', 'failed') and next_attempt_at <= now()
        and (locked_until is null or locked_until < now())
      order by next_attempt_at
      limit ${opts.limit}
      for update skip locked
    )
    returning id, (extract(epoch from locked_until) * 1000)::bigint::text as locked_ms`,
  );
  // Epoch milliseconds as text: both drivers give the same exact value (timestamps come back differently).
  return rows.map((r) => ({
    id: r.id,
    lockedUntil: new Date(Number(r.locked_ms)),
  }));
}

/**
 * Makes the deliveries of one wallet's mode deferred by a suspended exchange due now (spec "Wallet and
 * exchange": after a top-up "deferred webhooks are delivered"): `owner` is the tenant and the mode of the
 * wallet whose exchange resumed (`livemode` false: the sandbox wallet, whose deliveries are the sandbox's;
 * absent = live). Call it when the exchange becomes active again (server/services/wallet/wallet-ledger.ts,
 * when a balance change lifts the balance to >= 0 or a wallet is unblocked). Only rows marked
 * `wallet_suspended` move, so ordinary retry pauses are kept, and the other mode's rows never move.
 * @returns how many deliveries were made due
 */
export async function resumeDeferredDeliveries(db: Db, owner: Owner): Promise<number> {
  const result = await db.execute(sql`
    update webhook_deliveries set next_attempt_at = now()
    where tenant_id = ${owner.tenantId} and livemode = ${livemodeOf(owner)}
      and state in ('pending', 'failed') and error = ${WALLET_SUSPENDED}
      and next_attempt_at > now()
    returning id`);
  return rowsOf<{ id: string }>(result).length;
}
