import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTenant } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { analyzeGrownTables } from "./analyze-grown-tables";
import { openDatabase, type Db } from "./client";
import { leads } from "./schema";
import { rowsOf } from "./rows";

// Issue 22: the embedded database has no autovacuum, so a prepared statement's generic plan made while a table
// was small stayed in use after the table grew; analyzeGrownTables refreshes the statistics, which makes
// PostgreSQL (and PGlite) plan such statements again.
describe("analyzeGrownTables", () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let one: { db: Db; close(): Promise<void> };
  let tenantId: string;
  const addLeads = (count: number) =>
    database.db.execute(sql`
      insert into ${leads} (tenant_id, status, title, source, owner, created_at, updated_at)
      select ${tenantId}::uuid, 'new', 'Lead ' || g, 'analyze-test', 'internal',
             now() - make_interval(mins => g), now() - make_interval(mins => g)
      from generate_series(1, ${count}::int) as g`);
  const plan = async () =>
    rowsOf<Record<string, string>>(await one.db.execute(sql.raw(`explain execute page('${tenantId}')`)))
      .map((r) => Object.values(r)[0])
      .join("\n");

  beforeAll(async () => {
    database = await openTestDatabase();
    // PREPARE lives on one connection: PGlite has one, PostgreSQL gets a pool of one.
    one = database.url ? await openDatabase({ url: database.url, poolSize: 1 }) : database;
    tenantId = (await makeTenant(database.db)).tenantId;
  });
  afterAll(async () => {
    if (one !== database) await one.close();
    await database.drop();
  });

  it("analyzes the tables that grew, once, and the cached plan of a grown table is made again", async () => {
    await analyzeGrownTables(database.db); // whatever the migrations and fixtures left
    await addLeads(40);
    expect(await analyzeGrownTables(database.db)).toEqual([]); // 40 short rows: under 4 pages of growth
    await database.db.execute(sql`analyze ${leads}`); // statistics taken while the table is small, as after a seed

    await one.db.execute(
      // The shape of GET /leads's statement: tenant and mode, then archived, the index's leading columns.
      sql.raw(`prepare page(uuid) as select id, title from leads where tenant_id = $1 and livemode = true
        and archived = false order by updated_at, id limit 26`),
    );
    for (let i = 0; i < 6; i++) await one.db.execute(sql.raw(`execute page('${tenantId}')`));
    // A table of a few pages: reading it whole and sorting is the cheapest plan, and it is cached.
    expect(await plan()).toMatch(/Sort/);

    await addLeads(5_000);
    // Stale: nothing has told the planner the table grew. Only PGlite is sure to keep the plan: a PostgreSQL
    // backend also drops its cached plans when the server's invalidation queue overflows (other databases'
    // migrations in parallel test files), and then plans again from the table's current size.
    if (!database.url) expect(await plan()).toMatch(/Sort/);

    expect(await analyzeGrownTables(database.db)).toContain("leads");
    expect(await analyzeGrownTables(database.db)).not.toContain("leads"); // its statistics now match its size
    const fresh = await plan();
    expect(fresh).toMatch(/Index Scan/);
    expect(fresh).not.toMatch(/Sort/);
  });

  it("takes samples of the size statisticsTarget asks for, without changing the setting of later statements", async () => {
    const titleBounds = async () =>
      rowsOf<{ n: number }>(
        await database.db.execute(sql`
          select coalesce(array_length(histogram_bounds, 1), 0)::int as n
          from pg_stats where schemaname = current_schema() and tablename = 'leads' and attname = 'title'`),
      )[0]!.n;
    await analyzeGrownTables(database.db); // the first test's leads, at the server's default target (100)
    await addLeads(1_000);
    await database.db.execute(sql`analyze ${leads}`);
    expect(await titleBounds()).toBeGreaterThan(50); // 6,040 distinct titles: a histogram of up to 101 bounds

    await addLeads(6_000);
    expect(await analyzeGrownTables(database.db, { statisticsTarget: 10 })).toContain("leads");
    const bounds = await titleBounds();
    expect(bounds).toBeGreaterThan(1);
    expect(bounds).toBeLessThanOrEqual(11);
    const setting = rowsOf<{ t: string }>(
      await database.db.execute(sql`select current_setting('default_statistics_target') as t`),
    )[0]!.t;
    expect(setting).toBe("100");

    for (const bad of [0, 1.5, 10_001]) {
      await expect(analyzeGrownTables(database.db, { statisticsTarget: bad })).rejects.toThrow(RangeError);
    }
  });
});
