import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase } from "@/server/testing/test-db";
import { openDatabase, type Database } from "./client";

// The app runs on a small pool (DATABASE_POOL_SIZE, server/env.ts DEFAULT_DATABASE_POOL_SIZE): more
// concurrent requests than connections must still all be answered, queries pipelined on busy connections,
// and transactions beyond the pool must wait for a connection, never run on one another's.
describe.skipIf(!process.env.DATABASE_URL)("a small PostgreSQL pool", () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let small: Database;
  beforeAll(async () => {
    database = await openTestDatabase();
    await database.db.execute(sql`create table pool_probe (n int not null)`);
    small = await openDatabase({ url: database.url!, poolSize: 2 });
  });
  afterAll(async () => {
    await small.close();
    await database.drop();
  });

  /** The rows of a statement on the small pool (postgres.js answers an array of rows). */
  const rows = async <T>(q: ReturnType<typeof sql>, db = small.db): Promise<T[]> =>
    (await db.execute(q)) as unknown as T[];

  it("answers 24 concurrent queries over its 2 connections", async () => {
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        rows<{ pid: number; i: number }>(
          sql`select pg_backend_pid() as pid, ${i}::int as i, pg_sleep(0.02)::text as slept`,
        ),
      ),
    );
    expect(answers.map((r) => r[0]!.i)).toEqual(Array.from({ length: 24 }, (_, i) => i));
    expect(new Set(answers.map((r) => r[0]!.pid)).size).toBeLessThanOrEqual(2);
  });

  it("runs 6 concurrent transactions beside root queries: each commits or rolls back on its own connection", async () => {
    const work = Array.from({ length: 6 }, (_, i) =>
      small.db.transaction(async (tx) => {
        await tx.execute(sql`insert into pool_probe values (${i})`);
        await tx.execute(sql`select pg_sleep(0.01)`);
        // A row this transaction cannot see unless another's statements ran on its connection.
        const seen = await rows<{ n: number }>(
          sql`select n from pool_probe order by n`,
          tx as unknown as typeof small.db,
        );
        if (i % 2 === 1) throw new Error(`roll back ${i}`);
        return seen.map((r) => r.n);
      }),
    );
    const reads = Array.from({ length: 12 }, () => rows(sql`select count(*)::int as c from pool_probe`));
    const results = await Promise.allSettled([...work, ...reads]);
    const txs = results.slice(0, 6);
    txs.forEach((r, i) => {
      if (i % 2 === 1) expect(r).toMatchObject({ status: "rejected", reason: { message: `roll back ${i}` } });
      else {
        // Its own row, and never a row of a transaction that rolled back (odd numbers never commit: one
        // is seen only when two transactions share a connection); others' committed rows may be there.
        expect(r.status).toBe("fulfilled");
        const seen = (r as PromiseFulfilledResult<number[]>).value;
        expect(seen).toContain(i);
        expect(seen.filter((n) => n % 2 === 1)).toEqual([]);
      }
    });
    expect(results.slice(6).every((r) => r.status === "fulfilled")).toBe(true);
    const committed = await rows<{ n: number }>(sql`select n from pool_probe order by n`);
    expect(committed.map((r) => r.n)).toEqual([0, 2, 4]);
  });
});
