import { TRPCError } from "@trpc/server";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { payments, walletLedger, wallets } from "@/db/schema";
import { paymentNotificationDoor } from "@/server/payments-door/notification";
import { createCaller } from "@/server/trpc/root";
import { setProviderTimeoutMs, type ProviderId } from "@/server/services/payments/provider";
import { changeBalance } from "@/server/services/wallet/wallet-ledger";
import { call } from "./api-client";
import { makeStaff, makeTenant, type TenantFixture } from "./fixtures";
import { openTestDatabase } from "./test-db";

// The top-up flow every payment provider must pass (issue 18 item 4), run by each provider's test
// file with a harness around that provider's local fake: success, cancel, duplicate and concurrent
// notifications, notification before the return page, return without notification, a provider that
// does not answer, and notifications that must credit nothing.

/** A provider under test and its fake's controls. */
export interface ProviderHarness {
  id: ProviderId;
  /** Environment variables selecting the provider (read after `start`). */
  env(): Record<string, string>;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The provider's side decides the payment (the payer paid or gave up), sending nothing. */
  decide(providerPaymentId: string, status: "succeeded" | "canceled"): Promise<void>;
  /** Changes the amount the provider reports (a mismatch that must credit nothing). */
  setAmount(providerPaymentId: string, amountMinor: number): Promise<void>;
  /** A genuine notification about the payment as the provider would send it now. */
  notification(providerPaymentId: string): { body: string; headers: Record<string, string> };
  /** A genuine notification about a payment the provider has but we never started. */
  foreignNotification(): Promise<{ body: string; headers: Record<string, string> }>;
  /** Makes the provider stop answering (null: sandbox, which has no network to time out). */
  hang: ((on: boolean) => void) | null;
}

/** The shared state of one provider's test file. */
export interface FlowContext {
  db: Awaited<ReturnType<typeof openTestDatabase>>;
  staff: { id: string; email: string; name: string };
  tenant: TenantFixture;
}

/** Sends a notification to `POST /api/payments/{provider}` through its door (what the route file calls). */
export async function notify(provider: string, n: { body: string; headers: Record<string, string> }) {
  const res = await paymentNotificationDoor(
    new Request(`https://api.example.ru/api/payments/${provider}`, {
      method: "POST",
      body: n.body,
      headers: { "content-type": "application/json", ...n.headers },
    }),
    provider,
  );
  return { status: res.status, body: (await res.json()) as { outcome?: string; code?: string } };
}

/** Opens the database with the provider's environment and a negative-wallet tenant with a payer. */
export function setupFlow(h: ProviderHarness): FlowContext {
  const ctx = {} as FlowContext;
  beforeAll(async () => {
    await h.start();
    ctx.db = await openTestDatabase(h.env());
  });
  afterAll(async () => {
    setProviderTimeoutMs(undefined);
    await ctx.db.drop();
    await h.stop();
  });
  return ctx;
}

/** A fresh tenant whose wallet is `minor` (default -50.00 RUB: exchange suspended) and its payer. */
export async function freshTenant(ctx: FlowContext, minor = -5_000n): Promise<void> {
  ctx.tenant = await makeTenant(ctx.db.db, { balanceMinor: 0n });
  if (minor)
    await changeBalance(ctx.db.db, {
      tenantId: ctx.tenant.tenantId,
      amountMinor: minor,
      kind: "debit",
      actor: "operator",
    });
  const id = await makeStaff(ctx.db.db, ctx.tenant.tenantId, ["topup_wallet"]);
  ctx.staff = { id, email: `${id}@example.com`, name: "Staff" };
}

export const console_ = (ctx: FlowContext) => createCaller({ db: ctx.db.db, staff: ctx.staff }).wallet;

/** Starts a top-up in the console; returns our payment and the provider's payment id. */
export async function startTopUp(ctx: FlowContext, amount = "500.00") {
  const r = await console_(ctx).topUp({ tenantId: ctx.tenant.tenantId, amount });
  const [row] = await ctx.db.db.select().from(payments).where(eq(payments.id, r.paymentId));
  return { paymentId: r.paymentId, providerPaymentId: row.providerPaymentId!, confirmationUrl: r.confirmationUrl };
}

export const check = (ctx: FlowContext, paymentId: string) =>
  console_(ctx).checkPayment({ tenantId: ctx.tenant.tenantId, paymentId });

export async function balance(ctx: FlowContext): Promise<bigint> {
  return (
    await ctx.db.db
      .select()
      .from(wallets)
      .where(and(eq(wallets.tenantId, ctx.tenant.tenantId), eq(wallets.livemode, true)))
  )[0].balanceMinor;
}

export async function topupRows(ctx: FlowContext) {
  return ctx.db.db
    .select()
    .from(walletLedger)
    .where(and(eq(walletLedger.tenantId, ctx.tenant.tenantId), eq(walletLedger.kind, "topup")));
}

/** The scenarios every provider passes. */
export function providerFlowSuite(h: ProviderHarness, ctx: FlowContext): void {
  it("success: pending until the notification, then credited once with a topup row naming the payment; the API answers 200 again", async () => {
    await freshTenant(ctx);
    const cards = () => call("GET", "/cards", { key: ctx.tenant.key });
    expect((await cards()).status).toBe(402);
    const p = await startTopUp(ctx, "500.00");
    expect(p.confirmationUrl).toMatch(/^https?:\/\//);
    expect((await console_(ctx).payment({ tenantId: ctx.tenant.tenantId, paymentId: p.paymentId })).status).toBe(
      "pending",
    );
    expect(await balance(ctx)).toBe(-5_000n);
    await h.decide(p.providerPaymentId, "succeeded");
    const r = await notify(h.id, h.notification(p.providerPaymentId));
    expect(r).toEqual({ status: 200, body: { outcome: "credited" } });
    expect(await balance(ctx)).toBe(45_000n);
    const [row] = await topupRows(ctx);
    expect(row).toMatchObject({ amountMinor: 50_000n, actor: `staff:${ctx.staff.id}` });
    expect(row.description).toContain(p.paymentId);
    const [pay] = await ctx.db.db.select().from(payments).where(eq(payments.id, p.paymentId));
    expect(pay).toMatchObject({ status: "succeeded", ledgerId: row.id, provider: h.id });
    const list = await console_(ctx).payments({ tenantId: ctx.tenant.tenantId });
    expect(list).toMatchObject([{ id: p.paymentId, amount: "500.00", status: "succeeded", by: ctx.staff.email }]);
    expect((await cards()).status).toBe(200);
  });

  it("cancel: the payment becomes canceled and nothing is credited, even by a later notification", async () => {
    await freshTenant(ctx);
    const p = await startTopUp(ctx);
    await h.decide(p.providerPaymentId, "canceled");
    expect((await notify(h.id, h.notification(p.providerPaymentId))).body.outcome).toBe("canceled");
    expect((await check(ctx, p.paymentId)).status).toBe("canceled");
    await h.decide(p.providerPaymentId, "succeeded");
    expect((await notify(h.id, h.notification(p.providerPaymentId))).body.outcome).not.toBe("credited");
    expect(await balance(ctx)).toBe(-5_000n);
    expect(await topupRows(ctx)).toHaveLength(0);
  });

  it("a duplicate notification credits once", async () => {
    await freshTenant(ctx, 0n);
    const p = await startTopUp(ctx, "100.00");
    await h.decide(p.providerPaymentId, "succeeded");
    const n = h.notification(p.providerPaymentId);
    expect((await notify(h.id, n)).body.outcome).toBe("credited");
    const again = await notify(h.id, n);
    expect(again.status).toBe(200);
    expect(["settled_before", "duplicate_event"]).toContain(again.body.outcome);
    expect((await notify(h.id, h.notification(p.providerPaymentId))).body.outcome).not.toBe("credited");
    expect(await balance(ctx)).toBe(10_000n);
    expect(await topupRows(ctx)).toHaveLength(1);
  });

  it("concurrent notifications and status checks credit once", async () => {
    await freshTenant(ctx, 0n);
    const p = await startTopUp(ctx, "250.00");
    await h.decide(p.providerPaymentId, "succeeded");
    const results = await Promise.all([
      ...Array.from({ length: 6 }, () => notify(h.id, h.notification(p.providerPaymentId))),
      check(ctx, p.paymentId),
      check(ctx, p.paymentId),
    ]);
    const outcomes = results.slice(0, 6).map((r) => (r as { body: { outcome?: string } }).body.outcome);
    expect(outcomes.filter((o) => o === "credited").length).toBeLessThanOrEqual(1);
    expect(await balance(ctx)).toBe(25_000n);
    expect(await topupRows(ctx)).toHaveLength(1);
  });

  it("a notification before the return page: the page finds it succeeded and credits nothing more", async () => {
    await freshTenant(ctx, 0n);
    const p = await startTopUp(ctx, "100.00");
    await h.decide(p.providerPaymentId, "succeeded");
    await notify(h.id, h.notification(p.providerPaymentId));
    expect(await check(ctx, p.paymentId)).toMatchObject({ status: "succeeded", checkFailed: false });
    expect(await check(ctx, p.paymentId)).toMatchObject({ status: "succeeded" });
    expect(await balance(ctx)).toBe(10_000n);
  });

  it("a return without notification: the status check credits the payment, once", async () => {
    await freshTenant(ctx);
    const p = await startTopUp(ctx, "100.00");
    expect(await check(ctx, p.paymentId)).toMatchObject({ status: "pending", checkFailed: false });
    await h.decide(p.providerPaymentId, "succeeded");
    expect(await check(ctx, p.paymentId)).toMatchObject({ status: "succeeded", checkFailed: false });
    expect(await check(ctx, p.paymentId)).toMatchObject({ status: "succeeded" });
    expect(await balance(ctx)).toBe(5_000n);
    expect(await topupRows(ctx)).toHaveLength(1);
  });

  it("a notification while the provider still says pending credits nothing", async () => {
    await freshTenant(ctx, 0n);
    const p = await startTopUp(ctx);
    const r = await notify(h.id, h.notification(p.providerPaymentId));
    expect(r).toEqual({ status: 200, body: { outcome: "pending" } });
    expect(await balance(ctx)).toBe(0n);
  });

  it("a notification whose amount differs from ours credits nothing and leaves the payment pending", async () => {
    await freshTenant(ctx, 0n);
    const p = await startTopUp(ctx, "500.00");
    await h.decide(p.providerPaymentId, "succeeded");
    await h.setAmount(p.providerPaymentId, 100);
    expect((await notify(h.id, h.notification(p.providerPaymentId))).body.outcome).toBe("mismatch");
    expect((await check(ctx, p.paymentId)).status).toBe("pending");
    expect(await balance(ctx)).toBe(0n);
  });

  it("a notification of a payment that is not ours credits nothing", async () => {
    await freshTenant(ctx, 0n);
    const r = await notify(h.id, await h.foreignNotification());
    expect(r).toEqual({ status: 200, body: { outcome: "unknown" } });
    expect(await balance(ctx)).toBe(0n);
    expect(await topupRows(ctx)).toHaveLength(0);
  });

  it("refuses amounts outside 100.00 to 1,000,000.00 RUB and starts nothing", async () => {
    await freshTenant(ctx, 0n);
    for (const amount of ["99.99", "1000000.01", "0", "12,50"]) {
      const err = await console_(ctx)
        .topUp({ tenantId: ctx.tenant.tenantId, amount })
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(TRPCError);
      expect((err as TRPCError).code).toBe("BAD_REQUEST");
    }
    expect(await ctx.db.db.select().from(payments).where(eq(payments.tenantId, ctx.tenant.tenantId))).toHaveLength(0);
    expect((await startTopUp(ctx, "1000000.00")).confirmationUrl).toBeTruthy();
  });

  if (h.hang) {
    const hang = h.hang;
    it("a provider that does not answer: the payment stays pending and the status check retries", async () => {
      await freshTenant(ctx);
      const p = await startTopUp(ctx, "100.00");
      await h.decide(p.providerPaymentId, "succeeded");
      setProviderTimeoutMs(300);
      hang(true);
      try {
        expect(await check(ctx, p.paymentId)).toMatchObject({ status: "pending", checkFailed: true });
        const started = await console_(ctx)
          .topUp({ tenantId: ctx.tenant.tenantId, amount: "100.00" })
          .then(
            () => null,
            (e: unknown) => e as TRPCError,
          );
        expect(started?.cause).toMatchObject({ code: "upstream_unavailable" });
      } finally {
        hang(false);
        setProviderTimeoutMs(undefined);
      }
      expect(await balance(ctx)).toBe(-5_000n);
      expect(await check(ctx, p.paymentId)).toMatchObject({ status: "succeeded", checkFailed: false });
      expect(await balance(ctx)).toBe(5_000n);
    });
  }
}
