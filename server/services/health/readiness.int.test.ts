import { afterAll, beforeAll, expect, it } from "vitest";
import { GET } from "@/app/api/ready/route";
import { openDatabase, installDatabase, type Database } from "@/db/client";
import { setLimitStore } from "@/server/services/limits/rate-limiter";
import { redisLimitStore } from "@/server/services/limits/redis-limit-store";
import { tcpProxy } from "@/server/testing/tcp-proxy";
import { openTestDatabase } from "@/server/testing/test-db";

// GET /api/ready: 200 while the database and the limit store answer; 503 with Retry-After while either
// cannot be reached, and 200 again when it is back (no restart).

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let viaProxy: Database | undefined;
afterAll(async () => {
  setLimitStore(undefined);
  await viaProxy?.close().catch(() => {});
  await db.drop();
});
beforeAll(async () => {
  db = await openTestDatabase();
});

it("answers 200 with every check ok", async () => {
  const res = await GET();
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ status: "ready", checks: { database: "ok", limit_store: "ok" } });
});

it("answers 503 with Retry-After while the Redis limit store is down, and 200 when it is back", async () => {
  const proxy = await tcpProxy(6379);
  const store = redisLimitStore(`redis://127.0.0.1:${proxy.port}`);
  setLimitStore(store);
  expect((await GET()).status).toBe(200);
  await proxy.stop();
  const down = await GET();
  expect(down.status).toBe(503);
  expect(down.headers.get("retry-after")).toBe("5");
  expect(await down.json()).toEqual({ status: "unavailable", checks: { database: "ok", limit_store: "unavailable" } });
  await proxy.start();
  let status = 0;
  for (let i = 0; i < 40 && status !== 200; i++) {
    status = (await GET()).status;
    if (status !== 200) await new Promise((r) => setTimeout(r, 250));
  }
  expect(status).toBe(200);
  await store.close?.();
  setLimitStore(undefined);
});

it.runIf(Boolean(process.env.DATABASE_URL))(
  "answers 503 while PostgreSQL is down and 200 when it is back",
  async () => {
    const url = new URL(db.url!);
    const proxy = await tcpProxy(Number(url.port || 5432), url.hostname);
    url.host = `127.0.0.1:${proxy.port}`;
    viaProxy = await openDatabase({ url: url.toString(), poolSize: 2 });
    installDatabase(viaProxy);
    expect((await GET()).status).toBe(200);
    await proxy.stop();
    const down = await GET();
    expect(down.status).toBe(503);
    expect((await down.json()).checks.database).toBe("unavailable");
    await proxy.start();
    let status = 0;
    for (let i = 0; i < 40 && status !== 200; i++) {
      status = (await GET()).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe(200);
  },
);
