import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { executePrepared } from "@/db/prepared";
import { operations, tenants } from "@/db/schema";
import { formatMinor } from "@/server/lib/money";
import type { Operation } from "@/server/schemas/operations";
import { recordEvent } from "../events/outbox";
import { toOperation } from "./operations";
import { ENGINE_OPERATION_TYPES, settleHold } from "./paid-operations";
import { announceOperationSettled, OPERATION_SETTLED_CHANNEL } from "./operation-settled";

type OperationRow = typeof operations.$inferSelect;

/** How long one run of an operation holds its lease, ms; an expired lease lets another worker take it over. */
export const OPERATION_LEASE_MS = 60_000;

/** A claimed run: the row as claimed and its run number (`attempts`), which guards the finish. */
export interface ClaimedRun {
  op: OperationRow;
  attempt: number;
}

const ENGINE_TYPES_SQL = sql.raw(ENGINE_OPERATION_TYPES.map((t) => `'${t}'`).join(", "));

/**
 * Takes one operation for a run: `queued`, or `running` with an expired lease (its worker died), becomes
 * `running` with a new lease and the next run number. Database clock.
 * @returns the claim, or null when the operation is finished, missing or leased by another worker.
 */
export async function claimOperation(db: Db, id: string, leaseMs = OPERATION_LEASE_MS): Promise<ClaimedRun | null> {
  const [op] = await db
    .update(operations)
    .set({
      status: "running",
      attempts: sql`${operations.attempts} + 1`,
      lockedUntil: sql`now() + ${`${Math.max(1, Math.round(leaseMs))} milliseconds`}::interval`,
    })
    .where(
      and(
        eq(operations.id, id),
        sql`${operations.status} in ('queued', 'running')`,
        sql`${operations.type} in (${ENGINE_TYPES_SQL})`,
        sql`(${operations.lockedUntil} is null or ${operations.lockedUntil} < now())`,
      ),
    )
    .returning();
  return op ? { op, attempt: op.attempts } : null;
}

/**
 * Extends the lease of run `attempt` of operation `id` to `leaseMs` from now (database clock), while that
 * run still owns it (running, same run number): a long run (an article's write) keeps its operation from
 * being taken over; a worker that dies stops renewing, and the lease runs out as for any run.
 * @returns whether the run still owns the operation
 */
export async function renewLease(db: Db, id: string, attempt: number, leaseMs: number): Promise<boolean> {
  const rows = await db
    .update(operations)
    .set({ lockedUntil: sql`now() + ${`${Math.max(1, Math.round(leaseMs))} milliseconds`}::interval` })
    .where(and(eq(operations.id, id), eq(operations.status, "running"), eq(operations.attempts, attempt)))
    .returning({ id: operations.id });
  return rows.length > 0;
}

/**
 * Ids of up to `limit` operations a worker may claim now (queued, or running with an expired lease),
 * oldest first; `FOR UPDATE SKIP LOCKED` keeps workers off each other's rows. Claim each with
 * {@link claimOperation}. `livemode` true or false lists only live or only test-mode operations (each
 * mode has its own lane of workers, issue 76 item 3); without it every mode is listed, live ones first,
 * so test work is never listed ahead of live work.
 */
export async function dueOperationIds(db: Db, limit: number, livemode?: boolean): Promise<string[]> {
  if (limit <= 0) return [];
  const mode = livemode === undefined ? sql`` : sql`and livemode = ${livemode}`;
  const rows = await executePrepared<{ id: string }>(
    db,
    livemode === undefined ? "operations_due_ids" : "operations_due_ids_by_mode",
    sql`
    select id from operations
    where status in ('queued', 'running') and type in (${ENGINE_TYPES_SQL}) ${mode}
      and (locked_until is null or locked_until < now())
    order by livemode desc, created_at
    limit ${limit}
    for update skip locked`,
  );
  return rows.map((r) => r.id);
}

/**
 * The `livemode` of an operation's events: the mode of the data it worked in. A live operation's is live;
 * a test-mode one's is the sandbox's when the tenant has the preview `test-mode` (a sandbox key's), and
 * live otherwise: a test key without the preview works in live data, so its events go to the tenant's
 * live subscriptions as before test mode (the rule authentication gives the actor, issue 69).
 */
async function eventLivemode(db: Db, op: OperationRow): Promise<boolean> {
  if (op.livemode) return true;
  const [t] = await db
    .select({ sandbox: sql<boolean>`'test-mode' = any(${tenants.previews})` })
    .from(tenants)
    .where(eq(tenants.id, op.tenantId));
  return !t?.sandbox;
}

/**
 * What settling `op`'s hold charges for a cost of `costMinor` (settleHold's rule): nothing without an open
 * hold or for a cost of 0 or less, else the cost capped at the hold. RUB minor units. The finish records it
 * on the operation; a run's own resource (a generation job's `usage`) may record it in the same work.
 */
export function chargeOf(op: Pick<OperationRow, "holdOpen" | "holdMinor">, costMinor: bigint): bigint {
  if (!op.holdOpen || costMinor <= 0n) return 0n;
  return costMinor > op.holdMinor ? op.holdMinor : costMinor;
}

/** How a run ended, as {@link finishOperation} records it. */
export interface RunOutcome {
  status: "succeeded" | "failed" | "canceled";
  /** Charged on success (capped at the hold); 0 releases the whole hold. RUB minor units. */
  costMinor: bigint;
  model?: string;
  resource?: { type: string; id: string };
  error?: { code: string; message: string };
}

/**
 * Finishes run `attempt` of an operation in one transaction: `work(tx, op)` writes the result (a reply
 * message, a handoff) and answers the outcome; the hold is charged and released ({@link settleHold}); the
 * row gets its status, `completed_at`, `usage`, `resource`, `error`; `operation.completed` (the Operation
 * envelope) goes to the outbox. Guarded by the run number: when the operation is finished already or was
 * taken over by a later run, nothing is written and null comes back, so a run killed or raced finishes once.
 * The commit wakes the requests waiting on it: this process's right after it (so `db` must be the
 * database, not a transaction: inside one, "after" would come before the outer commit), other processes'
 * by the NOTIFY on `operation_settled` that the transaction sends (operation-settled.ts).
 */
export async function finishOperation(
  db: Db,
  id: string,
  attempt: number,
  work: (tx: Db, op: OperationRow) => Promise<RunOutcome>,
): Promise<Operation | null> {
  const finished = await db.transaction(async (t) => {
    const tx = t as unknown as Db;
    const [op] = await tx
      .select()
      .from(operations)
      .where(and(eq(operations.id, id), eq(operations.status, "running"), eq(operations.attempts, attempt)))
      .for("update");
    if (!op) return null;
    const outcome = await work(tx, op);
    const cost = outcome.status === "succeeded" ? outcome.costMinor : 0n;
    // What settleHold will charge (the row is locked, so its open hold cannot change meanwhile).
    const charged = chargeOf(op, cost);
    const [done] = await tx
      .update(operations)
      .set({
        status: outcome.status,
        completedAt: sql`now()`,
        lockedUntil: null,
        chargedMinor: charged,
        resourceType: outcome.resource?.type ?? null,
        resourceId: outcome.resource?.id ?? null,
        error: outcome.error ?? null,
        usage: outcome.model ? { cost: { amount: formatMinor(charged), currency: "RUB" }, model: outcome.model } : null,
      })
      .where(eq(operations.id, id))
      .returning();
    const envelope = toOperation(done!);
    await recordEvent(tx, {
      tenantId: op.tenantId,
      type: "operation.completed",
      livemode: await eventLivemode(tx, op),
      data: envelope as unknown as Record<string, unknown>,
    });
    // The tenant's wallet row is locked last, so a tenant's operations wait on each other only for the
    // settlement and the commit.
    if ((await settleHold(tx, op, cost)) !== charged) throw new Error(`operation ${id}: the hold settled unexpectedly`);
    // Delivered at the commit, to the waiting requests of every other app process (operation-settled.ts).
    // PostgreSQL takes a database-wide lock when a notifying transaction commits, so finishes commit one at
    // a time: nothing at the rate of AI replies (the key cache's triggers notify the same way).
    await tx.execute(sql`select pg_notify(${OPERATION_SETTLED_CHANNEL}, ${id})`);
    return envelope;
  });
  // Committed: a request of this process waiting on it (`wait`) answers now.
  if (finished) announceOperationSettled(id);
  return finished;
}
