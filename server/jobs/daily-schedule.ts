import type { Db } from "@/db/client";
import { log } from "@/server/log";
import { runKeyExpiryNotices } from "./key-expiry";
import { startRepeating, type Repeating } from "./repeating";
import { runRetention } from "./retention";
import { nowMs } from "@/server/lib/clock";
import { ensureUpcomingPartitions } from "@/server/services/intake/partitions";
import { runStrategistReports } from "@/server/services/strategist/report-writer";

/** Default pause between runs of the daily jobs under the local driver: one hour. */
export const DAILY_JOBS_INTERVAL_MS = 60 * 60 * 1000;

/** A running local schedule of the daily jobs: `stop()` and `idle()` of {@link Repeating}. */
export type DailySchedule = Repeating;

/**
 * The `JOBS_DRIVER=local` timer of the daily jobs (DESIGN "drivers"; under Inngest the cron functions
 * inngest/functions/key-expiry.ts, retention.ts and strategist-reports.ts run them instead): runs
 * {@link runKeyExpiryNotices}, {@link runRetention} (intake's expired partitions dropped with it),
 * {@link ensureUpcomingPartitions} and {@link runStrategistReports} at start and then every
 * `intervalMs` (default one hour). Hourly rather than daily because all are idempotent: a restarted process, or several processes on one database, never send a
 * notice twice or delete anything early, and an hour's delay of a notice or a cleanup is harmless.
 * A failing job is logged; the others still run and the timer goes on. Ticks never overlap
 * ({@link startRepeating}).
 */
export function startDailySchedule(db: Db, opts: { intervalMs?: number } = {}): DailySchedule {
  return startRepeating(async (signal) => {
    try {
      const r = await runKeyExpiryNotices(db);
      if (r.notices.length) log().info({ notices: r.notices.length }, "api_key.expiring notices recorded");
    } catch (err) {
      log().error({ err }, "key expiry job failed");
    }
    if (signal.aborted) return;
    try {
      const r = await runRetention(db);
      if (Object.values(r).some((n) => n > 0)) log().info(r, "retention cleanup done");
    } catch (err) {
      log().error({ err }, "retention job failed");
    }
    if (signal.aborted) return;
    try {
      // Intake's partitions for today and the next two days, so the intake path rarely creates one.
      await ensureUpcomingPartitions(db, nowMs());
    } catch (err) {
      log().error({ err }, "intake partitions job failed");
    }
    if (signal.aborted) return;
    try {
      const r = await runStrategistReports(db);
      if (r.reports) log().info(r, "strategist reports written");
    } catch (err) {
      log().error({ err }, "strategist reports job failed");
    }
  }, opts.intervalMs ?? DAILY_JOBS_INTERVAL_MS);
}
