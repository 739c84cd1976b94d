import type { Db } from "@/db/client";
import type { DeliveryClient } from "@/server/webhook-transport/delivery-client";
import { attemptDelivery, DEFAULT_LEASE_MS } from "./attempt-delivery";
import { claimDueDeliveries } from "@/server/services/webhooks/delivery-queue";
import { registerWorkListener } from "@/server/services/events/work-notifier";
import type { LanguageModel } from "@/server/services/ai-seller/language-model";
import { startClaimLoop } from "./claim-loop";
import { startOperationLoop } from "./operation-loop";
import { startRollupLoop } from "./rollup-loop";

/** Options of {@link startLocalDriver}. */
export interface LocalDriverOptions {
  /** Attempts in flight at most; default 16. */
  concurrency?: number;
  /** Pause between polls when nothing was due, ms; default 200. */
  pollMs?: number;
  /** Lease taken per claimed delivery, ms; default 60 s. */
  leaseMs?: number;
  /** HTTP client for attempts; default the process-wide one. */
  client?: DeliveryClient;
  /** Live operation steps in flight at most; default 8. */
  operationConcurrency?: number;
  /** Test-mode operation steps in flight at most, a lane of their own; default a quarter of the live ones. */
  testOperationConcurrency?: number;
  /** The AI seller's language model for operations; default the process's (`AI_PROVIDER`). */
  model?: LanguageModel;
  /** Pause between runs of the intake rollup job, ms; default 1,000 (./rollup-loop.ts). */
  rollupMs?: number;
}

/** A running local driver. */
export interface LocalDriver {
  /** Stops claiming and resolves once the attempts in flight have been recorded. */
  stop(): Promise<void>;
  /** Polls now instead of after the pause (new deliveries were queued, a wallet resumed). */
  wake(): void;
}

/**
 * The `JOBS_DRIVER=local` worker (DESIGN "drivers"): claims due deliveries with claimDueDeliveries (fairly:
 * at most 4 in flight per subscription, in turns across tenants; issue 75 item 5) and runs attemptDelivery
 * on each, at most `concurrency` at a time (./claim-loop.ts), and runs due operations (operation-loop.ts,
 * runOperation: live and test-mode ones in lanes of their own), and adds new intake events
 * to the analytics rollups every second (rollup-loop.ts). Started in the app process by
 * server/http-server.ts and standalone by `npm run worker`; any number may share one database. A step
 * that throws (database trouble) is logged; its lease expires and the row is claimed again.
 */
export function startLocalDriver(db: Db, opts: LocalDriverOptions = {}): LocalDriver {
  const pollMs = opts.pollMs ?? 200;
  const leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
  const deliveries = startClaimLoop({
    concurrency: Math.max(1, opts.concurrency ?? 16),
    pollMs,
    async claim(free, start) {
      const rows = await claimDueDeliveries(db, { limit: free, leaseMs });
      for (const r of rows)
        start(() => attemptDelivery(db, r.id, new Date(), { lease: r.lockedUntil, client: opts.client }), {
          deliveryId: r.id,
        });
      // A full batch means more may be due: go again at once.
      return rows.length === free;
    },
    messages: { jobFailed: "webhook delivery step failed", claimFailed: "claiming webhook deliveries failed" },
  });
  // Paid operations (runOperation) run beside the deliveries, claimed with leases the same way.
  const ops = startOperationLoop(db, {
    concurrency: opts.operationConcurrency,
    testConcurrency: opts.testOperationConcurrency,
    pollMs,
    model: opts.model,
  });
  const rollups = startRollupLoop(db, { intervalMs: opts.rollupMs });
  // Deliveries queued by a write, or resumed by a top-up, in this process wake the driver (server/services/events/work-notifier.ts).
  const unregister = registerWorkListener({
    deliveriesDue: deliveries.wake,
    exchangeResumed: deliveries.wake,
    operationsDue: ops.wake,
  });

  return {
    wake() {
      deliveries.wake();
      ops.wake();
    },
    async stop() {
      unregister();
      await Promise.all([deliveries.stop(), ops.stop(), rollups.stop()]);
    },
  };
}
