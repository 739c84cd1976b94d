import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as notifyRoute } from "@/app/api/payments/[provider]/route";
import { POST as decideRoute } from "@/app/pay/sandbox/[id]/decide/route";
import { payments, sandboxCheckouts } from "@/db/schema";
import { env } from "@/server/env";
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
import { decideSandboxCheckout, SANDBOX_SIGNATURE_HEADER, signSandboxNotification } from "./sandbox-provider";

// The built-in sandbox provider (issue 18): its checkout page's "Pay" and "Decline" go through the same
// verified-notification path as a real provider's, signed with a key derived from APP_SECRET.

const signed = (body: string) => ({ body, headers: { [SANDBOX_SIGNATURE_HEADER]: signSandboxNotification(body) } });

const harness: ProviderHarness = {
  id: "sandbox",
  env: () => ({ PAYMENT_PROVIDER: "sandbox" }),
  start: async () => {},
  stop: async () => {},
  decide: async (id, status) => {
    await ctx.db.db.update(sandboxCheckouts).set({ status }).where(eq(sandboxCheckouts.id, id));
  },
  setAmount: async (id, amountMinor) => {
    await ctx.db.db
      .update(sandboxCheckouts)
      .set({ amountMinor: BigInt(amountMinor) })
      .where(eq(sandboxCheckouts.id, id));
  },
  notification: (id) => signed(JSON.stringify({ payment_id: id, status: "succeeded" })),
  foreignNotification: async () => {
    const id = crypto.randomUUID();
    await ctx.db.db.insert(sandboxCheckouts).values({ id, amountMinor: 10_000n, status: "succeeded" });
    return signed(JSON.stringify({ payment_id: id }));
  },
  hang: null,
};
const ctx = setupFlow(harness);

describe("sandbox provider: the shared flow", () => providerFlowSuite(harness, ctx));

describe("sandbox checkout page", () => {
  const decide = (id: string, outcome: string) =>
    decideRoute(
      new Request(`https://api.example.ru/pay/sandbox/${id}/decide`, {
        method: "POST",
        body: new URLSearchParams({ outcome }),
      }),
      { params: Promise.resolve({ id }) },
    );

  it("the confirmation page is the app's /pay/sandbox/{payment_id}", async () => {
    await freshTenant(ctx, 0n);
    const p = await startTopUp(ctx);
    expect(p.confirmationUrl).toBe(`https://api.example.ru/pay/sandbox/${p.paymentId}`);
  });

  it("Pay credits through the signed notification and sends the payer to the return page; a second click does nothing", async () => {
    await freshTenant(ctx);
    const p = await startTopUp(ctx, "500.00");
    const res = await decide(p.paymentId, "pay");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(
      `https://api.example.ru/console/wallet/payments/${p.paymentId}?tenant=${ctx.tenant.tenantId}`,
    );
    expect(await balance(ctx)).toBe(45_000n);
    expect((await decide(p.paymentId, "pay")).status).toBe(303);
    expect((await decide(p.paymentId, "decline")).status).toBe(303);
    expect(await topupRows(ctx)).toHaveLength(1);
  });

  it("Decline cancels and credits nothing", async () => {
    await freshTenant(ctx, 0n);
    const p = await startTopUp(ctx);
    expect((await decide(p.paymentId, "decline")).status).toBe(303);
    const [row] = await ctx.db.db.select().from(payments).where(eq(payments.id, p.paymentId));
    expect(row.status).toBe("canceled");
    expect(await balance(ctx)).toBe(0n);
  });

  it("refuses an unknown outcome or payment", async () => {
    await freshTenant(ctx, 0n);
    const p = await startTopUp(ctx);
    expect((await decide(p.paymentId, "steal")).status).toBe(400);
    expect((await decide(crypto.randomUUID(), "pay")).status).toBe(404);
    expect(await balance(ctx)).toBe(0n);
  });
});

describe("forged sandbox notifications", () => {
  it("a bad or missing signature is 401 and credits nothing", async () => {
    await freshTenant(ctx, 0n);
    const p = await startTopUp(ctx);
    await decideSandboxCheckout(ctx.db.db, p.paymentId, "pay");
    const body = JSON.stringify({ payment_id: p.paymentId });
    for (const headers of [
      {} as Record<string, string>,
      { [SANDBOX_SIGNATURE_HEADER]: "v1=00" },
      { [SANDBOX_SIGNATURE_HEADER]: signSandboxNotification(`${body} `) },
    ]) {
      const r = await notify("sandbox", { body, headers });
      expect(r.status).toBe(401);
      expect(r.body.code).toBe("signature_invalid");
    }
    expect(await balance(ctx)).toBe(0n);
  });

  it("the route file serves the door; another provider's endpoint is 404 while the sandbox is configured", async () => {
    expect(env().payment.provider).toBe("sandbox");
    const post = (provider: string, body: string, headers: Record<string, string> = {}) =>
      notifyRoute(new Request(`https://api.example.ru/api/payments/${provider}`, { method: "POST", body, headers }), {
        params: Promise.resolve({ provider }),
      });
    const body = JSON.stringify({ payment_id: crypto.randomUUID() });
    const ok = await post("sandbox", body, { [SANDBOX_SIGNATURE_HEADER]: signSandboxNotification(body) });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ outcome: "unknown" });
    const other = await post("yookassa", "{}");
    expect(other.status).toBe(404);
    expect(other.headers.get("content-type")).toBe("application/problem+json");
    expect((await post("sandbox", "x".repeat(70_000))).status).toBe(413);
  });
});
