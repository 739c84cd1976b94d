import type { Db } from "@/db/client";
import { log } from "@/server/log";
import { runKeyExpiryNotices } from "./key-expiry";
import { runRetention } from "./retention";

/** Default pause between runs of the daily jobs under the local driver: one hour. */
export const DAILY_JOBS_INTERVAL_MS = 60 * 60 * 1000;

/** A running local schedule of the daily jobs. */
export interface DailySchedule {
  /** Stops the timer and resolves once a run in progress has finished. */
  stop(): Promise<void>;
  /** Resolves when the current (or first) run is over; for tests and orderly shutdown. */
  idle(): Promise<void>;
}

/**
 * The `JOBS_DRIVER=local` timer of the daily jobs (DESIGN "drivers"; under Inngest the cron functions
 * inngest/functions/key-expiry.ts and retention.ts run them instead): runs {@link runKeyExpiryNotices} and
 * {@link runRetention} at start and then every `intervalMs` (default one hour). Hourly rather than daily
 * because both are idempotent: a restarted process, or several processes on one database, never send a
 * notice twice or delete anything early, and an hour's delay of a notice or a cleanup is harmless.
 * A failing job is logged; the other one still runs and the timer goes on.
 */
export function startDailySchedule(db: Db, opts: { intervalMs?: number } = {}): DailySchedule {
  const intervalMs = opts.intervalMs ?? DAILY_JOBS_INTERVAL_MS;
  let stopped = false;
  let current: Promise<void> = Promise.resolve();

  const runOnce = async () => {
    try {
      const r = await runKeyExpiryNotices(db);
      if (r.notices.length) log().info({ notices: r.notices.length }, "api_key.expiring notices recorded");
    } catch (err) {
      log().error({ err }, "key expiry job failed");
    }
    if (stopped) return;
    try {
      const r = await runRetention(db);
      if (r.webhookDeliveries || r.events || r.idempotencyRecords || r.requestLog)
        log().info(r, "retention cleanup done");
    } catch (err) {
      log().error({ err }, "retention job failed");
    }
  };
  let running = false;
  const tick = () => {
    // A run still going (a huge backlog) is not doubled up or queued behind by the next tick.
    if (running || stopped) return;
    running = true;
    current = runOnce().finally(() => {
      running = false;
    });
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref?.();

  return {
    idle: () => current,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await current;
    },
  };
}
