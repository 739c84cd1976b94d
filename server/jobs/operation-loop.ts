import type { Db } from "@/db/client";
import type { LanguageModel } from "@/server/services/ai-seller/language-model";
import { claimOperation, dueOperationIds, OPERATION_LEASE_MS } from "@/server/services/operations/operation-runs";
import { startClaimLoop, type ClaimLoop } from "./claim-loop";
import { runOperation } from "./run-operation";

/** A running loop of operation steps: `wake()` claims now, `stop()` resolves once the steps in flight end. */
export type OperationLoop = ClaimLoop;

/**
 * The local driver's operations part: finds due operations (queued, or running with an expired lease),
 * claims each (a lease, FOR UPDATE SKIP LOCKED among workers) and runs {@link runOperation}, at most
 * `concurrency` at a time; polls every `pollMs` and at once when woken (an operation was queued).
 */
export function startOperationLoop(
  db: Db,
  opts: { concurrency?: number; pollMs?: number; leaseMs?: number; model?: LanguageModel } = {},
): OperationLoop {
  const leaseMs = opts.leaseMs ?? OPERATION_LEASE_MS;
  return startClaimLoop({
    concurrency: Math.max(1, opts.concurrency ?? 8),
    pollMs: opts.pollMs ?? 200,
    async claim(free, start) {
      let started = 0;
      for (const id of await dueOperationIds(db, free)) {
        // Another worker may have claimed it since it was listed.
        const claim = await claimOperation(db, id, leaseMs);
        if (!claim) continue;
        started++;
        start(() => runOperation(db, id, { claim, model: opts.model }), { operationId: id });
      }
      return started > 0;
    },
    messages: { jobFailed: "operation step failed", claimFailed: "claiming operations failed" },
  });
}
