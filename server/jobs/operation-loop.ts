import type { Db } from "@/db/client";
import type { LanguageModel } from "@/server/services/ai-seller/language-model";
import { claimOperation, dueOperationIds, OPERATION_LEASE_MS } from "@/server/services/operations/operation-runs";
import { startClaimLoop, type ClaimLoop } from "./claim-loop";
import { runOperation } from "./run-operation";

/** A running loop of operation steps: `wake()` claims now, `stop()` resolves once the steps in flight end. */
export type OperationLoop = ClaimLoop;

/** Options of {@link startOperationLoop}. */
export interface OperationLoopOptions {
  /** Live operation steps in flight at most; default 8. */
  concurrency?: number;
  /**
   * Test-mode operation steps in flight at most, in their own lane beside the live one; default a quarter
   * of `concurrency` (at least 1).
   */
  testConcurrency?: number;
  /** Pause between polls when nothing was due, ms; default 200. */
  pollMs?: number;
  /** Lease taken per claimed operation, ms; default {@link OPERATION_LEASE_MS}. */
  leaseMs?: number;
  /** The model of live operations; default the process's (`AI_PROVIDER`). */
  model?: LanguageModel;
  /** The offline model of test-mode operations; default the `catalog` model (tests slow it down). */
  offlineModel?: LanguageModel;
}

/**
 * The local driver's operations part: finds due operations (queued, or running with an expired lease),
 * claims each (a lease, FOR UPDATE SKIP LOCKED among workers) and runs {@link runOperation}; polls every
 * `pollMs` and at once when woken (an operation was queued).
 *
 * Live and test-mode operations run in two lanes, each with its own worker budget (issue 76 item 3): live
 * ones at most `concurrency` at a time, test-mode ones (a test key's, which hold and charge nothing) at
 * most `testConcurrency`, claimed by a loop of their own that lists only them. However many test-mode
 * operations are queued, a live one never waits for a slot behind them.
 */
export function startOperationLoop(db: Db, opts: OperationLoopOptions = {}): OperationLoop {
  const leaseMs = opts.leaseMs ?? OPERATION_LEASE_MS;
  const concurrency = Math.max(1, opts.concurrency ?? 8);
  const lane = (livemode: boolean, slots: number) =>
    startClaimLoop({
      concurrency: slots,
      pollMs: opts.pollMs ?? 200,
      async claim(free, start) {
        let started = 0;
        for (const id of await dueOperationIds(db, free, livemode)) {
          // Another worker may have claimed it since it was listed.
          const claim = await claimOperation(db, id, leaseMs);
          if (!claim) continue;
          started++;
          start(() => runOperation(db, id, { claim, leaseMs, model: opts.model, offlineModel: opts.offlineModel }), {
            operationId: id,
            livemode,
          });
        }
        return started > 0;
      },
      messages: { jobFailed: "operation step failed", claimFailed: "claiming operations failed" },
    });
  const live = lane(true, concurrency);
  const test = lane(false, Math.max(1, opts.testConcurrency ?? Math.floor(concurrency / 4)));
  return {
    wake() {
      live.wake();
      test.wake();
    },
    async stop() {
      await Promise.all([live.stop(), test.stop()]);
    },
  };
}
