import type { Db } from "@/db/client";
import { analyzeGrownTables } from "@/db/analyze-grown-tables";
import { log } from "@/server/log";
import { startRepeating, type Repeating } from "./repeating";

/** Pause between checks for grown tables in the embedded database, ms: autovacuum's default naptime (1 min). */
export const ANALYZE_INTERVAL_MS = 60 * 1000;

/**
 * `default_statistics_target` of the embedded database's analyze: samples of 3,000 rows, so one table's
 * `ANALYZE` holds the app's thread for tens of ms, not hundreds (db/analyze-grown-tables.ts says why).
 */
export const EMBEDDED_STATISTICS_TARGET = 10;

/** A running {@link startAnalyzeSchedule}: `stop()` and `idle()` of {@link Repeating}. */
export type AnalyzeSchedule = Repeating;

/**
 * The embedded database's stand-in for autovacuum's analyze (PGlite has none): runs
 * {@link analyzeGrownTables} at start and then every `intervalMs` (default {@link ANALYZE_INTERVAL_MS}), so the planner's
 * statistics and the cached plans of prepared statements follow the tables as they grow. Started by the app
 * (server/http-server.ts) when it opened PGlite; not on PostgreSQL, where autovacuum is the server's. A failed
 * check is logged and the timer goes on.
 */
export function startAnalyzeSchedule(db: Db, opts: { intervalMs?: number } = {}): AnalyzeSchedule {
  return startRepeating(async () => {
    try {
      const started = performance.now();
      const tables = await analyzeGrownTables(db, { statisticsTarget: EMBEDDED_STATISTICS_TARGET });
      const durationMs = Math.round(performance.now() - started);
      if (tables.length) log().info({ tables, duration_ms: durationMs }, "embedded database: statistics refreshed");
    } catch (err) {
      log().error({ err }, "embedded database: analyze failed");
    }
  }, opts.intervalMs ?? ANALYZE_INTERVAL_MS);
}
