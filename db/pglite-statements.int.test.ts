import type { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openDatabase, type Database, type Db } from "./client";
import { MAX_PGLITE_STATEMENTS, namedStatementClient } from "./pglite-statements";
import { executePrepared, preparedQuery, preparedRows } from "./prepared";

// db/pglite-statements.ts: on the embedded database the prepared reads run as named statements, parsed
// and planned once, each run one call into PGlite, under PGlite's own locks.
describe("PGlite named statements", () => {
  let d: Database;
  let pglite: PGlite;
  beforeAll(async () => {
    d = await openDatabase({ dir: "memory://" });
    pglite = d.pglite!;
    await pglite.exec(`create table named_probe (id int primary key, tenant text not null, at timestamptz not null,
      doc jsonb, big bigint, tags text[], ats timestamptz[]);
      insert into named_probe values
        (1, 'a', '2026-01-02 03:04:05.006+00', '{"k": [1, "x"]}', 9007199254740993, '{x,"y z"}', '{2026-01-02 00:00:00+00}'),
        (2, 'a', '2026-01-03 00:00:00+00', null, null, null, null), (3, 'b', '2026-01-04 00:00:00+00', '[]', 0, '{}', '{}');`);
  });
  afterAll(() => d.close());

  const rows = (db: Db, tenant: string, shape = "named:probe") =>
    preparedRows<Record<string, unknown>>(
      db,
      shape,
      () =>
        sql`select id, tenant, at, doc, big, tags, ats from named_probe where tenant = ${sql.placeholder("tenant")} order by id`,
    ).execute({ tenant });

  /** The statements of PGlite's one session that are ours, with their run counts. */
  const ours = async () =>
    (
      await pglite.query<{ name: string; statement: string; runs: number }>(
        `select name, statement, generic_plans + custom_plans as runs from pg_prepared_statements where name like 'platform\\_%'`,
      )
    ).rows;

  it("answers what PGlite's query answers, from one statement parsed once", async () => {
    // drizzle's own parsers over PGlite's (moments and arrays of moments stay text); the rest, arrays of
    // the catalog's other types included, are PGlite's.
    const unnamed = await pglite.query(
      `select id, tenant, at, doc, big, tags, ats from named_probe where tenant = $1 order by id`,
      ["a"],
      {
        parsers: { 1184: (v: string) => v, 1185: (v: string) => v },
      },
    );
    const query = vi.spyOn(pglite, "query");
    try {
      for (let i = 0; i < 8; i++) expect(await rows(d.db, "a")).toEqual(unnamed.rows);
      expect(await rows(d.db, "b")).toEqual([
        { id: 3, tenant: "b", at: "2026-01-04 00:00:00+00", doc: [], big: 0, tags: [], ats: "{}" },
      ]);
      expect((unnamed.rows[0] as { tags: unknown; ats: unknown }).tags).toEqual(["x", "y z"]);
      expect((unnamed.rows[0] as { ats: unknown }).ats).toBe('{"2026-01-02 00:00:00+00"}');
      // Moments stay PostgreSQL's text (drizzle's raw rows); PGlite's bigint: a number, past 2^53 a BigInt.
      expect((unnamed.rows[0] as { at: unknown; big: unknown }).at).toBe("2026-01-02 03:04:05.006+00");
      expect((unnamed.rows[0] as { big: unknown }).big).toBe(9007199254740993n);
      expect(query).not.toHaveBeenCalled();
    } finally {
      query.mockRestore();
    }
    const mine = (await ours()).filter((s) => s.statement.includes("from named_probe"));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.runs).toBe(9);
  });

  it("drizzle's query builder and executePrepared go the same way, with drizzle's row mapping and errors", async () => {
    const byId = (id: number) =>
      preparedQuery(d.db, "named:by-id", (db) =>
        db
          .select({ tenant: sql<string>`tenant`, at: sql<string>`at` })
          .from(sql`named_probe`)
          .where(sql`id = ${sql.placeholder("id")}`),
      ).execute({ id });
    expect(await byId(1)).toEqual([{ tenant: "a", at: "2026-01-02 03:04:05.006+00" }]);
    expect(await byId(2)).toEqual([{ tenant: "a", at: "2026-01-03 00:00:00+00" }]);
    expect(
      await executePrepared(d.db, "named_count", sql`select count(*)::int as n from named_probe where tenant = ${"a"}`),
    ).toEqual([{ n: 2 }]);
    // A failed statement: drizzle's error with PGlite's SQLSTATE as its cause, and the session usable after it.
    const insert = () => executePrepared(d.db, "named_insert", sql`insert into named_probe values (${1}, 'c', now())`);
    const err: unknown = await insert().then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as { cause?: { code?: string } }).cause?.code).toBe("23505");
    expect(await byId(1)).toHaveLength(1);
    expect((await ours()).map((s) => s.statement)).toEqual(
      expect.arrayContaining([expect.stringContaining("id = $1"), expect.stringContaining("count(*)")]),
    );
  });

  it("never runs inside another caller's transaction: it waits for it to end", async () => {
    let inside!: () => void;
    const opened = new Promise<void>((r) => (inside = r));
    let finish!: () => void;
    const held = new Promise<void>((r) => (finish = r));
    const tx = pglite.transaction(async (t) => {
      await t.query(`insert into named_probe values (10, 'tx', now())`);
      inside();
      await held;
      await t.query(`rollback`);
    });
    await opened;
    let answered = false;
    const read = rows(d.db, "tx").then((r) => {
      answered = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(answered).toBe(false);
    finish();
    await tx.catch(() => {});
    // Had it run inside the transaction, it would have seen the row that was rolled back.
    expect(await read).toEqual([]);
  });

  it("a transaction's handle runs its own, unnamed statements and sees its own rows", async () => {
    await expect(
      d.db.transaction(async (tx) => {
        await tx.execute(sql`insert into named_probe values (11, 'mine', now())`);
        expect((await rows(tx as Db, "mine")).map((r) => r.id)).toEqual([11]);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await rows(d.db, "mine")).toEqual([]);
  });

  // Next.js bundles route modules apart from the server entry: two copies of the module run statements on
  // one instance, and a second registry would name a second `platform_1` (42P05 on every request).
  it("shares one registry between copies of the module", async () => {
    vi.resetModules();
    const copy = await import("./pglite-statements");
    expect(copy.namedStatementClient).not.toBe(namedStatementClient);
    expect(copy.namedStatementClient(pglite)).toBe(namedStatementClient(pglite));
    const other = await openDatabase({ dir: "memory://" });
    try {
      await namedStatementClient(other.pglite!).query(`select 'first' as n`);
      expect((await copy.namedStatementClient(other.pglite!).query(`select 'second' as n`)).rows).toEqual([
        { n: "second" },
      ]);
    } finally {
      await other.close();
    }
  });

  it("prepares a statement again when the session dropped it (DEALLOCATE ALL)", async () => {
    expect(await rows(d.db, "b")).toHaveLength(1);
    await pglite.exec("deallocate all");
    expect(await ours()).toEqual([]);
    expect(await rows(d.db, "b")).toHaveLength(1);
    expect(await ours()).toHaveLength(1);
  });

  it(`keeps at most ${MAX_PGLITE_STATEMENTS} statements; later texts run unnamed`, async () => {
    await pglite.exec("deallocate all");
    const other = await openDatabase({ dir: "memory://" });
    try {
      const client = namedStatementClient(other.pglite!);
      for (let i = 0; i < MAX_PGLITE_STATEMENTS; i++) await client.query(`select ${i} as n`);
      const count = async () =>
        (await other.pglite!.query<{ n: number }>(`select count(*)::int as n from pg_prepared_statements`)).rows[0]!.n;
      expect(await count()).toBe(MAX_PGLITE_STATEMENTS);
      expect((await client.query(`select 'past' as n`)).rows).toEqual([{ n: "past" }]);
      expect(await count()).toBe(MAX_PGLITE_STATEMENTS);
    } finally {
      await other.close();
    }
  });
});
