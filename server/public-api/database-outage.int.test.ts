import { afterAll, beforeAll, expect, it } from "vitest";
import { openDatabase, installDatabase, type Database } from "@/db/client";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { tcpProxy } from "@/server/testing/tcp-proxy";
import { openTestDatabase } from "@/server/testing/test-db";

// PostgreSQL going away under load and coming back: answers are 503 service_unavailable with
// Retry-After while it is down (never a stack trace), and the same process recovers by itself.
// Needs a PostgreSQL server (DATABASE_URL): PGlite is in-process and cannot go away.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let viaProxy: Database | undefined;
let proxy: Awaited<ReturnType<typeof tcpProxy>> | undefined;

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  if (!db.url) return;
  const url = new URL(db.url);
  proxy = await tcpProxy(Number(url.port || 5432), url.hostname);
  url.host = `127.0.0.1:${proxy.port}`;
  viaProxy = await openDatabase({ url: url.toString(), poolSize: 4 });
  installDatabase(viaProxy);
});
afterAll(async () => {
  await viaProxy?.close().catch(() => {});
  await db.drop();
});

it.runIf(Boolean(process.env.DATABASE_URL))(
  "answers 503 with Retry-After while PostgreSQL is down and recovers without a restart",
  async () => {
    const read = () => call("GET", "/cards", { key: t.key });
    const write = () =>
      call("POST", "/cards", {
        key: t.key,
        json: { code: `o-${crypto.randomUUID().slice(0, 8)}`, name: "x" },
        idempotencyKey: crypto.randomUUID(),
      });
    expect((await read()).status).toBe(200);
    await proxy!.stop();
    const during = await Promise.all([read(), write(), read(), call("GET", "/me", { key: t.key })]);
    for (const r of during) {
      expect(r.status).toBe(503);
      expect(r.body.code).toBe("service_unavailable");
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(r.text).not.toMatch(/at .*\.(ts|js):\d+|ECONNREFUSED|5432/);
    }
    await proxy!.start();
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await read()).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe(200);
    expect((await write()).status).toBe(201);
  },
  30_000,
);
