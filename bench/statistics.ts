import { sql } from "drizzle-orm";
import { analyzeGrownTables } from "@/db/analyze-grown-tables";
import { openDatabase, type Database } from "@/db/client";
import { rowsOf } from "@/db/rows";

/** What {@link statisticsKeeper} answers: `afterScenario` after each load, `close` at the end. */
export interface StatisticsKeeper {
  afterScenario(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Keeps the bench database's planner statistics as autovacuum would: this project's machines run
 * PostgreSQL with `autovacuum` off, so the rows a write scenario adds (`POST /cards`: thousands of cards in a
 * tenant seeded with 50) were never analyzed, and a read measured after it ran on the generic plan cached
 * while the table was small (a cards page at 8-20 req/s against 340-450 in `--compare` rounds, 2026-11-28).
 * After each scenario the tables that grew are analyzed (db/analyze-grown-tables.ts), which autovacuum would
 * have done within its minute. Does nothing when autovacuum is on, or for the embedded database (the app
 * analyzes PGlite itself: server/jobs/analyze-schedule.ts).
 * @param dbUrl the bench database on PostgreSQL, or null for an embedded run
 */
export function statisticsKeeper(dbUrl: string | null, log: (m: string) => void): StatisticsKeeper {
  let opened: Promise<Database | null> | undefined;
  const open = async () => {
    const d = await openDatabase({ url: dbUrl!, poolSize: 1 });
    const [row] = rowsOf<{ autovacuum: string }>(await d.db.execute(sql`show autovacuum`));
    if (row?.autovacuum === "on") {
      await d.close();
      return null;
    }
    return d;
  };
  return {
    async afterScenario() {
      if (!dbUrl) return;
      const d = await (opened ??= open());
      if (!d) return;
      const tables = await analyzeGrownTables(d.db);
      if (tables.length) log(`  analyzed ${tables.join(", ")}, which grew (autovacuum is off on this server)`);
    },
    async close() {
      // A connection that never opened (the run failed before its first scenario) has nothing to close.
      await (await opened?.catch(() => null))?.close();
    },
  };
}
