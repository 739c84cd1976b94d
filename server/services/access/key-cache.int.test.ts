import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys, integrations, tenants, wallets } from "@/db/schema";
import { listenForChanges } from "@/db/change-listener";
import { openForScript, shareEmbedded } from "@/db/shared-embedded";
import { ApiError } from "@/server/errors";
import { call } from "@/server/testing/api-client";
import { makeStaff, makeTenant, setMembership, type TenantFixture } from "@/server/testing/fixtures";
import { tcpProxy } from "@/server/testing/tcp-proxy";
import { openTestDatabase } from "@/server/testing/test-db";
import { issueKey, revokeKey } from "../keys/keys";
import { setLimitOverride } from "../limits/limit-overrides";
import { changeBalance } from "../wallet/wallet-ledger";
import { authenticate } from "./authenticate";
import { KEY_CACHE_CHANNEL, startKeyCache, type RunningKeyCache } from "./key-cache";

// The key cache against a real database (PGlite by default, PostgreSQL with DATABASE_URL): the triggers'
// NOTIFY reaches the listener for every change the key query depends on, and nothing else drops it.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let kc: RunningKeyCache;
let t: TenantFixture;
const pg = Boolean(process.env.DATABASE_URL);

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  kc = await startKeyCache(db, { listener: { heartbeatMs: 300, retryMs: 100 } });
});
afterAll(async () => {
  await kc?.stop();
  await db?.drop();
});

// One request time for the whole file: cache entries are kept per UTC day (the day's spend is in them), so
// a run crossing midnight would otherwise miss the cache where a test expects a hit. Their freshness runs on
// the cache's own clock, not on this one.
const NOW = new Date();
const auth = (key = t.key) => authenticate(db.db, `Bearer ${key}`, "127.0.0.1", NOW);

/** Waits until `check` holds (it is retried every 10 ms), for at most `ms`. */
async function eventually(check: () => Promise<boolean> | boolean, ms = 1000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Whether the next authentication of `key` is answered from the cache. */
async function cached(key = t.key): Promise<boolean> {
  const before = kc.cache.stats.hits;
  await auth(key).catch(() => {});
  return kc.cache.stats.hits > before;
}

describe("key cache", () => {
  it("answers a known key from the cache after its first read, with the same caller", async () => {
    const first = await auth();
    expect(await cached()).toBe(true);
    const again = await auth();
    expect(again).toEqual({ ...first, key: { ...first.key } });
    // One caller per cached row, shared by the requests it answers, so frozen: no request can change
    // what the next one is told.
    expect(again).toBe(await auth());
    expect(Object.isFrozen(again) && Object.isFrozen(again.limits) && Object.isFrozen(again.actor.scopes)).toBe(true);
    expect(() => {
      (again.limits as { read_per_min: number }).read_per_min = 1;
    }).toThrow(TypeError);
  });

  it("answers GET /me from the cached key, and with what changed within 1 s (limits, wallet, names)", async () => {
    // A tenant of its own: the changes below drop only its entries, not those the other tests rely on.
    const u = await makeTenant(db.db);
    const first = await call("GET", "/me", { key: u.key });
    expect(first.status).toBe(200);
    // The notifications of its creation may still be on their way and would drop a row read meanwhile.
    await eventually(() => cached(u.key));
    expect((await call("GET", "/me", { key: u.key })).body).toEqual(first.body);
    await setLimitOverride(db.db, { keyId: u.keyId }, { readPerMin: 123 });
    await changeBalance(db.db, { tenantId: u.tenantId, amountMinor: 4_200n, kind: "topup", actor: "operator" });
    await db.db.update(integrations).set({ name: "Renamed shop bot" }).where(eq(integrations.id, u.integrationId));
    const before = BigInt(first.body.wallet.balance.amount.replace(".", ""));
    let me = first;
    await eventually(async () => {
      me = await call("GET", "/me", { key: u.key });
      return (
        me.body.limits.read_per_min === 123 &&
        me.body.integration.name === "Renamed shop bot" &&
        BigInt(me.body.wallet.balance.amount.replace(".", "")) === before + 4_200n
      );
    });
    expect(me.status).toBe(200);
  });

  it("is not dropped by the writes every request or operation makes (last use, open holds)", async () => {
    await auth();
    await db.db
      .update(apiKeys)
      .set({ lastUsedAt: new Date(0) })
      .where(eq(apiKeys.keyId, t.keyId));
    await db.db
      .update(wallets)
      .set({ heldMinor: sql`${wallets.heldMinor} + 1` })
      .where(eq(wallets.tenantId, t.tenantId));
    await new Promise((r) => setTimeout(r, 100)); // a notification, had one been sent, is in by now
    expect(await cached()).toBe(true);
  });

  it("sees a wallet debited below zero, a limit change and a license change within 1 s", async () => {
    await auth();
    await changeBalance(db.db, { tenantId: t.tenantId, amountMinor: -200_000n, kind: "debit", actor: "operator" });
    await eventually(async () => (await auth()).walletRow?.balanceMinor === -100_000n);
    await setLimitOverride(db.db, { keyId: t.keyId }, { readPerMin: 7 });
    await eventually(async () => (await auth()).limits.read_per_min === 7);
    await db.db.update(tenants).set({ apiAccess: false }).where(eq(tenants.id, t.tenantId));
    await eventually(() =>
      auth().then(
        () => false,
        (e: unknown) => e instanceof ApiError && e.code === "feature_not_in_plan",
      ),
    );
    await db.db.update(tenants).set({ apiAccess: true }).where(eq(tenants.id, t.tenantId));
    await eventually(() =>
      auth().then(
        () => true,
        () => false,
      ),
    );
  });

  it("sees the tenant's main domain change within 1 s (cards expand their addresses against it)", async () => {
    expect((await auth()).actor.mainDomain).toBe("shop.example.ru");
    expect(await cached()).toBe(true);
    await db.db.update(tenants).set({ mainDomain: "new-shop.example.ru" }).where(eq(tenants.id, t.tenantId));
    await eventually(async () => (await auth()).actor.mainDomain === "new-shop.example.ru");
    await db.db.update(tenants).set({ mainDomain: "shop.example.ru" }).where(eq(tenants.id, t.tenantId));
    await eventually(async () => (await auth()).actor.mainDomain === "shop.example.ru");
  });

  it("refuses a revoked key within 1 s, and keeps other tenants' keys cached", async () => {
    const other = await makeTenant(db.db);
    const victim = await makeTenant(db.db);
    // The notifications of their creation may still be on their way and would drop a row read meanwhile.
    await eventually(async () => (await cached(other.key)) && (await cached(victim.key)));
    await revokeKey(db.db, victim.keyId);
    await eventually(() =>
      auth(victim.key).then(
        () => false,
        (e: unknown) => e instanceof ApiError && e.code === "invalid_api_key",
      ),
    );
    expect(await cached(other.key)).toBe(true);
  });

  it("cuts a cached key by its issuer's rights within 1 s of a change, and refuses it once the issuer is inactive (issue 76 item 1)", async () => {
    const u = await makeTenant(db.db);
    const rights = ["manage_integrations", "manage_webhooks", "view_personal_data"] as const;
    const issuer = await makeStaff(db.db, u.tenantId, [...rights]);
    const k = await issueKey(db.db, {
      integrationId: u.integrationId,
      ipAllowlist: ["127.0.0.1"],
      issuer: { via: "console", tenantId: u.tenantId, staffUserId: issuer, rights },
    });
    await eventually(async () => (await auth(k.key)).scopes.includes("leads:read") && (await cached(k.key)));
    await setMembership(db.db, u.tenantId, issuer, { rights: ["manage_integrations", "manage_webhooks"] });
    await eventually(async () => !(await auth(k.key)).scopes.includes("leads:read"));
    expect((await auth(k.key)).scopes).toContain("webhooks:manage");
    // the fixture's own key, issued by an operator, is not cut
    expect((await auth(u.key)).scopes).toContain("leads:read");
    await setMembership(db.db, u.tenantId, issuer, { active: false });
    await eventually(() =>
      auth(k.key).then(
        () => false,
        (e: unknown) => e instanceof ApiError && e.code === "integration_inactive",
      ),
    );
  });

  it.runIf(!pg)("hears of a change made through the embedded database's socket (the operator CLI)", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "key-cache-"));
    const pgliteDir = path.join(dir, "pglite");
    const unshare = await shareEmbedded(db, pgliteDir);
    try {
      const cli = await openForScript({ pgliteDir });
      expect(cli.via).toBe("socket");
      const u = await makeTenant(db.db);
      await auth(u.key);
      expect(await cached(u.key)).toBe(true);
      await revokeKey(cli.db, u.keyId);
      await cli.close();
      await eventually(() =>
        auth(u.key).then(
          () => false,
          () => true,
        ),
      );
    } finally {
      await unshare();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.runIf(pg)("distrusts a listening connection that went silent (no answer to its heartbeat)", async () => {
    const proxy = await tcpProxy(Number(new URL(db.url!).port || 5432), new URL(db.url!).hostname);
    const url = new URL(db.url!);
    url.host = `127.0.0.1:${proxy.port}`;
    const states: boolean[] = [];
    const listener = await listenForChanges(
      { ...db, url: url.toString() },
      KEY_CACHE_CHANNEL,
      { onNotify: () => {}, onConnected: (up) => states.push(up) },
      { heartbeatMs: 200, retryMs: 100 },
    );
    try {
      expect(listener.connected()).toBe(true);
      proxy.stall();
      const stalledAt = Date.now();
      await eventually(() => !listener.connected(), 2000);
      expect(Date.now() - stalledAt).toBeLessThan(1000);
      expect(states).toEqual([true, false]);
    } finally {
      await listener.stop();
      await proxy.stop();
    }
  });

  it.runIf(pg)("is bypassed while its listening connection is lost, and trusted again once it is back", async () => {
    await auth();
    expect(await cached()).toBe(true);
    const lost = kc.cache.stats.disconnects;
    await db.db.execute(
      sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'listen:key_cache' and datname = current_database()`,
    );
    // Reconnection is quick (retry every 100 ms here), so the loss is seen in the counter.
    await eventually(() => kc.cache.stats.disconnects > lost && kc.cache.trusted, 5000);
    expect(await cached()).toBe(false); // emptied on reconnection: read again
    await auth();
    expect(await cached()).toBe(true);
  });
});
