import { like } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { rateCounters } from "@/db/schema";
import { openTestDatabase } from "@/server/testing/test-db";
import { leasedLimitStore, MAX_LEASE } from "./leased-limit-store";
import { pgLimitStore } from "./pg-limit-store";

// The PostgreSQL limit store batches the takes of concurrent requests into one `rate_limit_take_many`
// call (docs/operations.md "Rate limits: accuracy of each store"). A batch must decide exactly as the same takes one
// by one would. Runs on either database: the function is plain PL/pgSQL, so PGlite runs it too.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(() => db.drop());

const T0 = Date.UTC(2026, 10, 24, 12, 0, 10); // 10 s into a window: the previous window weighs 5/6

/**
 * A store over the test database that counts its statements (one `rate_limit_take_many` per batch): every
 * statement, `db.execute` or db/prepared.ts `executePrepared`, is made by the session's `prepareQuery`.
 */
function countingStore() {
  const calls = { n: 0 };
  const root = db.db as Db;
  const session = new Proxy(root._.session, {
    get(target, prop, receiver) {
      if (prop === "prepareQuery") calls.n++;
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
  const counted = new Proxy(root, {
    get(target, prop, receiver) {
      if (prop === "_") return { ...target._, session };
      if (prop === "session") return session;
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
  const store = pgLimitStore(async () => counted);
  return { store, calls };
}

async function counterOf(bucket: string): Promise<number[]> {
  const rows = await db.db.select().from(rateCounters).where(like(rateCounters.bucket, bucket));
  return rows.map((r) => r.count);
}

it("a burst of concurrent takes is one call, and exactly the limit is allowed", async () => {
  const { store, calls } = countingStore();
  const results = await Promise.all(
    Array.from({ length: 20 }, () =>
      store.take(
        [
          { bucket: "key:burst:read", limit: 12 },
          { bucket: "tenant:burst:read", limit: 100 },
        ],
        T0,
      ),
    ),
  );
  expect(calls.n).toBe(1);
  expect(results.filter((r) => r.allowed)).toHaveLength(12);
  // In arrival order: the first 12 are allowed, each seeing the count the ones before it left.
  expect(results.map((r) => r.allowed)).toEqual([...Array(12).fill(true), ...Array(8).fill(false)]);
  expect(results.slice(0, 12).map((r) => r.counts[0].current)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  expect(results[19].counts).toEqual([
    { bucket: "key:burst:read", limit: 12, current: 12, previous: 0 },
    { bucket: "tenant:burst:read", limit: 100, current: 12, previous: 0 },
  ]);
  // A refused take counts in none of its buckets: the tenant's counter holds the 12 allowed only.
  expect(await counterOf("key:burst:read")).toEqual([12]);
  expect(await counterOf("tenant:burst:read")).toEqual([12]);
});

it("a take refused by its tenant's bucket is not counted in its key's bucket, within one batch", async () => {
  const { store, calls } = countingStore();
  const take = (key: string) =>
    store.take(
      [
        { bucket: `key:${key}:write`, limit: 10 },
        { bucket: "tenant:shared:write", limit: 2 },
      ],
      T0,
    );
  const [a, b, c] = await Promise.all([take("a"), take("b"), take("c")]);
  expect(calls.n).toBe(1);
  expect([a.allowed, b.allowed, c.allowed]).toEqual([true, true, false]);
  expect(c.counts).toEqual([
    { bucket: "key:c:write", limit: 10, current: 0, previous: 0 },
    { bucket: "tenant:shared:write", limit: 2, current: 2, previous: 0 },
  ]);
  expect(await counterOf("key:c:write")).toEqual([0]);
  expect(await counterOf("tenant:shared:write")).toEqual([2]);
});

it("the previous window weighs in, and takes of two windows go in separate calls", async () => {
  const { store, calls } = countingStore();
  const bucket = [{ bucket: "key:windows:read", limit: 6 }];
  // 6 in the window before T0's, then at T0 (weight 5/6): 6 × 5/6 = 5 seen, so 1 more is allowed.
  await Promise.all(Array.from({ length: 6 }, () => store.take(bucket, T0 - 60_000)));
  const now = await Promise.all([store.take(bucket, T0), store.take(bucket, T0)]);
  expect(now.map((r) => r.allowed)).toEqual([true, false]);
  expect(now[0].counts[0]).toEqual({ bucket: "key:windows:read", limit: 6, current: 1, previous: 6 });
  const straddling = await Promise.all([store.take(bucket, T0 + 60_000), store.take(bucket, T0 + 120_000)]);
  expect(straddling.map((r) => r.allowed)).toEqual([true, true]);
  // One call per window: T0-60 s, T0, and the last batch straddles two windows, so two calls.
  expect(calls.n).toBe(4);
});

it("a failed call fails every take of its batch, and the next batch goes on", async () => {
  let fail = true;
  const store = pgLimitStore(async () => {
    if (fail) throw new Error("connection refused");
    return db.db as Db;
  });
  const bucket = [{ bucket: "key:failing:read", limit: 5 }];
  const settled = await Promise.allSettled([store.take(bucket, T0), store.take(bucket, T0), store.take(bucket, T0)]);
  expect(settled.map((s) => s.status)).toEqual(["rejected", "rejected", "rejected"]);
  fail = false;
  expect((await store.take(bucket, T0)).allowed).toBe(true);
  expect(await counterOf("key:failing:read")).toEqual([1]);
});

it("leased (databaseLimitStore's PostgreSQL store): a busy key's takes share calls, and two processes never pass the limit", async () => {
  const b = (limit: number) => [
    { bucket: "key:leased:read", limit },
    { bucket: "tenant:leased:read", limit },
  ];
  const { store: pg, calls } = countingStore();
  const store = leasedLimitStore(pg);
  let allowed = 0;
  for (let i = 0; i < 2000; i += 16)
    allowed += (await Promise.all(Array.from({ length: 16 }, () => store.take(b(1_000_000), T0)))).filter(
      (r) => r.allowed,
    ).length;
  expect(allowed).toBe(2000);
  // Without leases the 16 requests in flight make one call each time: 125 calls.
  expect(calls.n).toBeLessThan(40);
  // The counter holds the 2,000 answered and what the last lease reserved but has not used.
  const [counted] = await counterOf("key:leased:read");
  expect(counted).toBeGreaterThanOrEqual(2000);
  expect(counted - 2000).toBeLessThan(MAX_LEASE);

  // Two processes (two leased stores on one database) on a limit of 3,000: never more than the limit, and
  // refusals come only once the limit is within a lease of each other's reserve.
  const two = [leasedLimitStore(countingStore().store), leasedLimitStore(countingStore().store)];
  const bucketsOf = () => [
    { bucket: "key:leased2:read", limit: 3000 },
    { bucket: "tenant:leased2:read", limit: 3000 },
  ];
  const taken = await Promise.all(
    two.map(async (s) => {
      let n = 0;
      for (let i = 0; i < 2000; i += 16)
        n += (await Promise.all(Array.from({ length: 16 }, () => s.take(bucketsOf(), T0)))).filter(
          (r) => r.allowed,
        ).length;
      return n;
    }),
  );
  expect(taken[0] + taken[1]).toBeLessThanOrEqual(3000);
  expect(taken[0] + taken[1]).toBeGreaterThan(3000 - 2 * 30);
  expect((await counterOf("key:leased2:read"))[0]).toBeLessThanOrEqual(3000);
});
