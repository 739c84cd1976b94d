import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { startFakeStripe, stripeSession, type FakeApi } from "@/server/testing/payment-fakes";
import {
  balance,
  freshTenant,
  notify,
  providerFlowSuite,
  startTopUp,
  topupRows,
  setupFlow,
  type ProviderHarness,
} from "@/server/testing/payment-flow";

// Stripe (issue 18): a Checkout Session (mode payment, currency rub) made through the `stripe` package
// against a local fake of the API; notifications verified on the raw body with
// stripe.webhooks.constructEvent, signed here with generateTestHeaderString; event ids deduplicated.

const KEY = "sk_test_0123456789abcdef";
const WHSEC = "whsec_test0123456789abcdef";
const stripe = new Stripe(KEY);
let fake: FakeApi;
let n = 0;

/** A genuinely signed event about a session as the fake has it now. */
function signedEvent(session: object, type: string, id = `evt_test_${++n}`, secret = WHSEC) {
  const body = JSON.stringify({
    id,
    object: "event",
    type,
    api_version: "2025-01-01",
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    data: { object: session },
  });
  return { body, headers: { "stripe-signature": stripe.webhooks.generateTestHeaderString({ payload: body, secret }) } };
}
const typeFor = (status: string) => (status === "canceled" ? "checkout.session.expired" : "checkout.session.completed");

const harness: ProviderHarness = {
  id: "stripe",
  env: () => ({
    PAYMENT_PROVIDER: "stripe",
    STRIPE_SECRET_KEY: KEY,
    STRIPE_WEBHOOK_SECRET: WHSEC,
    STRIPE_API_URL: fake.url,
  }),
  start: async () => {
    fake = await startFakeStripe(KEY);
  },
  stop: () => fake.close(),
  decide: async (id, status) => {
    fake.payments.get(id)!.status = status;
  },
  setAmount: async (id, amountMinor) => {
    fake.payments.get(id)!.amountMinor = amountMinor;
  },
  notification: (id) => {
    const p = fake.payments.get(id)!;
    return signedEvent(stripeSession(p), typeFor(p.status));
  },
  foreignNotification: async () =>
    signedEvent(
      stripeSession({
        id: "cs_test_not_ours",
        status: "succeeded",
        amountMinor: 10_000,
        currency: "rub",
        metadata: { payment_id: crypto.randomUUID() },
        returnUrl: "",
      }),
      "checkout.session.completed",
    ),
  hang: (on) => {
    fake.hang = on;
  },
};
const ctx = setupFlow(harness);

describe("stripe provider: the shared flow", () => providerFlowSuite(harness, ctx));

describe("stripe specifics", () => {
  it("creates a Checkout Session in mode payment, currency rub, with our payment id and an idempotency key", async () => {
    await freshTenant(ctx, 0n);
    const p = await startTopUp(ctx, "1500.50");
    const req = fake.requests.filter((r) => r.method === "POST").at(-1)!;
    expect(req.path).toBe("/v1/checkout/sessions");
    expect(req.headers["idempotency-key"]).toBe(p.paymentId);
    const form = new URLSearchParams(req.body);
    expect(form.get("mode")).toBe("payment");
    expect(form.get("line_items[0][price_data][currency]")).toBe("rub");
    expect(form.get("line_items[0][price_data][unit_amount]")).toBe("150050");
    expect(form.get("metadata[payment_id]")).toBe(p.paymentId);
    expect(p.confirmationUrl).toBe(`https://checkout.stripe.example/c/pay/${p.providerPaymentId}`);
  });

  it("a completed session still unpaid waits for async_payment_succeeded, which credits", async () => {
    await freshTenant(ctx, 0n);
    const p = await startTopUp(ctx);
    const session = stripeSession(fake.payments.get(p.providerPaymentId)!);
    const done = await notify("stripe", signedEvent({ ...session, status: "complete" }, "checkout.session.completed"));
    expect(done.body.outcome).toBe("pending");
    fake.payments.get(p.providerPaymentId)!.status = "succeeded";
    const paid = stripeSession(fake.payments.get(p.providerPaymentId)!);
    const r = await notify("stripe", signedEvent(paid, "checkout.session.async_payment_succeeded"));
    expect(r.body.outcome).toBe("credited");
    expect(await balance(ctx)).toBe(50_000n);
  });

  it("async_payment_failed cancels", async () => {
    await freshTenant(ctx, 0n);
    const p = await startTopUp(ctx);
    const s = stripeSession(fake.payments.get(p.providerPaymentId)!);
    const r = await notify(
      "stripe",
      signedEvent({ ...s, status: "complete" }, "checkout.session.async_payment_failed"),
    );
    expect(r.body.outcome).toBe("canceled");
  });

  it("the same event id is handled once", async () => {
    await freshTenant(ctx, 0n);
    const p = await startTopUp(ctx, "100.00");
    fake.payments.get(p.providerPaymentId)!.status = "succeeded";
    const s = stripeSession(fake.payments.get(p.providerPaymentId)!);
    const e = signedEvent(s, "checkout.session.completed", "evt_once");
    expect((await notify("stripe", e)).body.outcome).toBe("credited");
    expect((await notify("stripe", e)).body.outcome).toBe("duplicate_event");
    expect(await topupRows(ctx)).toHaveLength(1);
  });

  it("a bad signature is 401 and credits nothing: another secret, a changed body, none at all", async () => {
    await freshTenant(ctx, 0n);
    const p = await startTopUp(ctx);
    fake.payments.get(p.providerPaymentId)!.status = "succeeded";
    const s = stripeSession(fake.payments.get(p.providerPaymentId)!);
    const other = signedEvent(s, "checkout.session.completed", "evt_forged", "whsec_someoneelse");
    const good = signedEvent(s, "checkout.session.completed", "evt_tampered");
    const tampered = { ...good, body: good.body.replace('"livemode":false', '"livemode":true') };
    for (const e of [other, tampered, { body: good.body, headers: {} }]) {
      const r = await notify("stripe", e);
      expect(r.status).toBe(401);
      expect(r.body.code).toBe("signature_invalid");
    }
    expect(await balance(ctx)).toBe(0n);
    // The genuine one, refused events notwithstanding, still credits.
    expect((await notify("stripe", good)).body.outcome).toBe("credited");
  });

  it("ignores other event types", async () => {
    const r = await notify("stripe", signedEvent({ id: "pi_1" }, "payment_intent.created"));
    expect(r).toEqual({ status: 200, body: { outcome: "ignored" } });
  });
});
