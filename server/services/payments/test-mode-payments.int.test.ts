import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { payments, sandboxCheckouts, walletLedger, wallets } from "@/db/schema";
import { sandboxCheckoutView, sandboxDecisionDoor } from "@/server/payments-door/sandbox-checkout";
import type { StaffActor } from "@/server/services/actor";
import { ensureSandboxWallet } from "@/server/services/wallet/sandbox-wallet";
import { makeStaff, makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { startFakeYooKassa, type FakeApi } from "@/server/testing/payment-fakes";
import { notify } from "@/server/testing/payment-flow";
import { openTestDatabase } from "@/server/testing/test-db";
import { getPayment, listPayments, refreshPayment, startPayment } from "./payments";
import { signSandboxNotification } from "./sandbox-provider";

// Test-mode top-ups (issue 69 item 3) on a platform whose payment provider is a real one (YooKassa, a local
// fake that records every request): a top-up of the sandbox wallet goes through the built-in sandbox
// provider only, credits the sandbox wallet only, and the real provider never hears of it; the sandbox's
// notifications, heard next to a real provider, can never credit live money.

const SHOP = "123456";
const SECRET = "test_secret_key_0123456789";
let fake: FakeApi;
let db: Awaited<ReturnType<typeof openTestDatabase>>;

beforeAll(async () => {
  fake = await startFakeYooKassa(SHOP, SECRET);
  db = await openTestDatabase({
    PAYMENT_PROVIDER: "yookassa",
    YOOKASSA_SHOP_ID: SHOP,
    YOOKASSA_SECRET_KEY: SECRET,
    YOOKASSA_API_URL: fake.url,
  });
});
afterAll(async () => {
  await db.drop();
  await fake.close();
});

/** A tenant with its sandbox wallet and a payer, as a staff actor of each mode. */
async function tenant(): Promise<{ t: TenantFixture; live: StaffActor; test: StaffActor }> {
  const t = await makeTenant(db.db);
  await ensureSandboxWallet(db.db, t.tenantId);
  const staffUserId = await makeStaff(db.db, t.tenantId, ["topup_wallet"]);
  const live: StaffActor = { via: "console", tenantId: t.tenantId, staffUserId, rights: ["topup_wallet"] };
  return { t, live, test: { ...live, livemode: false } };
}
const balanceOf = async (tenantId: string, livemode: boolean) =>
  (
    await db.db
      .select()
      .from(wallets)
      .where(and(eq(wallets.tenantId, tenantId), eq(wallets.livemode, livemode)))
  )[0]!.balanceMinor;
const decide = (paymentId: string, outcome: "pay" | "decline") =>
  sandboxDecisionDoor(
    new Request(`https://api.example.ru/pay/sandbox/${paymentId}/decide`, {
      method: "POST",
      body: new URLSearchParams({ outcome }),
    }),
    paymentId,
  );

describe("a top-up in test mode", () => {
  it("goes through the sandbox provider only and credits the sandbox wallet once; YooKassa hears nothing", async () => {
    const { t, live, test } = await tenant();
    const heard = fake.requests.length;
    const p = await startPayment(db.db, test, { amountMinor: 50_000n });
    expect(p).toMatchObject({ provider: "sandbox", status: "pending", amount: "500.00" });
    expect(p.confirmationUrl).toContain(`/pay/sandbox/${p.id}`);
    // The sandbox's checkout page serves a test-mode payment although YooKassa is the configured provider.
    expect(await sandboxCheckoutView(p.id)).toMatchObject({ paymentId: p.id, amount: "500.00" });
    const answer = await decide(p.id, "pay");
    expect(answer.status).toBe(303);
    expect((await getPayment(db.db, test, p.id)).status).toBe("succeeded");
    expect(await balanceOf(t.tenantId, false)).toBe(1_050_000n);
    expect(await balanceOf(t.tenantId, true)).toBe(100_000n);
    const [topup] = await db.db
      .select()
      .from(walletLedger)
      .where(and(eq(walletLedger.tenantId, t.tenantId), eq(walletLedger.kind, "topup")));
    expect(topup).toMatchObject({ livemode: false, amountMinor: 50_000n });
    // A second notification and the status check credit nothing more.
    await decide(p.id, "pay");
    expect((await refreshPayment(db.db, test, p.id)).status).toBe("succeeded");
    expect(await balanceOf(t.tenantId, false)).toBe(1_050_000n);
    expect(fake.requests.length).toBe(heard);
    // The console's live view neither lists nor reads the sandbox's payment.
    expect((await listPayments(db.db, live)).map((x) => x.id)).not.toContain(p.id);
    expect((await listPayments(db.db, test)).map((x) => x.id)).toEqual([p.id]);
    await expect(getPayment(db.db, live, p.id)).rejects.toMatchObject({ code: "not_found" });
  });

  it("a live top-up still goes to YooKassa", async () => {
    const { live } = await tenant();
    const heard = fake.requests.length;
    const p = await startPayment(db.db, live, { amountMinor: 50_000n });
    expect(p.provider).toBe("yookassa");
    expect(fake.requests.length).toBeGreaterThan(heard);
    expect(await sandboxCheckoutView(p.id)).toBeNull();
  });

  it("a sandbox notification never credits a live payment while a real provider is configured", async () => {
    const { t, live } = await tenant();
    // A live payment made through the sandbox while it was the configured provider, still pending.
    const [p] = await db.db
      .insert(payments)
      .values({
        tenantId: t.tenantId,
        amountMinor: 50_000n,
        provider: "sandbox",
        idempotencyKey: `${t.tenantId}:old`,
        staffUserId: live.staffUserId,
      })
      .returning();
    await db.db.update(payments).set({ providerPaymentId: p!.id }).where(eq(payments.id, p!.id));
    await db.db.insert(sandboxCheckouts).values({ id: p!.id, amountMinor: 50_000n, status: "succeeded" });
    const body = JSON.stringify({ payment_id: p!.id, status: "succeeded" });
    const r = await notify("sandbox", { body, headers: { "sandbox-signature": signSandboxNotification(body) } });
    expect(r).toEqual({ status: 200, body: { outcome: "unknown" } });
    expect(await sandboxCheckoutView(p!.id)).toBeNull();
    expect(await balanceOf(t.tenantId, true)).toBe(100_000n);
    const [row] = await db.db.select().from(payments).where(eq(payments.id, p!.id));
    expect(row!.status).toBe("pending");
  });
});
