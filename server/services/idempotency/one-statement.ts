import { sql, type SQL } from "drizzle-orm";
import type { WithSubqueryWithoutSelection } from "drizzle-orm/subquery";
import type { Db } from "@/db/client";
import { idempotencyRecords } from "@/db/schema";
import { nowMs } from "@/server/lib/clock";
import { hasErrorCode } from "@/server/lib/error-codes";
import { completionUpdate, completionValues, type IdempotencyScope } from "./idempotency";

/**
 * The idempotency record of a one-statement write (a `oneStatement` route under an `Idempotency-Key`),
 * bound to the answer the route will give (status and resource type): {@link cte} goes into the write's
 * WITH clause, {@link values} into its placeholders, and the write's insert takes its row's id from
 * {@link resourceId}, the id the record names. So the change and its record commit together, without
 * BEGIN and COMMIT, and the change is made only when the record was: where the CTE changes no row, the
 * id is NULL and the insert fails on its primary key, leaving no trace (issue 22).
 * - `first-use`: the key's first use. One statement in all: the CTE inserts the record already completed;
 *   a key used before conflicts, inserts nothing, and the write fails ({@link isKeyUsedBefore}).
 * - `complete`: a record that `beginIdempotency` started (a repeat after a failure, a key older than the
 *   window, an operation taken over): the CTE marks it completed.
 * The SQL is the same for every record of one kind, so it fits a prepared statement named after the kind.
 */
export interface RecordCompletion {
  readonly kind: "first-use" | "complete";
  /** The data-modifying CTE on `db`, named `idempotency_completion`; its placeholders are `idem_*`. */
  cte(db: Db): WithSubqueryWithoutSelection<"idempotency_completion">;
  /** `(select resource_id from idempotency_completion)`: text; cast it to the id column's type. */
  readonly resourceId: SQL;
  /** The placeholders' values, naming the resource by `resourceId` (drawn before the statement runs). */
  values(resourceId: string): Record<string, unknown>;
}

/**
 * What a `oneStatement` route's handler gets under an `Idempotency-Key`: {@link bind} gives the
 * {@link RecordCompletion} for its answer; `taken` tells the pipeline whether the handler used it (when
 * not, the pipeline writes the record after the handler, in a statement of its own).
 */
export interface IdempotencyCompletion {
  bind(status: number, resourceType: string): RecordCompletion;
  readonly taken: boolean;
}

const RESOURCE_ID = sql`(select ${sql.identifier("resource_id")} from ${sql.identifier("idempotency_completion")})`;

/** The insert of a record already completed, its values as placeholders (see {@link firstUseValues}). */
function firstUseInsert(db: Db) {
  const at = sql`${sql.placeholder("idem_at")}::timestamptz`;
  return db
    .insert(idempotencyRecords)
    .values({
      tenantId: sql.placeholder("idem_tenant"),
      livemode: sql`${sql.placeholder("idem_livemode")}::boolean`,
      keyMode: sql.placeholder("idem_key_mode"),
      scope: sql.placeholder("idem_scope"),
      idempotencyKey: sql.placeholder("idem_key"),
      fingerprint: sql.placeholder("idem_fingerprint"),
      state: "completed",
      responseStatus: sql`${sql.placeholder("idem_status")}::integer`,
      resourceType: sql`${sql.placeholder("idem_resource_type")}::text`,
      resourceId: sql`${sql.placeholder("idem_resource_id")}::text`,
      lockedUntil: at,
      createdAt: at,
      completedAt: at,
    })
    .onConflictDoNothing()
    .returning({ resourceId: idempotencyRecords.resourceId });
}

function firstUseValues(
  s: IdempotencyScope,
  status: number,
  resource: { type: string; id: string } | undefined,
): Record<string, unknown> {
  return {
    idem_tenant: s.tenantId,
    idem_livemode: s.livemode,
    idem_key_mode: s.keyMode,
    idem_scope: s.scope,
    idem_key: s.key,
    idem_fingerprint: s.fingerprint,
    idem_status: status,
    idem_resource_type: resource?.type ?? null,
    idem_resource_id: resource?.id ?? null,
    idem_at: new Date(nowMs()).toISOString(),
  };
}

const firstUseCte = (db: Db) => db.$with("idempotency_completion").as(firstUseInsert(db));
const completionCte = (db: Db) => db.$with("idempotency_completion").as(completionUpdate(db));

function boundCompletion(
  kind: RecordCompletion["kind"],
  values: (status: number, resource: { type: string; id: string }) => Record<string, unknown>,
): IdempotencyCompletion {
  let taken = false;
  return {
    bind: (status, resourceType) => ({
      kind,
      cte: kind === "first-use" ? firstUseCte : completionCte,
      resourceId: RESOURCE_ID,
      values(resourceId) {
        taken = true;
        return values(status, { type: resourceType, id: resourceId });
      },
    }),
    get taken() {
      return taken;
    },
  };
}

/** The first use of the key in `s`, recorded by the write itself; see {@link RecordCompletion}. */
export function firstUseCompletion(s: IdempotencyScope): IdempotencyCompletion {
  return boundCompletion("first-use", (status, resource) => firstUseValues(s, status, resource));
}

/** The completion of record `recordId` (started by `beginIdempotency`) by the write itself. */
export function idempotencyCompletion(recordId: string): IdempotencyCompletion {
  return boundCompletion("complete", (status, resource) => completionValues(recordId, status, resource));
}

/**
 * Records the key's first use in a statement of its own, after a handler that did not take its
 * {@link IdempotencyCompletion}; a record that exists by then is left as it is.
 * @returns false when the key had a record already (nothing was written)
 */
export async function recordFirstUse(
  db: Db,
  s: IdempotencyScope,
  status: number,
  resource?: { type: string; id: string },
): Promise<boolean> {
  const rows = await firstUseInsert(db)
    .prepare("idempotency_first_use")
    .execute(firstUseValues(s, status, resource));
  return rows.length > 0;
}

/**
 * Whether a one-statement write failed because its record's CTE changed no row (the id it takes from the
 * record was NULL): for `first-use`, the key was used before, and the pipeline then takes the full path.
 */
export function isKeyUsedBefore(err: unknown): boolean {
  return hasErrorCode(err, "23502"); // not_null_violation
}
