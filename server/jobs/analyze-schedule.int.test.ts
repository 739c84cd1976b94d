import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leads } from "@/db/schema";
import { rowsOf } from "@/db/rows";
import { makeTenant } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { EMBEDDED_STATISTICS_TARGET, startAnalyzeSchedule } from "./analyze-schedule";

describe("startAnalyzeSchedule (the embedded database's analyze)", () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(() => database.drop());

  const leadStats = async () =>
    rowsOf<{ tuples: number }>(
      await database.db.execute(sql`select reltuples::int as tuples from pg_class where oid = 'leads'::regclass`),
    )[0]!.tuples;

  it("refreshes the statistics of a table that grew when it checks", async () => {
    const { tenantId } = await makeTenant(database.db);
    const add = (n: number) =>
      database.db.execute(sql`
        insert into ${leads} (tenant_id, status, title, source, owner)
        select ${tenantId}::uuid, 'new', 'Lead ' || g, 'schedule-test', 'internal' from generate_series(1, ${n}::int) g`);
    await add(1_000);
    expect(await leadStats()).toBeLessThan(1_000);

    // Growth between ticks, not during one: on PostgreSQL an ANALYZE running while an insert is in flight takes
    // the table's new size without its uncommitted rows (PGlite runs one statement at a time).
    const first = startAnalyzeSchedule(database.db, { intervalMs: 60_000 });
    await first.stop(); // resolves after the check made at start
    expect(await leadStats()).toBe(1_000);

    await add(1_000);
    const again = startAnalyzeSchedule(database.db, { intervalMs: 60_000 });
    await again.stop();
    expect(await leadStats()).toBe(2_000);
    // Samples of EMBEDDED_STATISTICS_TARGET's size: a histogram of at most 11 bounds over 2,000 distinct titles.
    const bounds = rowsOf<{ n: number }>(
      await database.db.execute(sql`
        select array_length(histogram_bounds, 1)::int as n
        from pg_stats where schemaname = current_schema() and tablename = 'leads' and attname = 'title'`),
    )[0]!.n;
    expect(bounds).toBeGreaterThan(1);
    expect(bounds).toBeLessThanOrEqual(EMBEDDED_STATISTICS_TARGET + 1);
  });
});
