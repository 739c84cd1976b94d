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
 * Attempts in flight at most per webhook subscription (issue 75 item 5, fair delivery): deliveries holding
 * a live lease (`locked_until > now()`). A slow receiver holds at most this many of the workers' slots.
 */
export const MAX_IN_FLIGHT_PER_SUBSCRIPTION = 4;

/**
 * Class of the transaction lock held per subscription while its in-flight attempts are counted and
 * leases are taken (the second key is the subscription id's hash). Two workers then never both see room
 * under {@link MAX_IN_FLIGHT_PER_SUBSCRIPTION} for the same slot. Two-key advisory locks are a space apart
 * from the migration lock's; a hash collision only makes two subscriptions share the lock.
 */
const IN_FLIGHT_LOCK = 727_575;

/**
 * Subscriptions one claim considers at most, in round-robin order: more than a batch needs, so that claims
 * of several workers, which wait for each other's locks, still find the subscriptions with room.
 */
const CANDIDATES = 64;

/** A subscription with due work, locked for this claim: where its oldest due row is, and its tenant's turn. */
interface Candidate {
  subscription_id: string;
  min_due: string;
  tenant_turn: string;
}

const CAP = sql.raw(String(MAX_IN_FLIGHT_PER_SUBSCRIPTION));
const LOCK_CLASS = sql.raw(String(IN_FLIGHT_LOCK));
/** A due row with no live lease (unqualified columns: the innermost `webhook_deliveries` of the query). */
const DUE = sql`state in ('pending', 'failed') and next_attempt_at <= now()
  and (locked_until is null or locked_until < now())`;

/**
 * Claims up to `limit` due deliveries (state `pending` or `failed`, `next_attempt_at` <= now, no live
 * lease) by setting `locked_until` = now + `leaseMs` (DESIGN "State lives in PostgreSQL"), fairly (issue
 * 75 item 5): never more than {@link MAX_IN_FLIGHT_PER_SUBSCRIPTION} leased per subscription, and the batch
 * goes round-robin: first the oldest due row of each subscription (each tenant's oldest-due subscription
 * before its others), then each one's second row, and so on; ties by due time. So tenant A's 50,000 due rows
 * take at most 4 slots per subscription, and tenant B's one due row is in the next batch.
 *
 * One transaction of two statements, because in-flight counts must be read after the lock that guards
 * them (READ COMMITTED: each statement sees what committed before it started): (1) the subscriptions with
 * due work and room, in round-robin order, each locked ({@link IN_FLIGHT_LOCK}, in lock-key order, so a
 * concurrent claim over the same subscriptions waits for this one to commit); (2) for those, the in-flight
 * count again (`webhook_deliveries_in_flight_idx`) and each one's oldest due rows from its oldest due time
 * on (`webhook_deliveries_due_idx`), `FOR UPDATE SKIP LOCKED`, leased. Step 1 reads every due row once
 * (13-85 ms for 50,000 on PostgreSQL 15 on a busy 2-core host; an index on `(subscription_id,
 * next_attempt_at)` of the due rows would spare it); step 2 reads a few rows per subscription.
 *
 * A worker that dies leaves a lease that simply expires, after which another claims the row again
 * (at-least-once delivery). Database clock throughout.
 * @param leaseMs lease length, ms; must exceed one attempt (10 s timeout) with margin
 * @returns the claimed rows, fewer than `limit` when subscriptions are at their cap (RETURNING order is not defined)
 */
export async function claimDueDeliveries(db: Db, opts: { limit: number; leaseMs: number }): Promise<ClaimedDelivery[]> {
  if (opts.limit <= 0) return [];
  const interval = `${Math.max(1, Math.round(opts.leaseMs))} milliseconds`;
  const rows = await db.transaction(async (tx) => {
    const subs = await executePrepared<Candidate>(
      tx,
      "deliveries_claim_subscriptions",
      sql`
      select subscription_id, min_due::text as min_due, tenant_turn,
        pg_advisory_xact_lock(${LOCK_CLASS}, lock_key) as locked
      from (
        select subscription_id, min_due, tenant_turn, hashtext(subscription_id::text) as lock_key from (
          select subscription_id, min_due,
            row_number() over (partition by tenant_id order by min_due) as tenant_turn
          from (
            select subscription_id, tenant_id, min(next_attempt_at) as min_due
            from webhook_deliveries where ${DUE}
            group by subscription_id, tenant_id
          ) due
          where (select count(*) from webhook_deliveries f
                 where f.subscription_id = due.subscription_id and f.locked_until > now()) < ${CAP}
          order by tenant_turn, min_due
          limit ${Math.max(CANDIDATES, opts.limit)}
        ) turns
        -- Locks taken in one order by every claimer: no deadlock between two claims.
        order by lock_key
      ) c`,
    );
    if (subs.length === 0) return [];
    const candidates = JSON.stringify(
      subs.map((s) => ({ subscription_id: s.subscription_id, min_due: s.min_due, tenant_turn: Number(s.tenant_turn) })),
    );
    return executePrepared<{ id: string; locked_ms: string }>(
      tx,
      "deliveries_claim_due",
      sql`
      with picked as (
        select p.id, p.next_attempt_at, s.tenant_turn,
          row_number() over (partition by s.subscription_id order by p.next_attempt_at) as turn
        from jsonb_to_recordset(${candidates}::jsonb) as s(subscription_id uuid, min_due timestamptz, tenant_turn int)
        cross join lateral (
          select ${CAP} - count(*) as room from webhook_deliveries f
          where f.subscription_id = s.subscription_id and f.locked_until > now()
        ) r
        cross join lateral (
          select id, next_attempt_at from webhook_deliveries d
          where d.subscription_id = s.subscription_id and d.next_attempt_at >= s.min_due and ${DUE}
          order by d.next_attempt_at
          limit greatest(r.room, 0)
          for update skip locked
        ) p
      )
      update webhook_deliveries set locked_until = now() + ${interval}::interval
      where id in (select id from picked order by turn, tenant_turn, next_attempt_at limit ${opts.limit})
      returning id, (extract(epoch from locked_until) * 1000)::bigint::text as locked_ms`,
    );
  });
  // Epoch milliseconds as text: both drivers give the same exact value (timestamps come back differently).
  return rows.map((r) => ({
    id: r.id,
    lockedUntil: new Date(Number(r.locked_ms)),
  }));
}

/**
 * How long an attempt that found its subscription at {@link MAX_IN_FLIGHT_PER_SUBSCRIPTION} waits before
 * trying again, ms: from 5 s up to 30 s, spread at random so a backlog's runs do not all come back at once.
 */
export function inFlightDeferMs(random: () => number = Math.random): number {
  return 5_000 + Math.floor(random() * 25_000);
}

/** What {@link takeDeliveryLease} got: the lease, or why not (`leased`: another worker holds the row; `full`: its subscription is at the cap). */
export type LeaseTake = { lockedUntil: Date } | { refused: "leased" | "full" };

/**
 * Leases one delivery for an attempt that was not claimed by claimDueDeliveries (the Inngest driver runs
 * each delivery on its own, server/jobs/attempt-delivery.ts): `locked_until` = now + `leaseMs`, only when
 * no live lease holds the row and its subscription has fewer than {@link MAX_IN_FLIGHT_PER_SUBSCRIPTION}
 * attempts in flight (issue 75 item 5), counted under the same per-subscription lock the claim takes.
 * @param leaseMs lease length, ms
 */
export async function takeDeliveryLease(
  db: Db,
  opts: { deliveryId: string; subscriptionId: string; leaseMs: number },
): Promise<LeaseTake> {
  const interval = `${Math.max(1, Math.round(opts.leaseMs))} milliseconds`;
  const [r] = await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${LOCK_CLASS}, hashtext(${opts.subscriptionId}::uuid::text))`);
    return executePrepared<{ free: boolean | null; room: boolean; locked_ms: string | null }>(
      tx,
      "deliveries_take_lease",
      sql`
      with state as (
        select
          (select locked_until is null or locked_until < now() from webhook_deliveries where id = ${opts.deliveryId}) as free,
          (select count(*) < ${CAP} from webhook_deliveries
           where subscription_id = ${opts.subscriptionId} and locked_until > now()) as room
      ), taken as (
        update webhook_deliveries set locked_until = now() + ${interval}::interval
        where id = ${opts.deliveryId} and (select free and room from state)
        returning (extract(epoch from locked_until) * 1000)::bigint::text as locked_ms
      )
      select free, room, (select locked_ms from taken) as locked_ms from state`,
    );
  });
  if (r?.locked_ms) return { lockedUntil: new Date(Number(r.locked_ms)) };
  return { refused: r?.free !== true ? "leased" : "full" };
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
