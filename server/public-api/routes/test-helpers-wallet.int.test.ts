import { and, eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { walletLedger, wallets, webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { openApiDocument } from "@/server/openapi/document";
import { recordEventWithDeliveries } from "@/server/services/events/outbox";
import { registerWorkListener } from "@/server/services/events/work-notifier";
import { ensureSandboxWallet } from "@/server/services/wallet/sandbox-wallet";
import { call } from "@/server/testing/api-client";
import { makeEmptySandboxTenant, type SandboxTenantFixture } from "@/server/testing/empty-sandbox";
import { makeTenant } from "@/server/testing/fixtures";
import { sandboxKey } from "@/server/testing/sandbox-key";
import { openTestDatabase } from "@/server/testing/test-db";
import { newSigningSecret, sealSecret } from "@/server/webhook-transport/secret-box";

// POST /test-helpers/wallet (issue 69 item 4), as an integrator with a test key uses it: it sets the sandbox
// wallet through the ledger, the sandbox key's GET /wallet, GET /me and wallet gate follow it, the live
// wallet never moves, and lifting a suspension delivers the sandbox's deferred webhooks (not the live ones).

let db: Awaited<ReturnType<typeof openTestDatabase>>;
const T = { preview: "test-mode" as const };

beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(async () => db.drop());

/**
 * A tenant with the preview `test-mode`, its live key and a test (sandbox) key, whose sandbox holds no
 * sample data (makeEmptySandboxTenant) but its wallet of 10,000.00 RUB: the ledger rows can be counted.
 */
async function sandboxTenant(): Promise<SandboxTenantFixture> {
  const t = await makeEmptySandboxTenant(db.db);
  await ensureSandboxWallet(db.db, t.tenantId);
  return t;
}

const setWallet = (key: string, json: unknown, idempotencyKey?: string) =>
  call("POST", "/test-helpers/wallet", { key, json, idempotencyKey, ...T });

/** The tenant's wallet row of a mode and the sum of its ledger. */
async function walletOf(tenantId: string, livemode: boolean) {
  const [w] = await db.db
    .select()
    .from(wallets)
    .where(and(eq(wallets.tenantId, tenantId), eq(wallets.livemode, livemode)));
  const [sum] = await db.db
    .select({ amount: sql<string>`coalesce(sum(${walletLedger.amountMinor}), 0)::text`, n: sql<number>`count(*)::int` })
    .from(walletLedger)
    .where(and(eq(walletLedger.tenantId, tenantId), eq(walletLedger.livemode, livemode)));
  return { balance: w!.balanceMinor, blocked: w!.blocked, ledgerSum: BigInt(sum!.amount), ledgerRows: sum!.n };
}

const rub = (amount: string) => ({ amount, currency: "RUB" });

describe("POST /test-helpers/wallet", () => {
  it("sets the sandbox balance through a ledger row; the test key's /wallet, /me and wallet gate follow it; the live wallet never moves", async () => {
    const t = await sandboxTenant();
    const live = await walletOf(t.tenantId, true);
    expect((await call("GET", "/wallet", { key: t.testKey })).body.balance).toEqual(rub("10000.00"));

    const r = await setWallet(t.testKey, { balance: "-50.00" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ balance: rub("-50.00"), state: "negative", exchange: "suspended" });
    expect(r.body.daily_spend).toEqual({ limit: null, used: rub("0.00") });
    const sandbox = await walletOf(t.tenantId, false);
    expect(sandbox).toMatchObject({ balance: -5_000n, ledgerSum: -5_000n, ledgerRows: 2 });

    const wallet = await call("GET", "/wallet", { key: t.testKey });
    expect(wallet.body).toEqual(r.body);
    const me = await call("GET", "/me", { key: t.testKey });
    expect(me.body.wallet).toEqual(r.body);
    expect(me.body.key.mode).toBe("test");
    // The sandbox's exchange is suspended: the test key is refused, the live key is not.
    const refused = await call("GET", "/cards", { key: t.testKey });
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ code: "wallet_suspended", balance: rub("-50.00") });
    expect((await call("GET", "/cards", { key: t.key })).status).toBe(200);
    expect((await call("GET", "/wallet", { key: t.key })).body).toMatchObject({
      balance: rub("1000.00"),
      state: "ok",
      exchange: "active",
    });

    const back = await setWallet(t.testKey, { balance: "250.10" });
    expect(back.body).toMatchObject({ balance: rub("250.10"), exchange: "active" });
    expect((await call("GET", "/cards", { key: t.testKey })).status).toBe(200);
    expect(await walletOf(t.tenantId, false)).toMatchObject({ balance: 25_010n, ledgerSum: 25_010n, ledgerRows: 3 });
    // The same balance again writes nothing.
    expect((await setWallet(t.testKey, { balance: "250.10" })).status).toBe(200);
    expect((await walletOf(t.tenantId, false)).ledgerRows).toBe(3);
    expect(await walletOf(t.tenantId, true)).toEqual(live);
  });

  it("blocks and unblocks the sandbox wallet: 402 wallet_suspended while blocked, the balance kept", async () => {
    const t = await sandboxTenant();
    const blocked = await setWallet(t.testKey, { state: "blocked" });
    expect(blocked.body).toMatchObject({ balance: rub("10000.00"), state: "blocked", exchange: "suspended" });
    expect((await call("GET", "/cards", { key: t.testKey })).body.code).toBe("wallet_suspended");
    // The helper is served while exchange is suspended: that is how a test lifts it.
    const ok = await setWallet(t.testKey, { state: "ok" });
    expect(ok.body).toMatchObject({ balance: rub("10000.00"), state: "ok", exchange: "active" });
    expect((await call("GET", "/cards", { key: t.testKey })).status).toBe(200);
    const rows = await db.db
      .select({ kind: walletLedger.kind, actor: walletLedger.actor })
      .from(walletLedger)
      .where(and(eq(walletLedger.tenantId, t.tenantId), eq(walletLedger.livemode, false)))
      .orderBy(walletLedger.createdAt);
    expect(rows.map((r) => r.kind)).toEqual(["credit", "block", "unblock"]);
    expect(rows[1]!.actor).toBe(`integration:${t.integrationId}`);
    expect((await walletOf(t.tenantId, true)).blocked).toBe(false);
  });

  it("answers a replay under the same Idempotency-Key with the wallet as it is, changing nothing twice", async () => {
    const t = await sandboxTenant();
    await setWallet(t.testKey, { balance: "100.00" }, "set-1");
    await setWallet(t.testKey, { balance: "70.00" });
    const replay = await setWallet(t.testKey, { balance: "100.00" }, "set-1");
    expect(replay.status).toBe(200);
    expect(replay.body.balance).toEqual(rub("70.00"));
    expect((await walletOf(t.tenantId, false)).ledgerRows).toBe(3);
  });

  it("opens the sandbox wallet (10,000.00 RUB) when the sandbox has none yet", async () => {
    const t = await makeEmptySandboxTenant(db.db);
    const r = await setWallet(t.testKey, { state: "ok" });
    expect(r.body).toMatchObject({ balance: rub("10000.00"), state: "ok" });
    expect(await walletOf(t.tenantId, false)).toMatchObject({ balance: 1_000_000n, ledgerSum: 1_000_000n });
  });

  it("sets the wallet of a sandbox seeded with 30 days of sample money, keeping its ledger's sum", async () => {
    const t = await makeTenant(db.db);
    const testKey = await sandboxKey(db.db, t);
    // The test key's first request seeds the sandbox (its wallet holds 10,000.00 RUB after its sample work),
    // and already judges that wallet: not the missing row its key's query found before the seeding.
    const first = await call("GET", "/wallet", { key: testKey });
    expect(first.body).toMatchObject({ balance: rub("10000.00"), state: "ok", exchange: "active" });
    expect(first.headers.get("service-wallet-state")).toBeNull();
    const seeded = await walletOf(t.tenantId, false);
    expect(seeded.ledgerRows).toBeGreaterThan(1);
    const r = await setWallet(testKey, { balance: "-50.00" });
    expect(r.body).toMatchObject({ balance: rub("-50.00"), state: "negative" });
    expect(await walletOf(t.tenantId, false)).toMatchObject({
      balance: -5_000n,
      ledgerSum: -5_000n,
      ledgerRows: seeded.ledgerRows + 1,
    });
  });

  it("404 not_found for a live key, and for a test key of a tenant without the preview", async () => {
    const t = await sandboxTenant();
    const live = await setWallet(t.key, { balance: "-50.00" });
    expect(live.status).toBe(404);
    expect(live.body.code).toBe("not_found");
    const plain = await makeTenant(db.db, { key: { mode: "test" } });
    const without = await call("POST", "/test-helpers/wallet", { key: plain.key, json: { state: "blocked" } });
    expect(without.status).toBe(404);
    expect(without.body.code).toBe("not_found");
    expect(await walletOf(t.tenantId, true)).toMatchObject({ balance: 100_000n, blocked: false });
    expect(await walletOf(plain.tenantId, true)).toMatchObject({ balance: 100_000n, blocked: false });
  });

  it("422 for anything but exactly one of balance (RUB with 2 decimals) or state (blocked, ok)", async () => {
    const t = await sandboxTenant();
    const cases: [unknown, string, string][] = [
      [{}, "", "required"],
      [{ balance: "10.00", state: "ok" }, "", "invalid_value"],
      [{ balance: "ten" }, "/balance", "invalid_format"],
      [{ balance: "10.5" }, "/balance", "invalid_format"],
      [{ balance: -50 }, "/balance", "invalid_type"],
      [{ state: "negative" }, "/state", "invalid_value"],
      [{ state: "ok", extra: 1 }, "/extra", "unknown_field"],
    ];
    for (const [json, field, code] of cases) {
      const r = await call("POST", "/test-helpers/wallet", { key: t.testKey, json, validate: false });
      expect([json, r.status, r.body.code]).toEqual([json, 422, "validation_failed"]);
      expect([json, r.body.errors[0]]).toMatchObject([json, { field, code }]);
    }
    expect((await walletOf(t.tenantId, false)).ledgerRows).toBe(1);
  });

  it("lifting the sandbox's suspension resumes the sandbox's deferred deliveries only, announced after the commit", async () => {
    const t = await sandboxTenant();
    const [sub] = await db.db
      .insert(webhookSubscriptions)
      .values({
        tenantId: t.tenantId,
        integrationId: t.integrationId,
        url: "https://hooks.example.com/x",
        events: ["card.*"],
        secretEnc: sealSecret(newSigningSecret()),
      })
      .returning({ id: webhookSubscriptions.id });
    const queued: string[] = [];
    for (let i = 0; i < 2; i++)
      queued.push(
        ...(
          await recordEventWithDeliveries(
            db.db,
            { tenantId: t.tenantId, livemode: true, type: "card.updated", data: { code: `c${i}` } },
            { onlySubscriptionId: sub!.id },
          )
        ).deliveryIds,
      );
    const [sandboxRow, liveRow] = queued;
    const later = new Date(Date.now() + 15 * 60_000);
    const d = webhookDeliveries;
    await db.db
      .update(d)
      .set({ error: "wallet_suspended", nextAttemptAt: later })
      .where(inArray(d.id, [sandboxRow!, liveRow!]));
    await db.db.update(d).set({ livemode: false }).where(eq(d.id, sandboxRow!));

    await setWallet(t.testKey, { state: "blocked" });
    const heard: [string, boolean][] = [];
    const off = registerWorkListener({
      deliveriesDue: () => {},
      exchangeResumed: (id, mode) => void heard.push([id, mode]),
    });
    try {
      await setWallet(t.testKey, { state: "ok" });
      await setWallet(t.testKey, { balance: "-1.00" });
      await setWallet(t.testKey, { balance: "0.00" });
    } finally {
      off();
    }
    expect(heard).toEqual([
      [t.tenantId, false],
      [t.tenantId, false],
    ]);
    const rows = await db.db
      .select()
      .from(d)
      .where(inArray(d.id, [sandboxRow!, liveRow!]));
    const byId = new Map(rows.map((r) => [r.id, r.nextAttemptAt!.getTime()]));
    expect(byId.get(sandboxRow!)).toBeLessThanOrEqual(Date.now());
    expect(byId.get(liveRow!)).toBe(later.getTime());
  });
});

describe("the OpenAPI document", () => {
  it("lists POST /test-helpers/wallet under the tag Test helpers in the test-mode preview's document only", () => {
    const doc = openApiDocument("test-mode");
    const op = doc.paths?.["/test-helpers/wallet"]?.post;
    expect(op?.tags).toEqual(["Test helpers"]);
    expect(op?.description).toContain("Preview `test-mode`");
    expect(doc.tags?.map((t) => t.name)).toContain("Test helpers");
    expect(openApiDocument().paths?.["/test-helpers/wallet"]).toBeUndefined();
  });
});
