import Stripe from "stripe";
import {
  forgedNotification,
  malformedNotification,
  providerTimeoutMs,
  providerUnavailable,
  type PaymentProvider,
  type ProviderPayment,
} from "./provider";

/** Events that settle a payment; any other event type is answered 200 and ignored. */
const SETTLING = new Set([
  "checkout.session.completed",
  "checkout.session.async_payment_succeeded",
  "checkout.session.async_payment_failed",
  "checkout.session.expired",
]);

/** A session as a payment: paid → succeeded; expired or async failure → canceled; else pending. */
function view(s: Stripe.Checkout.Session, failed = false): ProviderPayment {
  const status: ProviderPayment["status"] =
    failed || s.status === "expired" ? "canceled" : s.payment_status === "paid" ? "succeeded" : "pending";
  return {
    providerPaymentId: s.id,
    status,
    amountMinor: BigInt(s.amount_total ?? -1),
    currency: (s.currency ?? "").toUpperCase(),
    ourPaymentId: s.metadata?.payment_id ?? s.client_reference_id ?? null,
  };
}

/**
 * Stripe Checkout (mode `payment`, currency `rub`) through the `stripe` package. Notifications are
 * verified on the raw body with `stripe.webhooks.constructEvent` and `STRIPE_WEBHOOK_SECRET`; their
 * event ids are kept so a resent event is handled once. `apiUrl` points the client elsewhere (tests).
 */
export function stripeProvider(config: {
  secretKey: string;
  webhookSecret: string;
  apiUrl: string | undefined;
}): PaymentProvider {
  const at = config.apiUrl ? new URL(config.apiUrl) : null;
  const client = () =>
    new Stripe(config.secretKey, {
      timeout: providerTimeoutMs(),
      maxNetworkRetries: 0,
      telemetry: false,
      ...(at
        ? {
            host: at.hostname,
            port: Number(at.port || (at.protocol === "https:" ? 443 : 80)),
            protocol: at.protocol === "https:" ? "https" : "http",
          }
        : {}),
    });
  const stripe = client();

  async function calling<T>(what: string, work: (s: Stripe) => Promise<T>): Promise<T> {
    try {
      return await work(client());
    } catch (err) {
      const e = err as { type?: string; statusCode?: number };
      throw providerUnavailable(
        "stripe",
        `${what}: ${e.type ?? "error"}${e.statusCode ? ` (HTTP ${e.statusCode})` : ""}`,
      );
    }
  }

  return {
    id: "stripe",
    label: "Stripe (bank card)",
    async createCheckout(_db, input) {
      const s = await calling("creating the Checkout Session", (c) =>
        c.checkout.sessions.create(
          {
            mode: "payment",
            line_items: [
              {
                quantity: 1,
                price_data: {
                  currency: "rub",
                  unit_amount: Number(input.amountMinor),
                  product_data: { name: input.description },
                },
              },
            ],
            client_reference_id: input.paymentId,
            metadata: { payment_id: input.paymentId, tenant_id: input.tenantId },
            success_url: input.returnUrl,
            cancel_url: input.returnUrl,
          },
          { idempotencyKey: input.idempotencyKey },
        ),
      );
      if (!s.url) throw providerUnavailable("stripe", "the Checkout Session has no url");
      return { providerPaymentId: s.id, confirmationUrl: s.url };
    },
    verifyNotification(rawBody, headers) {
      const signature = headers.get("stripe-signature");
      if (!signature) throw forgedNotification("the Stripe-Signature header is missing");
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(rawBody, signature, config.webhookSecret);
      } catch (err) {
        if (err instanceof Stripe.errors.StripeSignatureVerificationError)
          throw forgedNotification("the Stripe-Signature does not match the body");
        throw malformedNotification("the body is not a Stripe event");
      }
      if (!SETTLING.has(event.type)) return null;
      const session = event.data.object as Stripe.Checkout.Session;
      if (typeof session?.id !== "string") throw malformedNotification("the event carries no Checkout Session");
      return {
        eventId: event.id,
        providerPaymentId: session.id,
        payment: view(session, event.type === "checkout.session.async_payment_failed"),
      };
    },
    async readPayment(_db, providerPaymentId) {
      return view(
        await calling("reading the Checkout Session", (c) => c.checkout.sessions.retrieve(providerPaymentId)),
      );
    },
  };
}
