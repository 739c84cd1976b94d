import type { Db } from "@/db/client";
import { log } from "@/server/log";
import { rollupIntake } from "@/server/services/analytics/rollup";
import { startRepeating, type Repeating } from "./repeating";

/** Default pause between two runs of the intake rollup job under the local driver, ms. */
export const ROLLUP_INTERVAL_MS = 1_000;

/**
 * The local driver's timer of the intake rollup job (issue 74 item 4; under Inngest the cron function
 * inngest/functions/intake-rollup.ts runs it instead): {@link rollupIntake} at start and then every
 * `intervalMs` (default {@link ROLLUP_INTERVAL_MS}), never two runs of this process at once. Any number of
 * processes may run it on one database (the job locks its state row). Cheap when nothing is new (one
 * index probe). A failure is logged and the next tick tries again: nothing is lost, the watermark did not move.
 */
export function startRollupLoop(db: Db, opts: { intervalMs?: number } = {}): Repeating {
  return startRepeating(async () => {
    try {
      await rollupIntake(db);
    } catch (err) {
      log().error({ err }, "intake rollup failed");
    }
  }, opts.intervalMs ?? ROLLUP_INTERVAL_MS);
}
