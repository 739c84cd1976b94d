import { like, or } from "drizzle-orm";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { rateCounters } from "@/db/schema";
import { setClock } from "@/server/lib/clock";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { limitStore, setLimitStore } from "@/server/services/limits/rate-limiter";
import { redisLimitStore } from "@/server/services/limits/redis-limit-store";
import { call } from "@/server/testing/api-client";
import { makeTenant } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";

// How each limit store is reached per request (docs/operations.md "Rate limits: accuracy of each store"): Redis with
// one script call for both buckets; the embedded database with no round trip at all (in-process counters);
// PostgreSQL with `rate_limit_take_many` calls (batching: server/services/limits/pg-limit-store.int.test.ts). The sliding-window behaviour itself is rate-limit.int.test.ts.

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
let db: Awaited<ReturnType<typeof openTestDatabase>>;

beforeAll(async () => {
  db = await openTestDatabase();
});
afterEach(() => setLimitStore(undefined));
afterAll(() => db.drop());

const statuses = (rs: { status: number }[]) => rs.map((r) => r.status);

it("Redis: one script call per request counts the key's and the tenant's windows", async () => {
  const t = await makeTenant(db.db);
  await setLimitOverride(db.db, { keyId: t.keyId }, { readPerMin: 4 });
  const store = redisLimitStore(REDIS_URL);
  setLimitStore(store);
  // A first request loads the script into Redis if it was not there (EVALSHA, then EVAL once).
  expect((await call("GET", "/cards", { key: t.key })).status).toBe(200);
  // MONITOR sees every command Redis runs, from every client; the commands of this tenant's buckets are ours.
  const monitor = await new Redis(REDIS_URL).monitor();
  const seen: { command: string; args: string[]; source: string }[] = [];
  monitor.on("monitor", (_time: string, args: string[], source: string) => {
    if (args.some((a) => a.includes(t.tenantId))) seen.push({ command: args[0].toLowerCase(), args, source });
  });
  try {
    await new Promise((r) => setTimeout(r, 50));
    const rs = [];
    for (let i = 0; i < 4; i++) rs.push(await call("GET", "/cards", { key: t.key }));
    expect(statuses(rs)).toEqual([200, 200, 200, 429]);
    expect(rs.map((r) => r.headers.get("ratelimit-remaining"))).toEqual(["2", "1", "0", "0"]);
    await new Promise((r) => setTimeout(r, 100));
    const fromClients = seen.filter((c) => c.source !== "lua");
    expect(fromClients.map((c) => c.command)).toEqual(["evalsha", "evalsha", "evalsha", "evalsha"]);
    for (const c of fromClients) {
      expect(c.args.some((a) => a.startsWith(`rl:key:${t.keyId}:read:`))).toBe(true);
      expect(c.args.some((a) => a.startsWith(`rl:tenant:${t.tenantId}:read:`))).toBe(true);
    }
  } finally {
    monitor.disconnect();
    await store.close?.();
  }
});

it.runIf(!process.env.DATABASE_URL)(
  "embedded database: exact in-process counting, no counter rows written",
  async () => {
    setLimitStore(undefined);
    const t = await makeTenant(db.db);
    await setLimitOverride(db.db, { keyId: t.keyId }, { readPerMin: 3 });
    const rs = [];
    for (let i = 0; i < 5; i++) rs.push(await call("GET", "/me", { key: t.key }));
    expect(statuses(rs)).toEqual([200, 200, 200, 429, 429]);
    expect(rs.map((r) => r.headers.get("ratelimit-remaining"))).toEqual(["2", "1", "0", "0", "0"]);
    expect(limitStore().name).toBe("embedded (in-process)");
    // Concurrent requests are counted exactly too: 20 at once against a fresh key with 12 allowed.
    const u = await makeTenant(db.db);
    await setLimitOverride(db.db, { keyId: u.keyId }, { readPerMin: 12 });
    const burst = await Promise.all(Array.from({ length: 20 }, () => call("GET", "/me", { key: u.key })));
    expect(burst.filter((r) => r.status === 200)).toHaveLength(12);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(8);
    const rows = await db.db
      .select()
      .from(rateCounters)
      .where(or(like(rateCounters.bucket, `%${t.tenantId}%`), like(rateCounters.bucket, `%${u.tenantId}%`)));
    expect(rows).toEqual([]);
  },
);

it.runIf(Boolean(process.env.DATABASE_URL))("PostgreSQL: counts in the database, shared by processes", async () => {
  setLimitStore(undefined);
  const t = await makeTenant(db.db);
  await setLimitOverride(db.db, { keyId: t.keyId }, { readPerMin: 3 });
  // One frozen moment, so the four requests count in one window's row even when a minute turns among them.
  const frozen = Date.now();
  setClock(() => frozen);
  const rs = [];
  try {
    for (let i = 0; i < 4; i++) rs.push(await call("GET", "/me", { key: t.key }));
  } finally {
    setClock(undefined);
  }
  expect(statuses(rs)).toEqual([200, 200, 200, 429]);
  expect(limitStore().name).toBe("postgres");
  const rows = await db.db
    .select()
    .from(rateCounters)
    .where(like(rateCounters.bucket, `key:${t.keyId}:%`));
  expect(rows.map((r) => r.count)).toEqual([3]);
});
