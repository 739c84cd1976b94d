import { and, count, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { integrationDailySpend, integrations, walletLedger, wallets } from "@/db/schema";
import { defineRoute, ok } from "@/server/public-api/define-route";
import { PEER_HEADER } from "@/server/lib/client-ip";
import { handlePublicRequest } from "@/server/public-api/pipeline";
import { Router } from "@/server/public-api/router";
import { ApiError } from "@/server/errors";
import { call, TEST_ORIGIN } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { changeBalance, setWalletBlocked } from "./wallet-ledger";
import { setWalletSource, WALLET_READ_TIMEOUT_MS } from "./wallet-state";

// Spec "States and transitions: Wallet and exchange", "Wallet" and "Me": the state a caller sees in
// GET /wallet and GET /me, the 402 gate on every other route, the unknown state, and a ledger that
// always agrees with the balance.

let db: Awaited<ReturnType<typeof openTestDatabase>>;

beforeAll(async () => {
  db = await openTestDatabase();
});
afterEach(() => setWalletSource(undefined));
afterAll(async () => db.drop());

const rub = (amount: string) => ({ amount, currency: "RUB" });
const topup = (t: TenantFixture) => `${TEST_ORIGIN}/console/wallet?tenant=${t.tenantId}`;
/** A tenant whose balance is `minor` (the low threshold is 1,000.00 RUB by default). */
async function tenantWith(minor: bigint): Promise<TenantFixture> {
  const t = await makeTenant(db.db, { balanceMinor: 0n });
  if (minor !== 0n)
    await changeBalance(db.db, {
      tenantId: t.tenantId,
      amountMinor: minor,
      kind: minor > 0n ? "credit" : "debit",
      actor: "system",
    });
  return t;
}
const ledgerRows = async (tenantId: string) =>
  db.db.select().from(walletLedger).where(eq(walletLedger.tenantId, tenantId)).orderBy(walletLedger.createdAt);
const balanceOf = async (tenantId: string) =>
  (await db.db.select({ b: wallets.balanceMinor }).from(wallets).where(eq(wallets.tenantId, tenantId)))[0]?.b;

describe("wallet states in GET /wallet and GET /me", () => {
  it.each([
    ["ok at the low threshold", 100_000n, "1000.00", "ok", "active"],
    ["ok well above it", 2_500_050n, "25000.50", "ok", "active"],
    ["low just under it", 99_999n, "999.99", "low", "active"],
    ["low at zero", 0n, "0.00", "low", "active"],
    ["negative below zero", -1n, "-0.01", "negative", "suspended"],
  ])("%s", async (_name, minor, amount, state, exchange) => {
    const t = await tenantWith(minor);
    const wallet = await call("GET", "/wallet", { key: t.key });
    expect(wallet.status).toBe(200);
    expect(wallet.body).toEqual({
      balance: rub(amount),
      state,
      exchange,
      topup_url: topup(t),
      daily_spend: { limit: null, used: rub("0.00") },
    });
    const me = await call("GET", "/me", { key: t.key });
    expect(me.status).toBe(200);
    expect(me.body.wallet).toEqual(wallet.body);
    expect(wallet.headers.get("service-wallet-state")).toBeNull();
  });

  it("blocked wins over the balance, and unblocking restores the state", async () => {
    const t = await tenantWith(500_000n);
    await setWalletBlocked(db.db, { tenantId: t.tenantId }, true, "operator");
    expect((await call("GET", "/wallet", { key: t.key })).body).toMatchObject({
      balance: rub("5000.00"),
      state: "blocked",
      exchange: "suspended",
    });
    await setWalletBlocked(db.db, { tenantId: t.tenantId }, false, "operator");
    expect((await call("GET", "/wallet", { key: t.key })).body).toMatchObject({ state: "ok", exchange: "active" });
    expect((await ledgerRows(t.tenantId)).map((r) => [r.kind, r.amountMinor, r.balanceAfterMinor, r.actor])).toEqual([
      ["credit", 500_000n, 500_000n, "system"],
      ["block", 0n, 500_000n, "operator"],
      ["unblock", 0n, 500_000n, "operator"],
    ]);
  });

  it("shows the integration's daily spend against its limit", async () => {
    const t = await tenantWith(100_000n);
    const today = new Date().toISOString().slice(0, 10);
    await db.db.update(integrations).set({ dailySpendLimitMinor: 1_000n }).where(eq(integrations.id, t.integrationId));
    expect((await call("GET", "/wallet", { key: t.key })).body.daily_spend).toEqual({
      limit: rub("10.00"),
      used: rub("0.00"),
    });
    await db.db.insert(integrationDailySpend).values({ integrationId: t.integrationId, day: today, usedMinor: 1_250n });
    const w = await call("GET", "/wallet", { key: t.key });
    expect(w.body.daily_spend).toEqual({ limit: rub("10.00"), used: rub("12.50") });
    expect((await call("GET", "/me", { key: t.key })).body.wallet.daily_spend).toEqual(w.body.daily_spend);
  });
});

describe("the 402 gate while exchange is suspended", () => {
  it.each([
    [
      "negative",
      async (t: TenantFixture) =>
        changeBalance(db.db, { tenantId: t.tenantId, amountMinor: -100_050n, kind: "debit", actor: "system" }),
      rub("-0.50"),
    ],
    [
      "blocked",
      async (t: TenantFixture) => setWalletBlocked(db.db, { tenantId: t.tenantId }, true, "operator"),
      rub("1000.00"),
    ],
  ])(
    "answers every route but /me and /wallet with 402 wallet_suspended while %s, and resumes at once after",
    async (state, suspend, balance) => {
      const t = await tenantWith(100_000n);
      await suspend(t);
      for (const [method, path, json] of [
        ["GET", "/cards", undefined],
        ["POST", "/cards", { code: "c1", name: "Tea" }],
        ["GET", "/webhooks", undefined],
        ["GET", "/cards/c1", undefined],
      ] as const) {
        const r = await call(method, path, { key: t.key, json });
        expect(r.status, `${method} ${path}`).toBe(402);
        expect(r.body).toMatchObject({
          code: "wallet_suspended",
          title: "Wallet suspended",
          topup_url: topup(t),
          balance,
        });
        expect(r.body.detail).toContain(state);
      }
      expect((await call("GET", "/me", { key: t.key })).body.wallet).toMatchObject({
        state,
        exchange: "suspended",
        balance,
      });
      expect((await call("GET", "/wallet", { key: t.key })).status).toBe(200);
      if (state === "blocked") await setWalletBlocked(db.db, { tenantId: t.tenantId }, false, "operator");
      else await changeBalance(db.db, { tenantId: t.tenantId, amountMinor: 100_050n, kind: "topup", actor: "system" });
      // Served again at once, and the refused POST wrote nothing.
      expect((await call("GET", "/cards", { key: t.key })).body.data).toEqual([]);
    },
  );

  it("keeps exchange open while the wallet is low", async () => {
    const t = await tenantWith(1n);
    expect((await call("GET", "/cards", { key: t.key })).status).toBe(200);
    expect(
      (
        await call("POST", "/cards", {
          key: t.key,
          json: { code: "c1", name: "Tea" },
          idempotencyKey: crypto.randomUUID(),
        })
      ).status,
    ).toBe(201);
  });
});

describe("unknown wallet state", () => {
  const paidRouter = new Router([
    defineRoute({
      operationId: "paidThing",
      summary: "",
      method: "POST",
      path: "/paid",
      scope: null,
      rate: "paid",
      responses: {},
      handler: async () => ok({ done: true }),
    }),
  ]);
  const paid = (t: TenantFixture) =>
    handlePublicRequest(
      new Request(`${TEST_ORIGIN}/api/public/v1/paid`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.key}`, [PEER_HEADER]: "127.0.0.1" },
      }),
      paidRouter,
    );

  it.each([
    [
      "the source fails",
      async () => {
        throw new Error("billing down");
      },
    ],
    ["the source has no wallet for the tenant", async () => null],
  ])(
    "when %s: reads and writes go on with Service-Wallet-State: unknown, paid operations answer 503",
    async (_name, read) => {
      const t = await tenantWith(100_000n);
      expect((await paid(t)).status).toBe(200);
      setWalletSource({ read });
      for (const path of ["/wallet", "/me", "/cards"]) {
        const r = await call("GET", path, { key: t.key });
        expect(r.status, path).toBe(200);
        expect(r.headers.get("service-wallet-state"), path).toBe("unknown");
      }
      expect((await call("GET", "/wallet", { key: t.key })).body).toMatchObject({
        balance: null,
        state: "unknown",
        exchange: "active",
        topup_url: topup(t),
      });
      expect((await call("GET", "/me", { key: t.key })).body.wallet).toMatchObject({
        balance: null,
        state: "unknown",
        exchange: "active",
      });
      const w = await call("POST", "/cards", {
        key: t.key,
        json: { code: "u1", name: "Tea" },
        idempotencyKey: crypto.randomUUID(),
      });
      expect([w.status, w.headers.get("service-wallet-state")]).toEqual([201, "unknown"]);
      const p = await paid(t);
      expect(p.status).toBe(503);
      expect(p.headers.get("retry-after")).toBeTruthy();
      expect(p.headers.get("service-wallet-state")).toBe("unknown");
      expect((await p.json()).code).toBe("upstream_unavailable");
      setWalletSource(undefined);
      expect((await paid(t)).status).toBe(200);
    },
  );

  it("is unknown when the source takes longer than the read timeout", async () => {
    const t = await tenantWith(100_000n);
    // A source that answers only after a minute: the request must not wait for it.
    setWalletSource({
      read: () =>
        new Promise((resolve) =>
          setTimeout(() => resolve({ balanceMinor: 1n, blocked: false, lowMinor: 0n }), 60_000).unref(),
        ),
    });
    const started = Date.now();
    const r = await call("GET", "/wallet", { key: t.key });
    // The pipeline (for the header) and the handler (for the body) each wait at most the timeout.
    expect(Date.now() - started).toBeLessThan(2 * WALLET_READ_TIMEOUT_MS + 1000);
    expect([r.status, r.body.state, r.headers.get("service-wallet-state")]).toEqual([200, "unknown", "unknown"]);
  });

  it("never suspends exchange: a suspended wallet whose state cannot be read is served", async () => {
    const t = await tenantWith(-100n);
    expect((await call("GET", "/cards", { key: t.key })).status).toBe(402);
    setWalletSource({
      read: async () => {
        throw new Error("down");
      },
    });
    expect((await call("GET", "/cards", { key: t.key })).status).toBe(200);
  });

  it("is what a tenant without a wallet (not billed) shows", async () => {
    const t = await tenantWith(0n);
    await db.db.delete(wallets).where(eq(wallets.tenantId, t.tenantId));
    const r = await call("GET", "/wallet", { key: t.key });
    expect(r.body).toMatchObject({ balance: null, state: "unknown", exchange: "active" });
    // The state comes from the (missing) row read with the key, without asking the source: the wallet gate
    // still sends the header of an unknown state, and /me shows the same wallet.
    expect(r.headers.get("service-wallet-state")).toBe("unknown");
    const me = await call("GET", "/me", { key: t.key });
    expect([me.status, me.headers.get("service-wallet-state")]).toEqual([200, "unknown"]);
    expect(me.body.wallet).toMatchObject({ balance: null, state: "unknown", exchange: "active" });
  });
});

describe("the ledger and the balance change together", () => {
  it("writes one ledger row per change with the balance after it", async () => {
    const t = await tenantWith(0n);
    await changeBalance(db.db, {
      tenantId: t.tenantId,
      amountMinor: 1_000n,
      kind: "topup",
      actor: "staff:x",
      description: "Paid by card",
    });
    await changeBalance(db.db, {
      tenantId: t.tenantId,
      amountMinor: -1_500n,
      kind: "charge",
      actor: `integration:${t.integrationId}`,
      integrationId: t.integrationId,
    });
    expect(await balanceOf(t.tenantId)).toBe(-500n);
    expect(
      (await ledgerRows(t.tenantId)).map((r) => [
        r.kind,
        r.amountMinor,
        r.balanceAfterMinor,
        r.integrationId,
        r.description,
      ]),
    ).toEqual([
      ["topup", 1_000n, 1_000n, null, "Paid by card"],
      ["charge", -1_500n, -500n, t.integrationId, null],
    ]);
  });

  it("serialises parallel changes: every balance_after is distinct and the sum is exact", async () => {
    const t = await tenantWith(0n);
    await Promise.all(
      Array.from({ length: 20 }, () =>
        changeBalance(db.db, { tenantId: t.tenantId, amountMinor: 7n, kind: "credit", actor: "system" }),
      ),
    );
    expect(await balanceOf(t.tenantId)).toBe(140n);
    const after = (await ledgerRows(t.tenantId)).map((r) => r.balanceAfterMinor).sort((a, b) => Number(a - b));
    expect(after).toEqual(Array.from({ length: 20 }, (_, i) => BigInt((i + 1) * 7)));
  });

  it("leaves neither balance nor ledger changed when the ledger row cannot be written", async () => {
    const t = await tenantWith(10_000n);
    const err = await changeBalance(db.db, {
      tenantId: t.tenantId,
      amountMinor: -5_000n,
      kind: "charge",
      actor: "system",
      integrationId: crypto.randomUUID(),
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeTruthy();
    expect(await balanceOf(t.tenantId)).toBe(10_000n);
    expect(await ledgerRows(t.tenantId)).toHaveLength(1);
  });

  it("refuses a zero amount and a missing wallet, writing nothing", async () => {
    const t = await tenantWith(0n);
    await expect(
      changeBalance(db.db, { tenantId: t.tenantId, amountMinor: 0n, kind: "credit", actor: "system" }),
    ).rejects.toMatchObject({ code: "validation_failed" });
    const nobody = crypto.randomUUID();
    const missing = await changeBalance(db.db, {
      tenantId: nobody,
      amountMinor: 1n,
      kind: "credit",
      actor: "system",
    }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ApiError);
    expect((missing as ApiError).code).toBe("not_found");
    expect(
      (await db.db.select({ n: count() }).from(walletLedger).where(eq(walletLedger.tenantId, t.tenantId)))[0].n,
    ).toBe(0);
    expect(
      (
        await db.db
          .select({ n: count() })
          .from(walletLedger)
          .where(and(eq(walletLedger.tenantId, nobody)))
      )[0].n,
    ).toBe(0);
  });
});
