import { sql } from "drizzle-orm";
import type { Db } from "./client";
import { rowsOf } from "./rows";

/**
 * How far a table may grow past the size its statistics were taken at before it is analyzed again: 10 %
 * (autovacuum's default `autovacuum_analyze_scale_factor`) plus 4 pages (32 KB), so that tiny tables are not
 * analyzed for every few rows.
 */
export const GROWTH = { factor: 1.1, pages: 4 } as const;

/**
 * Runs `ANALYZE` on every table of the current schema that has grown past {@link GROWTH} since its
 * statistics were taken (pages on disk against `pg_class.relpages`, which `ANALYZE` sets; a table never
 * analyzed counts from 0), and answers their names in order.
 *
 * Why (issue 22): PGlite runs no autovacuum, so in the embedded database nothing else ever refreshes the
 * planner's statistics, and the generic plan a prepared statement caches while a table is small stays in use
 * however large the table grows. A cards page planned while the tenant had 50 cards kept a sequential scan
 * and a sort of the whole table after thousands more were added (17 against 400 req/s in the bench); `ANALYZE`
 * invalidates the cached plans that read the table, so the next run plans with the index again. On PostgreSQL
 * autovacuum does this; `npm run bench` calls this function on its own database when the server's autovacuum
 * is off. Size is the measure (PGlite keeps no row counts in `pg_stat_user_tables`), so a table whose rows are
 * replaced without growing is not analyzed again, and on PostgreSQL an `ANALYZE` made while a large insert is
 * still in flight records the new size without those rows until the table grows again.
 *
 * Each table is analyzed in its own transaction, so on PGlite, whose work runs in the app's thread, requests
 * are answered between two tables. `statisticsTarget` bounds the work: `ANALYZE` samples 300 rows per unit of
 * `default_statistics_target` (30,000 at PostgreSQL's default of 100), which on PGlite took 80-210 ms for a
 * `request_log` of 20,000-200,000 rows, the app's thread stopped all that time (600 ms stalls under the
 * bench's load); at 10 (3,000 rows) it took 13-27 ms. A fresh sample at that size is enough for what the
 * check is for: the tables' sizes and the cached plans made again.
 * @param opts.statisticsTarget `default_statistics_target` for these `ANALYZE`s (1-10000, `SET LOCAL`);
 *   the server's own setting when omitted
 * @returns the analyzed tables' names, quoted as identifiers
 * @throws RangeError when `statisticsTarget` is not an integer in 1-10000
 */
export async function analyzeGrownTables(db: Db, opts: { statisticsTarget?: number } = {}): Promise<string[]> {
  const target = opts.statisticsTarget;
  if (target !== undefined && !(Number.isInteger(target) && target >= 1 && target <= 10000))
    throw new RangeError(`statisticsTarget must be an integer in 1-10000, got ${target}`);
  const due = rowsOf<{ name: string }>(
    await db.execute(sql`
      select quote_ident(c.relname) as name
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind = 'r'
        and pg_relation_size(c.oid) / current_setting('block_size')::int
          > greatest(c.relpages, 0) * ${GROWTH.factor}::float8 + ${GROWTH.pages}
      order by c.relname`),
  );
  for (const { name } of due)
    await db.transaction(async (tx) => {
      if (target !== undefined) await tx.execute(sql.raw(`set local default_statistics_target = ${target}`));
      await tx.execute(sql.raw(`analyze ${name}`));
    });
  return due.map((r) => r.name);
}
