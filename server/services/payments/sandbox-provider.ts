import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { sandboxCheckouts } from "@/db/schema";
import { env } from "@/server/env";
import { notFound } from "@/server/errors";
import { forgedNotification, malformedNotification, type PaymentProvider, type ProviderPayment } from "./provider";

/** Header of a sandbox notification: `v1=<hex HMAC-SHA256 of the raw body>` with a key from `APP_SECRET`. */
export const SANDBOX_SIGNATURE_HEADER = "sandbox-signature";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function signingKey(): Buffer {
  return Buffer.from(hkdfSync("sha256", env().appSecret, "", "payment-sandbox-notification", 32));
}

/** `v1=<hex>` signature of a sandbox notification body. */
export function signSandboxNotification(rawBody: string): string {
  return `v1=${createHmac("sha256", signingKey()).update(rawBody).digest("hex")}`;
}

/**
 * The built-in test provider: no money moves. Its checkout page is served by the app at
 * `/pay/sandbox/{payment_id}`; the payer's choice ("Pay" or "Decline") is kept on the sandbox's side
 * (`sandbox_checkouts`) and announced by a notification signed with a server secret, which goes
 * through the same verified path as a real provider's. Refused in production unless
 * `PAYMENT_SANDBOX=allow` (server/env.ts).
 */
export const sandboxProvider: PaymentProvider = {
  id: "sandbox",
  label: "Sandbox (test payment, no money moves)",
  async createCheckout(db, input) {
    await db
      .insert(sandboxCheckouts)
      .values({ id: input.paymentId, amountMinor: input.amountMinor })
      .onConflictDoNothing();
    const origin = env().cellOrigins[env().cell];
    return { providerPaymentId: input.paymentId, confirmationUrl: `${origin}/pay/sandbox/${input.paymentId}` };
  },
  verifyNotification(rawBody, headers) {
    const given = Buffer.from(headers.get(SANDBOX_SIGNATURE_HEADER) ?? "");
    const expected = Buffer.from(signSandboxNotification(rawBody));
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw forgedNotification(`the ${SANDBOX_SIGNATURE_HEADER} header does not match the body`);
    let id: unknown;
    try {
      id = (JSON.parse(rawBody) as { payment_id?: unknown }).payment_id;
    } catch {
      throw malformedNotification("the body is not JSON");
    }
    if (typeof id !== "string" || !UUID.test(id)) throw malformedNotification("payment_id is not a payment id");
    return { eventId: null, providerPaymentId: id, payment: null };
  },
  async readPayment(db, providerPaymentId) {
    const [c] = UUID.test(providerPaymentId)
      ? await db.select().from(sandboxCheckouts).where(eq(sandboxCheckouts.id, providerPaymentId))
      : [];
    if (!c) throw notFound("Sandbox payment");
    return sandboxView(c);
  },
};

function sandboxView(c: typeof sandboxCheckouts.$inferSelect): ProviderPayment {
  return {
    providerPaymentId: c.id,
    status: c.status as ProviderPayment["status"],
    amountMinor: c.amountMinor,
    currency: "RUB",
    ourPaymentId: c.id,
  };
}

/**
 * The payer's choice on the sandbox checkout page, recorded on the sandbox's side (a pending sandbox
 * payment only; a second click changes nothing), and the signed notification the sandbox sends.
 * @throws ApiError `not_found` (no such sandbox payment).
 */
export async function decideSandboxCheckout(
  db: Db,
  paymentId: string,
  outcome: "pay" | "decline",
): Promise<{ payment: ProviderPayment; notification: { body: string; signature: string } }> {
  if (!UUID.test(paymentId)) throw notFound("Sandbox payment");
  await db
    .update(sandboxCheckouts)
    .set({ status: outcome === "pay" ? "succeeded" : "canceled", updatedAt: new Date() })
    .where(and(eq(sandboxCheckouts.id, paymentId), eq(sandboxCheckouts.status, "pending")));
  const payment = await sandboxProvider.readPayment(db, paymentId);
  const body = JSON.stringify({ payment_id: paymentId, status: payment.status });
  return { payment, notification: { body, signature: signSandboxNotification(body) } };
}
