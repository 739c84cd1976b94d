import { and, count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operations, products, tenants, walletLedger, wallets } from "@/db/schema";
import { authenticate } from "@/server/services/access/authenticate";
import { startKeyCache, type RunningKeyCache } from "@/server/services/access/key-cache";
import { issueKey } from "@/server/services/keys/keys";
import { SANDBOX_TABLES } from "@/server/services/sandbox/sandbox-tables";
import { setPreview } from "@/server/services/tenants/previews";
import { call, type ApiAnswer } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";

// The sandbox seeded by a test key's first request (issue 69 item 2): only a test key of a tenant with
// the preview `test-mode` seeds it, concurrent first requests seed it once, the key cache's row carries
// the seeded flag afterwards, and every read route of the tour then answers with data for the test key.
// The tenants here hold no live records, so what a list shows is the sandbox's.

let db: Awaited<ReturnType<typeof openTestDatabase>>;

beforeAll(async () => {
  db = await openTestDatabase();
}, 60_000);
afterAll(async () => db.drop());

/** A tenant (live key) with a test key of the same integration; the preview `test-mode` when `preview`. */
async function shop(preview: boolean): Promise<TenantFixture & { testKey: string; testKeyId: string }> {
  const t = await makeTenant(db.db);
  const k = await issueKey(db.db, { integrationId: t.integrationId, mode: "test", ipAllowlist: ["127.0.0.1"] });
  if (preview) await setPreview(db.db, t.tenantId, "test-mode", true);
  return { ...t, testKey: k.key, testKeyId: k.keyId };
}

async function seededAt(tenantId: string): Promise<Date | null> {
  const [t] = await db.db.select({ at: tenants.sandboxSeededAt }).from(tenants).where(eq(tenants.id, tenantId));
  return t.at;
}

async function sandboxRows(tenantId: string): Promise<number> {
  let n = 0;
  for (const t of SANDBOX_TABLES)
    n += (await db.db.select({ n: count() }).from(t.table).where(t.sandboxRows(tenantId)))[0].n;
  return n;
}

describe("seeding on first use", () => {
  it("is not done by a live key, nor by a test key of a tenant without the preview", async () => {
    const t = await shop(false);
    expect((await call("GET", "/cards", { key: t.key })).status).toBe(200);
    expect((await call("GET", "/cards", { key: t.testKey })).status).toBe(200);
    await setPreview(db.db, t.tenantId, "test-mode", true);
    expect((await call("GET", "/cards", { key: t.key })).status).toBe(200);
    expect(await seededAt(t.tenantId)).toBeNull();
    expect(await sandboxRows(t.tenantId)).toBe(0);
  });

  it("is done once by concurrent first requests of test keys, each of which sees the sample cards", async () => {
    const t = await shop(true);
    const other = await issueKey(db.db, { integrationId: t.integrationId, mode: "test", ipAllowlist: ["127.0.0.1"] });
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => call("GET", "/cards", { key: i % 2 ? other.key : t.testKey })),
    );
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.body.data.map((c: { code: string }) => c.code)).toEqual(["trail-shoes", "rain-jacket", "gift-card"]);
    }
    expect(await seededAt(t.tenantId)).toBeInstanceOf(Date);
    const mode = (table: typeof products | typeof wallets) =>
      and(eq(table.tenantId, t.tenantId), eq(table.livemode, false));
    expect((await db.db.select({ n: count() }).from(products).where(mode(products)))[0].n).toBe(3);
    expect((await db.db.select({ n: count() }).from(wallets).where(mode(wallets)))[0].n).toBe(1);
    const credits = await db.db
      .select({ n: count() })
      .from(walletLedger)
      .where(
        and(eq(walletLedger.tenantId, t.tenantId), eq(walletLedger.livemode, false), eq(walletLedger.kind, "credit")),
      );
    expect(credits[0].n).toBe(1);
  });

  it("is told by the key cache's row once done, so later requests do not ask again", async () => {
    const kc: RunningKeyCache = await startKeyCache(db, { listener: { heartbeatMs: 300, retryMs: 100 } });
    try {
      const t = await shop(true);
      const auth = () => authenticate(db.db, `Bearer ${t.testKey}`, "127.0.0.1");
      expect((await auth()).sandboxSeeded).toBe(false);
      expect((await call("GET", "/me", { key: t.testKey })).status).toBe(200);
      // The seeding's change of the tenant row drops the key's cached row; the next read carries the flag.
      const end = Date.now() + 5000;
      for (;;) {
        const before = kc.cache.stats.hits;
        const caller = await auth();
        if (caller.sandboxSeeded && kc.cache.stats.hits > before) break;
        if (Date.now() > end) throw new Error("the cached key row never said seeded");
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await kc.stop();
    }
  });
});

describe("the tour's read routes with a test key", () => {
  let t: TenantFixture & { testKey: string };
  const get = (path: string): Promise<ApiAnswer> => call("GET", path, { key: t.testKey });
  /** A list route's first page, which must hold at least one item. */
  async function some(path: string): Promise<{ id: string }[]> {
    const r = await get(path);
    expect(r.status, path).toBe(200);
    expect(r.body.data.length, path).toBeGreaterThan(0);
    return r.body.data as { id: string }[];
  }

  beforeAll(async () => {
    t = await shop(true);
  });

  it("answers every list and item of the sample data", async () => {
    expect((await get("/me")).status).toBe(200);
    expect((await get("/wallet")).status).toBe(200);
    await some("/cards");
    const [conversation] = await some("/conversations");
    expect((await get(`/conversations/${conversation.id}`)).status).toBe(200);
    await some(`/conversations/${conversation.id}/messages?include_deleted=true`);
    const [lead] = await some("/leads");
    expect((await get(`/leads/${lead.id}`)).status).toBe(200);
    const [article] = await some("/articles");
    for (const format of ["html", "markdown", "blocks"])
      expect((await get(`/articles/${article.id}?format=${format}`)).status, format).toBe(200);
    for (const list of ["/strategist/reports", "/strategist/topics", "/strategist/actions"]) {
      const [item] = await some(list);
      expect((await get(`${list}/${item.id}`)).status, list).toBe(200);
    }
    expect((await get("/dashboards/overview")).status).toBe(200);
    const [hook] = await some("/webhooks");
    await some(`/webhooks/${hook.id}/deliveries`);
    const [op] = await db.db
      .select({ id: operations.id })
      .from(operations)
      .where(and(eq(operations.tenantId, t.tenantId), eq(operations.livemode, false)))
      .limit(1);
    expect((await get(`/operations/${op.id}`)).status).toBe(200);
  });

  it("answers the tour's filters with data", async () => {
    for (const path of [
      "/cards?limit=2",
      "/conversations?limit=1&channel=api",
      "/conversations?limit=2&channel=telegram",
      "/leads?limit=2&status=won",
      "/leads?archived=true",
      "/articles?limit=3&status=published",
      "/strategist/reports?limit=2&report_type=daily",
      "/strategist/topics?limit=3&status=proposed",
      "/strategist/actions?limit=3",
    ])
      await some(path);
  });
});
