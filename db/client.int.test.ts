import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openDatabase, type Database } from "./client";
import { openTestDatabase } from "@/server/testing/test-db";

// Concurrent transactions on the PostgreSQL pool: each must run on a connection reserved for it. With
// postgres.js's max_pipeline 1 this failed under load (UNSAFE_TRANSACTION, porsager/postgres#823), which
// the bench saw as 500s on POST /cards. Needs PostgreSQL.

const pg = Boolean(process.env.DATABASE_URL);
let test: Awaited<ReturnType<typeof openTestDatabase>>;
let d: Database;

beforeAll(async () => {
  if (!pg) return;
  test = await openTestDatabase();
  d = await openDatabase({ url: test.url!, poolSize: 4 });
  await d.db.execute(sql`create table pool_probe (id int primary key, tx int not null)`);
});
afterAll(async () => {
  if (!pg) return;
  await d.close();
  await test.drop();
});

it.runIf(pg)("keeps 300 concurrent transactions and 300 plain queries apart on a pool of 4", { timeout: 60_000 }, async () => {
  const txs = Array.from({ length: 300 }, (_, i) =>
    d.db.transaction(async (tx) => {
      await tx.execute(sql`insert into pool_probe (id, tx) values (${i}, txid_current())`);
      await tx.execute(sql`select pg_sleep(0.001)`);
      // Every statement of this transaction ran inside the same server transaction.
      const [row] = (await tx.execute(sql`select tx = txid_current() as same from pool_probe where id = ${i}`)) as unknown as { same: boolean }[];
      return row!.same;
    }),
  );
  const plain = Array.from({ length: 300 }, () => d.db.execute(sql`select 1`));
  const results = await Promise.allSettled([...txs, ...plain]);
  const failed = results.filter((r) => r.status === "rejected").map((r) => String((r as PromiseRejectedResult).reason));
  expect(failed).toEqual([]);
  expect(await Promise.all(txs)).toEqual(Array(300).fill(true));
  const [{ n }] = (await d.db.execute(sql`select count(*)::int as n from pool_probe`)) as unknown as { n: number }[];
  expect(n).toBe(300);
});
