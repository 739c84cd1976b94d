import { and, asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { events, integrationDailySpend, operations, walletLedger, wallets } from "@/db/schema";
import { runOperation } from "@/server/jobs/run-operation";
import { catalogModel } from "@/server/services/ai-seller/catalog-model";
import type { StaffActor } from "@/server/services/actor";
import { createCard } from "@/server/services/cards/cards";
import { issueKey } from "@/server/services/keys/keys";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { listTenantOperations } from "@/server/services/operations/operation-list";
import { setPreview } from "@/server/services/tenants/previews";
import { ensureSandboxWallet } from "@/server/services/wallet/sandbox-wallet";
import { getSpendLimits, setSpendLimits } from "@/server/services/wallet/spend-limits";
import { call } from "@/server/testing/api-client";
import { makeEmptySandboxTenant, type SandboxTenantFixture } from "@/server/testing/empty-sandbox";
import { makeTenant } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";

// Money in test mode (issue 69 item 3), as an integrator with a test key sees it: a paid message is held
// and charged against the sandbox wallet by the same rules as live money, and every 402 of the wallet can be
// provoked in the sandbox; the live wallet, its ledger and its spend never move.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let n = 0;
const P = { preview: "conversation-writes" as const };
const T = { preview: "test-mode" as const };

beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(async () => db.drop());

/**
 * A tenant with the previews conversation-writes and test-mode, a card, a live and a test key, and a sandbox
 * without sample data (makeEmptySandboxTenant) but its wallet of 10,000.00 RUB: its money can be counted.
 */
async function shop(): Promise<SandboxTenantFixture> {
  const t = await makeEmptySandboxTenant(db.db);
  await setPreview(db.db, t.tenantId, "conversation-writes", true);
  await ensureSandboxWallet(db.db, t.tenantId);
  await createCard(db.db, { tenantId: t.tenantId, via: "operator" }, { code: "socks", name: "Wool socks" });
  return t;
}
async function conv(key: string): Promise<string> {
  const r = await call("POST", "/conversations", { key, json: { external_customer_id: `c-${++n}` }, ...P });
  expect(r.status).toBe(201);
  return r.body.id as string;
}
const say = (key: string, id: string, content: string) =>
  call("POST", `/conversations/${id}/messages`, { key, json: { content }, idempotencyKey: `m-${++n}`, ...P });
const walletRow = async (tenantId: string, livemode: boolean) =>
  (
    await db.db
      .select()
      .from(wallets)
      .where(and(eq(wallets.tenantId, tenantId), eq(wallets.livemode, livemode)))
  )[0]!;
const ledgerOf = (tenantId: string, livemode: boolean) =>
  db.db
    .select()
    .from(walletLedger)
    .where(and(eq(walletLedger.tenantId, tenantId), eq(walletLedger.livemode, livemode)))
    .orderBy(asc(walletLedger.createdAt), asc(walletLedger.id));
const setSandbox = (key: string, json: unknown) => call("POST", "/test-helpers/wallet", { key, json, ...T });

describe("a sandbox key's paid message", () => {
  it("is held and charged on the sandbox wallet; the live wallet, ledger and spend never move", async () => {
    const s = await shop();
    const live = { wallet: await walletRow(s.tenantId, true), ledger: await ledgerOf(s.tenantId, true) };
    const r = await say(s.testKey, await conv(s.testKey), "Do you have warm socks?");
    expect(r.status).toBe(202);
    const opId = r.body.operation.id as string;
    const [queued] = await db.db.select().from(operations).where(eq(operations.id, opId));
    expect(queued).toMatchObject({ livemode: false, holdOpen: true });
    expect(queued!.holdMinor).toBeGreaterThan(0n);
    const held = await walletRow(s.tenantId, false);
    expect(held).toMatchObject({ balanceMinor: 1_000_000n, heldMinor: queued!.holdMinor });

    await runOperation(db.db, opId, { offlineModel: catalogModel() });
    const done = await call("GET", `/operations/${opId}`, { key: s.testKey });
    expect(done.body.operation).toMatchObject({ status: "succeeded", usage: { model: "catalog-1" } });
    const [row] = await db.db.select().from(operations).where(eq(operations.id, opId));
    const charged = row!.chargedMinor!;
    expect(charged).toBeGreaterThan(0n);
    expect(done.body.operation.usage.cost.amount).toBe((Number(charged) / 100).toFixed(2));
    const after = await walletRow(s.tenantId, false);
    expect(after).toMatchObject({ balanceMinor: 1_000_000n - charged, heldMinor: 0n });
    const sandboxLedger = await ledgerOf(s.tenantId, false);
    // The charge and the release are written in one transaction, so they share `created_at` and their
    // order in the ledger is not defined; the opening credit and the hold come before them.
    const kinds = sandboxLedger.map((l) => l.kind);
    expect(kinds.slice(0, 2)).toEqual(["credit", "hold"]);
    expect([...kinds.slice(2)].sort()).toEqual(["charge", "release"]);
    expect(sandboxLedger.reduce((sum, l) => sum + l.amountMinor, 0n)).toBe(after.balanceMinor);
    // The sandbox key's /wallet shows the sandbox balance and its spend today; the live key's is untouched.
    const testWallet = await call("GET", "/wallet", { key: s.testKey });
    expect(testWallet.body.balance.amount).toBe((Number(1_000_000n - charged) / 100).toFixed(2));
    expect(testWallet.body.daily_spend.used.amount).toBe((Number(charged) / 100).toFixed(2));
    const liveWallet = await call("GET", "/wallet", { key: s.key });
    expect(liveWallet.body).toMatchObject({
      balance: { amount: "1000.00" },
      daily_spend: { used: { amount: "0.00" } },
    });
    const spend = await db.db
      .select()
      .from(integrationDailySpend)
      .where(eq(integrationDailySpend.integrationId, s.integrationId));
    expect(spend.map((x) => [x.livemode, x.usedMinor])).toEqual([[false, charged]]);
    expect(await walletRow(s.tenantId, true)).toEqual(live.wallet);
    expect(await ledgerOf(s.tenantId, true)).toEqual(live.ledger);
    // A live key of the same integration does not see the sandbox's operation; nor does the console's live
    // view, while its Test mode lists it. Its event is the sandbox's.
    expect((await call("GET", `/operations/${opId}`, { key: s.key })).status).toBe(404);
    const staff: StaffActor = { via: "console", tenantId: s.tenantId, staffUserId: "staff-1", rights: [] };
    const ids = async (a: StaffActor) => (await listTenantOperations(db.db, a, 100, null)).operations.map((o) => o.id);
    expect(await ids(staff)).not.toContain(opId);
    expect(await ids({ ...staff, livemode: false })).toContain(opId);
    const [completed] = await db.db
      .select()
      .from(events)
      .where(and(eq(events.tenantId, s.tenantId), eq(events.type, "operation.completed")));
    expect(completed!.livemode).toBe(false);
  });

  it("a test key of a tenant without the preview test-mode still works in live data for free: nothing held, live events", async () => {
    const t = await makeTenant(db.db);
    await setPreview(db.db, t.tenantId, "conversation-writes", true);
    const k = await issueKey(db.db, { integrationId: t.integrationId, mode: "test", ipAllowlist: ["127.0.0.1"] });
    const before = { wallet: await walletRow(t.tenantId, true), ledger: await ledgerOf(t.tenantId, true) };
    const r = await say(k.key, await conv(k.key), "Do you have warm socks?");
    expect(r.status).toBe(202);
    const opId = r.body.operation.id as string;
    await runOperation(db.db, opId, { offlineModel: catalogModel() });
    const [row] = await db.db.select().from(operations).where(eq(operations.id, opId));
    expect(row).toMatchObject({ livemode: false, status: "succeeded", holdMinor: 0n, chargedMinor: 0n });
    expect((await call("GET", `/operations/${opId}`, { key: k.key })).body.operation.usage.cost.amount).toBe("0.00");
    expect((await call("GET", "/wallet", { key: k.key })).body.balance.amount).toBe("1000.00");
    expect(await walletRow(t.tenantId, true)).toEqual(before.wallet);
    expect(await ledgerOf(t.tenantId, true)).toEqual(before.ledger);
    // No sandbox wallet was opened or paid from.
    expect(
      await db.db
        .select()
        .from(wallets)
        .where(and(eq(wallets.tenantId, t.tenantId), eq(wallets.livemode, false))),
    ).toEqual([]);
    // It worked in live data, so its operation's event goes to the tenant's live subscriptions.
    const [completed] = await db.db
      .select()
      .from(events)
      .where(and(eq(events.tenantId, t.tenantId), eq(events.type, "operation.completed")));
    expect(completed!.livemode).toBe(true);
  });

  it("402 insufficient_funds when the sandbox's available balance is below the hold; nothing kept, nothing held", async () => {
    const s = await shop();
    const id = await conv(s.testKey);
    expect((await setSandbox(s.testKey, { balance: "0.01" })).status).toBe(200);
    const r = await say(s.testKey, id, "Do you have warm socks?");
    expect(r.status).toBe(402);
    expect(r.body.code).toBe("insufficient_funds");
    expect(r.body.detail).toContain("(0.01 RUB)");
    expect(await db.db.select().from(operations).where(eq(operations.conversationId, id))).toEqual([]);
    expect((await walletRow(s.tenantId, false)).heldMinor).toBe(0n);
    // The live wallet, well funded, is not what the sandbox key spends.
    expect((await walletRow(s.tenantId, true)).balanceMinor).toBe(100_000n);
  });

  it("402 wallet_suspended while the sandbox wallet is negative or blocked; the live key goes on", async () => {
    const s = await shop();
    const id = await conv(s.testKey);
    const liveConv = await conv(s.key);
    await setSandbox(s.testKey, { balance: "-50.00" });
    const negative = await say(s.testKey, id, "socks?");
    expect(negative.status).toBe(402);
    expect(negative.body).toMatchObject({ code: "wallet_suspended", balance: { amount: "-50.00", currency: "RUB" } });
    expect((await say(s.key, liveConv, "socks?")).status).toBe(202);
    await setSandbox(s.testKey, { balance: "100.00" });
    await setSandbox(s.testKey, { state: "blocked" });
    expect((await say(s.testKey, id, "socks?")).body.code).toBe("wallet_suspended");
    await setSandbox(s.testKey, { state: "ok" });
    expect((await say(s.testKey, id, "socks?")).status).toBe(202);
  });

  it("402 spend_limit_reached by the sandbox wallet's own limits and the tenant's test-mode concurrency", async () => {
    const s = await shop();
    const id = await conv(s.testKey);
    const sandbox = { tenantId: s.tenantId, livemode: false };
    await setSpendLimits(db.db, sandbox, { maxOperationCostMinor: 1n });
    const max = await say(s.testKey, id, "socks?");
    expect(max.status).toBe(402);
    expect(max.body).toMatchObject({ code: "spend_limit_reached" });
    expect(max.body.detail).toContain("maximum cost of one operation (0.01 RUB)");
    // The live wallet keeps its own limits.
    expect(await getSpendLimits(db.db, { tenantId: s.tenantId })).toMatchObject({
      max_operation_cost: { amount: "100.00" },
    });
    await setSpendLimits(db.db, sandbox, { maxOperationCostMinor: 10_000n, dailyLimitMinor: 1n });
    const daily = await say(s.testKey, id, "socks?");
    expect(daily.body.detail).toContain("tenant's daily spend limit (0.01 RUB)");
    await setSpendLimits(db.db, sandbox, { dailyLimitMinor: null });

    await setLimitOverride(db.db, { tenantId: s.tenantId }, { paidConcurrency: 1 });
    expect((await say(s.testKey, id, "socks one")).status).toBe(202);
    const busy = await say(s.testKey, id, "socks two");
    expect(busy.body.detail).toContain("limit of 1 simultaneous paid operations of the tenant in test mode");
    // Queued sandbox work never refuses a live reply.
    expect((await say(s.key, await conv(s.key), "live socks")).status).toBe(202);
  });
});
