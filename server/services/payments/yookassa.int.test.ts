import { describe, expect, it } from "vitest";
import { startFakeYooKassa, type FakeApi } from "@/server/testing/payment-fakes";
import {
  balance,
  freshTenant,
  notify,
  providerFlowSuite,
  startTopUp,
  setupFlow,
  type ProviderHarness,
} from "@/server/testing/payment-flow";

// YooKassa (issue 18): payments made with POST /v3/payments (Basic auth, Idempotence-Key, redirect
// confirmation, capture), notifications trusted for the payment id only and read back with
// GET /v3/payments/{id}. The API is a local fake on 127.0.0.1.

const SHOP = "123456";
const SECRET = "test_secret_key_0123456789";
let fake: FakeApi;
const event = (id: string, e = "payment.succeeded") =>
  JSON.stringify({ type: "notification", event: e, object: { id, status: "succeeded", paid: true } });

const harness: ProviderHarness = {
  id: "yookassa",
  env: () => ({
    PAYMENT_PROVIDER: "yookassa",
    YOOKASSA_SHOP_ID: SHOP,
    YOOKASSA_SECRET_KEY: SECRET,
    YOOKASSA_API_URL: fake.url,
  }),
  start: async () => {
    fake = await startFakeYooKassa(SHOP, SECRET);
  },
  stop: () => fake.close(),
  decide: async (id, status) => {
    fake.payments.get(id)!.status = status;
  },
  setAmount: async (id, amountMinor) => {
    fake.payments.get(id)!.amountMinor = amountMinor;
  },
  notification: (id) => ({
    body: event(id, fake.payments.get(id)!.status === "canceled" ? "payment.canceled" : "payment.succeeded"),
    headers: {},
  }),
  foreignNotification: async () => {
    const id = "2f000999-000f-5000-9000-1b68e7b15f3f";
    fake.payments.set(id, {
      id,
      status: "succeeded",
      amountMinor: 10_000,
      currency: "RUB",
      metadata: { payment_id: crypto.randomUUID() },
      returnUrl: "",
    });
    return { body: event(id), headers: {} };
  },
  hang: (on) => {
    fake.hang = on;
  },
};
const ctx = setupFlow(harness);

describe("yookassa provider: the shared flow", () => providerFlowSuite(harness, ctx));

describe("yookassa specifics", () => {
  it("creates the payment with Basic auth, an Idempotence-Key, a redirect confirmation and capture", async () => {
    await freshTenant(ctx, 0n);
    const p = await startTopUp(ctx, "1500.50");
    const req = fake.requests.filter((r) => r.method === "POST").at(-1)!;
    expect(req.path).toBe("/v3/payments");
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from(`${SHOP}:${SECRET}`).toString("base64")}`);
    expect(req.headers["idempotence-key"]).toBe(p.paymentId);
    expect(JSON.parse(req.body)).toMatchObject({
      amount: { value: "1500.50", currency: "RUB" },
      capture: true,
      confirmation: {
        type: "redirect",
        return_url: `https://api.example.ru/console/wallet/payments/${p.paymentId}?tenant=${ctx.tenant.tenantId}`,
      },
      metadata: { payment_id: p.paymentId },
    });
    expect(p.confirmationUrl).toBe(`https://yoomoney.example/checkout?orderId=${p.providerPaymentId}`);
  });

  it("trusts nothing in the body: a notification saying succeeded is read back, and pending there credits nothing", async () => {
    await freshTenant(ctx, 0n);
    const p = await startTopUp(ctx);
    const before = fake.requests.length;
    const r = await notify("yookassa", { body: event(p.providerPaymentId), headers: {} });
    expect(r.body.outcome).toBe("pending");
    expect(fake.requests.slice(before)).toMatchObject([{ method: "GET", path: `/v3/payments/${p.providerPaymentId}` }]);
    expect(await balance(ctx)).toBe(0n);
  });

  it("an id we never made is ignored without asking YooKassa", async () => {
    const before = fake.requests.length;
    const r = await notify("yookassa", { body: event("2f7777aa-000f-5000-9000-1b68e7b15f3f"), headers: {} });
    expect(r).toEqual({ status: 200, body: { outcome: "unknown" } });
    expect(fake.requests.length).toBe(before);
  });

  it("a payment of ours whose metadata names another payment credits nothing", async () => {
    await freshTenant(ctx, 0n);
    const p = await startTopUp(ctx);
    const fp = fake.payments.get(p.providerPaymentId)!;
    fp.status = "succeeded";
    fp.metadata = { payment_id: crypto.randomUUID() };
    expect((await notify("yookassa", harness.notification(p.providerPaymentId))).body.outcome).toBe("mismatch");
    expect(await balance(ctx)).toBe(0n);
  });

  it("refuses a body that is not a notification", async () => {
    for (const body of ["not json", "{}", JSON.stringify({ type: "notification", object: { id: "../x" } })]) {
      const r = await notify("yookassa", { body, headers: {} });
      expect(r.status).toBe(400);
    }
    const refund = JSON.stringify({ type: "notification", event: "refund.succeeded", object: { id: "abc" } });
    expect((await notify("yookassa", { body: refund, headers: {} })).body.outcome).toBe("ignored");
  });

  it("answers 503 when YooKassa cannot be read back, so it resends later", async () => {
    await freshTenant(ctx, 0n);
    const p = await startTopUp(ctx);
    fake.payments.delete(p.providerPaymentId); // YooKassa answers 404
    const r = await notify("yookassa", { body: event(p.providerPaymentId), headers: {} });
    expect(r.status).toBe(503);
    expect(await balance(ctx)).toBe(0n);
  });
});
