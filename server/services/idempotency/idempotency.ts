import { and, eq, lte, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { preparedQuery } from "@/db/prepared";
import { idempotencyRecords } from "@/db/schema";
import { ApiError } from "@/server/errors";
import { nowMs } from "@/server/lib/clock";

/** Idempotency window, ms (spec "Limits": 24 hours from the first request). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** How long a running operation holds its key before another request may take it over, ms. */
export const IDEMPOTENCY_LOCK_MS = 30_000;

/** Longest accepted `Idempotency-Key`, characters. */
export const IDEMPOTENCY_KEY_MAX = 255;

/**
 * Where a key is unique and what it stands for: keys are per integration (two integrations of a tenant
 * may pick the same key) and per mode (a key used in the sandbox never replays in live data nor the other
 * way round: issue 69), and the fingerprint covers the method, the concrete path and the body, so the
 * same key on another route or another resource is a different request (409), also for routes without a body.
 */
export interface IdempotencyScope {
  tenantId: string;
  /** The actor's mode (`livemodeOf(actor)`): false = the tenant's sandbox. */
  livemode: boolean;
  keyMode: string;
  /** `integration:<id>`: the namespace of the caller's keys. */
  scope: string;
  key: string;
  /** Hex SHA-256 of the request: method, concrete path and canonical body. */
  fingerprint: string;
}

export type Begin =
  | { kind: "new"; recordId: string }
  | { kind: "replay"; status: number; resourceType: string | null; resourceId: string | null };

/**
 * Starts an idempotent operation or finds the earlier one (spec "Limits: idempotency rules").
 * @returns `new` (run the handler, then {@link completeIdempotency}) or `replay` (rebuild the answer).
 * @throws ApiError 409 `idempotency_conflict` for the same key with another body; 409
 *   `operation_in_progress` (Retry-After: 1) while the first request is still running.
 */
export async function beginIdempotency(db: Db, s: IdempotencyScope): Promise<Begin> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const now = nowMs();
    // Every write with a key starts here, on the root handle: built once (db/prepared.ts).
    const inserted = await preparedQuery(db, "idempotency:begin", (d) =>
      d
        .insert(idempotencyRecords)
        .values({
          tenantId: sql.placeholder("tenantId"),
          livemode: sql`${sql.placeholder("livemode")}::boolean`,
          keyMode: sql.placeholder("keyMode"),
          scope: sql.placeholder("scope"),
          idempotencyKey: sql.placeholder("key"),
          fingerprint: sql.placeholder("fingerprint"),
          lockedUntil: sql`${sql.placeholder("lockedUntil")}::timestamptz`,
          createdAt: sql`${sql.placeholder("createdAt")}::timestamptz`,
        })
        .onConflictDoNothing()
        .returning({ id: idempotencyRecords.id }),
    ).execute({
      ...s,
      lockedUntil: new Date(now + IDEMPOTENCY_LOCK_MS).toISOString(),
      createdAt: new Date(now).toISOString(),
    });
    if (inserted[0]) return { kind: "new", recordId: inserted[0].id };

    const where = and(
      eq(idempotencyRecords.tenantId, s.tenantId),
      eq(idempotencyRecords.livemode, s.livemode),
      eq(idempotencyRecords.keyMode, s.keyMode),
      eq(idempotencyRecords.scope, s.scope),
      eq(idempotencyRecords.idempotencyKey, s.key),
    );
    const [rec] = await db.select().from(idempotencyRecords).where(where);
    if (!rec) continue; // removed in between: try the insert again
    if (rec.createdAt.getTime() + IDEMPOTENCY_WINDOW_MS <= now) {
      // Older than the window: the key starts a new operation.
      await db
        .delete(idempotencyRecords)
        .where(
          and(
            eq(idempotencyRecords.id, rec.id),
            lte(idempotencyRecords.createdAt, new Date(now - IDEMPOTENCY_WINDOW_MS)),
          ),
        );
      continue;
    }
    if (rec.fingerprint !== s.fingerprint) {
      throw new ApiError(
        "idempotency_conflict",
        "This Idempotency-Key was used with a different request body; use a new key.",
      );
    }
    if (rec.state === "completed") {
      return {
        kind: "replay",
        status: rec.responseStatus ?? 200,
        resourceType: rec.resourceType,
        resourceId: rec.resourceId,
      };
    }
    if (rec.lockedUntil.getTime() > now) {
      throw new ApiError(
        "operation_in_progress",
        "A request with this Idempotency-Key is still running; retry after a pause.",
        {},
        { "retry-after": "1" },
      );
    }
    // The first request died while running: take the operation over.
    const taken = await db
      .update(idempotencyRecords)
      .set({ lockedUntil: new Date(now + IDEMPOTENCY_LOCK_MS) })
      .where(
        and(
          eq(idempotencyRecords.id, rec.id),
          eq(idempotencyRecords.state, "running"),
          lte(idempotencyRecords.lockedUntil, new Date(now)),
        ),
      )
      .returning({ id: idempotencyRecords.id });
    if (taken[0]) return { kind: "new", recordId: taken[0].id };
  }
  throw new ApiError(
    "operation_in_progress",
    "A request with this Idempotency-Key is still running; retry after a pause.",
    {},
    { "retry-after": "1" },
  );
}

/** How often a running operation renews its lock, ms: well inside {@link IDEMPOTENCY_LOCK_MS}. */
export const IDEMPOTENCY_RENEW_EVERY_MS = IDEMPOTENCY_LOCK_MS / 3;

/**
 * Extends the lock of an operation that is still running, so a request that runs longer than the lock is
 * never taken over and run a second time by a retry. A record no longer running is left alone.
 */
export async function renewIdempotencyLock(db: Db, recordId: string): Promise<void> {
  await db
    .update(idempotencyRecords)
    .set({ lockedUntil: new Date(nowMs() + IDEMPOTENCY_LOCK_MS) })
    .where(and(eq(idempotencyRecords.id, recordId), eq(idempotencyRecords.state, "running")));
}

/**
 * The update that marks a record completed, its values as placeholders (see {@link completionValues}): one
 * definition for {@link completeIdempotency} and the CTE of a one-statement write (./one-statement.ts). It
 * returns the resource id it recorded, which that write's insert takes as its row's id.
 */
export function completionUpdate(db: Db) {
  return db
    .update(idempotencyRecords)
    .set({
      state: "completed",
      // SQL, not bare placeholders: drizzle's types take no placeholder in `set`.
      responseStatus: sql`${sql.placeholder("idem_status")}::integer`,
      resourceType: sql`${sql.placeholder("idem_resource_type")}::text`,
      resourceId: sql`${sql.placeholder("idem_resource_id")}::text`,
      completedAt: sql`${sql.placeholder("idem_completed_at")}::timestamptz`,
    })
    .where(eq(idempotencyRecords.id, sql.placeholder("idem_record")))
    .returning({ resourceId: idempotencyRecords.resourceId });
}

/** The placeholders of {@link completionUpdate}: record `recordId` answered `status` with `resource`. */
export function completionValues(
  recordId: string,
  status: number,
  resource: { type: string; id: string } | undefined,
): Record<string, unknown> {
  return {
    idem_record: recordId,
    idem_status: status,
    idem_resource_type: resource?.type ?? null,
    idem_resource_id: resource?.id ?? null,
    idem_completed_at: new Date(nowMs()).toISOString(),
  };
}

/** Marks the operation done, in the handler's transaction, with a reference to what it made. */
export async function completeIdempotency(
  tx: Db,
  recordId: string,
  status: number,
  resource?: { type: string; id: string },
): Promise<void> {
  // Built per call: a transaction is a handle of its own, so a cached statement would not be reused.
  await completionUpdate(tx)
    .prepare("idempotency_complete")
    .execute(completionValues(recordId, status, resource));
}

/** Forgets a failed operation, so a refused request leaves no trace and the key can be retried. */
export async function abandonIdempotency(db: Db, recordId: string): Promise<void> {
  await db
    .delete(idempotencyRecords)
    .where(and(eq(idempotencyRecords.id, recordId), eq(idempotencyRecords.state, "running")));
}
