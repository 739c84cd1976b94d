import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase } from "@/server/testing/test-db";
import type { Db } from "./client";
import { openDatabase } from "./client";
import { executePrepared, literalLimit, preparedQuery, preparedRows } from "./prepared";
import { tenants } from "./schema";

// db/prepared.ts: hot reads are built once per database handle and shape, then run with new values.
describe("prepared queries", () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  beforeAll(async () => {
    database = await openTestDatabase();
    await database.db.execute(sql`create table prepared_probe (tenant text not null, n int not null)`);
    await database.db.execute(sql`insert into prepared_probe values ('a', 1), ('a', 2), ('b', 3)`);
  });
  afterAll(() => database.drop());

  const probe = (db: Db, tenant: string) =>
    preparedQuery(db, "probe:by-tenant", (d) =>
      d
        .select({ n: sql<number>`n` })
        .from(sql`prepared_probe`)
        .where(sql`tenant = ${sql.placeholder("tenant")}`)
        .orderBy(sql`n`),
    ).execute({ tenant });

  it("answers each call with its own values, from one statement per shape", async () => {
    expect(await probe(database.db, "a")).toEqual([{ n: 1 }, { n: 2 }]);
    expect(await probe(database.db, "b")).toEqual([{ n: 3 }]);
    expect(await probe(database.db, "c")).toEqual([]);
    const built: string[] = [];
    const build = (d: Db) => {
      built.push("built");
      return d
        .select({ id: tenants.id })
        .from(tenants)
        .where(eq(tenants.id, sql.placeholder("id")));
    };
    const id = "00000000-0000-4000-8000-000000000000";
    await preparedQuery(database.db, "probe:tenant", build).execute({ id });
    await preparedQuery(database.db, "probe:tenant", build).execute({ id });
    expect(built).toHaveLength(1);
  });

  it("runs inside the caller's transaction: a transaction sees its own uncommitted rows, others do not", async () => {
    await expect(
      database.db.transaction(async (tx) => {
        await tx.execute(sql`insert into prepared_probe values ('c', 4)`);
        // Prepared on the root handle above; on `tx` it must be the transaction's own statement.
        expect(await probe(tx as Db, "c")).toEqual([{ n: 4 }]);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await probe(database.db, "c")).toEqual([]);
  });

  it("preparedRows: the driver's rows under their aliases, built once per shape, inside the caller's transaction", async () => {
    let built = 0;
    const rows = (db: Db, tenant: string) =>
      preparedRows<{ tenant_name: string; doubled: number; total: string }>(db, "probe:rows", () => {
        built += 1;
        return sql`select tenant as tenant_name, n * 2 as doubled, (n::bigint * 1000000000000)::text as total
          from prepared_probe where tenant = ${sql.placeholder("tenant")} order by n`;
      }).execute({ tenant });
    expect(await rows(database.db, "a")).toEqual([
      { tenant_name: "a", doubled: 2, total: "1000000000000" },
      { tenant_name: "a", doubled: 4, total: "2000000000000" },
    ]);
    expect(await rows(database.db, "b")).toEqual([{ tenant_name: "b", doubled: 6, total: "3000000000000" }]);
    expect(built).toBe(1);
    await expect(
      database.db.transaction(async (tx) => {
        await tx.execute(sql`insert into prepared_probe values ('d', 5)`);
        expect(await rows(tx as Db, "d")).toEqual([{ tenant_name: "d", doubled: 10, total: "5000000000000" }]);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await rows(database.db, "d")).toEqual([]);
    // The transaction is its own handle, with its own statement.
    expect(built).toBe(2);
  });

  it("executePrepared: raw SQL answers its rows on both drivers, and inside the caller's transaction", async () => {
    const byTenant = (db: Db, tenant: string) =>
      executePrepared<{ n: number }>(
        db,
        "probe_raw",
        sql`select n from prepared_probe where tenant = ${tenant} order by n`,
      );
    expect(await byTenant(database.db, "a")).toEqual([{ n: 1 }, { n: 2 }]);
    expect(await byTenant(database.db, "b")).toEqual([{ n: 3 }]);
    await expect(
      database.db.transaction(async (tx) => {
        await executePrepared(tx as Db, "probe_insert", sql`insert into prepared_probe values (${"d"}, ${5})`);
        expect(await byTenant(tx as Db, "d")).toEqual([{ n: 5 }]);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await byTenant(database.db, "d")).toEqual([]);
  });

  // postgres.js sends an unnamed statement with parameters as Parse/Describe, then Bind/Execute: two round
  // trips every run. executePrepared's statement is parsed once and stays prepared on the connection.
  it.skipIf(!process.env.DATABASE_URL)(
    "executePrepared on PostgreSQL: the statement stays prepared on the connection; db.execute's does not",
    async () => {
      const one = await openDatabase({ url: database.url!, poolSize: 1 });
      try {
        const prepared = () => executePrepared(one.db, "probe_kept", sql`select n from prepared_probe where n > ${0}`);
        await prepared();
        await prepared();
        await one.db.execute(sql`select n from prepared_probe where n < ${100}`);
        const kept = await executePrepared<{ statement: string }>(
          one.db,
          "probe_statements",
          sql`select statement from pg_prepared_statements where statement like ${"%prepared_probe where n%"}`,
        );
        expect(kept.map((k) => k.statement)).toEqual(["select n from prepared_probe where n > $1"]);
      } finally {
        await one.close();
      }
    },
  );

  // A LIMIT parameter is planned as a tenth of the matching rows, so PostgreSQL never takes the cached
  // generic plan and plans the statement again on every run; literalLimit's statement keeps its generic plan.
  it.skipIf(!process.env.DATABASE_URL)(
    "literalLimit on PostgreSQL: a list statement keeps its generic plan; with a LIMIT parameter it is planned every run",
    async () => {
      await database.db.execute(sql`create table limit_probe (tenant text not null, n int not null)`);
      await database.db.execute(
        sql`insert into limit_probe select case when i % 2 = 0 then 'a' else 'b' end, i from generate_series(1, 20000) i`,
      );
      await database.db.execute(sql`create index limit_probe_idx on limit_probe (tenant, n)`);
      await database.db.execute(sql`analyze limit_probe`);
      const one = await openDatabase({ url: database.url!, poolSize: 1 });
      try {
        const page = (shape: string, limit: unknown) =>
          preparedQuery(one.db, shape, (d) =>
            d
              .select({ n: sql<number>`n` })
              .from(sql`limit_probe`)
              .where(sql`tenant = ${sql.placeholder("tenant")}`)
              .orderBy(sql`n`)
              .limit(limit as number),
          );
        for (let i = 0; i < 8; i++) {
          expect(await page("probe:literal:26", literalLimit(26)).execute({ tenant: "a" })).toHaveLength(26);
          expect(
            await page("probe:parameter", sql.placeholder("limit")).execute({ tenant: "a", limit: 26 }),
          ).toHaveLength(26);
        }
        const plans = await executePrepared<{ statement: string; generic_plans: string; custom_plans: string }>(
          one.db,
          "probe_plans",
          sql`select statement, generic_plans::text, custom_plans::text from pg_prepared_statements where statement like ${"%limit_probe%"}`,
        );
        const literal = plans.find((p) => p.statement.includes("limit 26"))!;
        const parameter = plans.find((p) => /limit \$\d/.test(p.statement))!;
        expect(Number(literal.generic_plans)).toBeGreaterThan(0);
        expect(Number(literal.custom_plans)).toBeLessThanOrEqual(5);
        expect([Number(parameter.generic_plans), Number(parameter.custom_plans)]).toEqual([0, 8]);
      } finally {
        await one.close();
      }
    },
  );

  it("literalLimit refuses what is not a row count of a list page", () => {
    for (const bad of [0, 102, 1.5, Number.NaN]) expect(() => literalLimit(bad)).toThrow(RangeError);
  });
});
