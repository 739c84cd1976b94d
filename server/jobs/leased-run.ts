import type { Db } from "@/db/client";
import { log } from "@/server/log";
import { ModelUnavailableError } from "@/server/services/ai-seller/language-model";
import { renewLease, type ClaimedRun } from "@/server/services/operations/operation-runs";

/** How a model's work under a lease ended: its result, the deadline, or the model unavailable. */
export type LeasedOutcome<T> = { value: T } | "timeout" | "unavailable";

/**
 * Runs a model's work for a claimed operation (an article's write, a strategist turn), renewing the run's
 * lease every third of `leaseMs` while it works (a killed worker stops renewing, and another takes the
 * operation over once the lease runs out), and giving it up at the operation's deadline.
 * @returns `{value}`; `"timeout"` at the deadline; `"unavailable"` when the work threw (a
 *   ModelUnavailableError, or anything else, which is logged as `what` failing)
 */
export async function runUnderLease<T>(
  db: Db,
  claim: ClaimedRun,
  leaseMs: number,
  what: string,
  work: () => Promise<T>,
): Promise<LeasedOutcome<T>> {
  const { op, attempt } = claim;
  const renew = setInterval(
    () =>
      void renewLease(db, op.id, attempt, leaseMs).catch((err: unknown) =>
        log().warn({ err, operationId: op.id }, `renewing the lease of ${what} failed`),
      ),
    Math.max(100, Math.floor(leaseMs / 3)),
  );
  let late: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work().then((value) => ({ value })),
      new Promise<"timeout">((resolve) => {
        late = setTimeout(() => resolve("timeout"), Math.max(0, op.deadlineAt.getTime() - Date.now()));
      }),
    ]);
  } catch (err) {
    if (!(err instanceof ModelUnavailableError)) log().error({ err, operationId: op.id }, `${what} failed`);
    return "unavailable";
  } finally {
    clearInterval(renew);
    clearTimeout(late);
  }
}
