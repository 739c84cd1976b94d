import type { Db } from "@/db/client";
import { ApiError } from "@/server/errors";

/** The payment providers a deployment can choose with `PAYMENT_PROVIDER` (DESIGN "Money"). */
export type ProviderId = "sandbox" | "yookassa" | "stripe";

/** A payment as the provider reports it; amounts in minor units of `currency` (RUB kopecks). */
export interface ProviderPayment {
  providerPaymentId: string;
  status: "pending" | "succeeded" | "canceled";
  amountMinor: bigint;
  /** ISO 4217, upper case. */
  currency: string;
  /** Our `payments.id` as the provider stored it at checkout (metadata), when it reports one. */
  ourPaymentId: string | null;
}

/** What a provider's notification says once its authenticity is checked. */
export interface VerifiedNotification {
  /** The provider's event id when it has one (Stripe): a replayed event is handled once. */
  eventId: string | null;
  providerPaymentId: string;
  /**
   * The payment's state carried by a signed notification (Stripe), or null when the body is not
   * trusted and the payment must be read back from the provider (YooKassa, sandbox).
   */
  payment: ProviderPayment | null;
}

/** A checkout made at the provider: where to send the payer. */
export interface Checkout {
  providerPaymentId: string;
  confirmationUrl: string;
}

/**
 * One payment provider: create a checkout, verify a notification, read a payment. Implementations
 * throw {@link providerUnavailable} when the provider cannot be reached in time, and
 * `ApiError("signature_invalid" | "bad_request")` for a notification that is forged or malformed.
 */
export interface PaymentProvider {
  readonly id: ProviderId;
  /** Shown on the console's top-up form. */
  readonly label: string;
  createCheckout(
    db: Db,
    input: {
      paymentId: string;
      tenantId: string;
      amountMinor: bigint;
      description: string;
      returnUrl: string;
      idempotencyKey: string;
    },
  ): Promise<Checkout>;
  /** Null: a notification of a kind that settles nothing (answered 200 and ignored). */
  verifyNotification(rawBody: string, headers: Headers): VerifiedNotification | null;
  readPayment(db: Db, providerPaymentId: string): Promise<ProviderPayment>;
}

let timeoutMs = 10_000;

/** How long one call to a provider may take before the payment is left pending, milliseconds (10 s). */
export function providerTimeoutMs(): number {
  return timeoutMs;
}

/** Changes {@link providerTimeoutMs} (tests of a provider that never answers); undefined restores 10 s. */
export function setProviderTimeoutMs(ms: number | undefined): void {
  timeoutMs = ms ?? 10_000;
}

/** The provider could not be reached or answered an error: the payment stays as it is. */
export function providerUnavailable(provider: ProviderId, why: string): ApiError {
  return new ApiError(
    "upstream_unavailable",
    `The payment provider (${provider}) did not answer as expected: ${why}. Nothing was charged or credited; try again.`,
  );
}

/** A notification the provider did not send (bad or missing signature): 401, nothing happens. */
export function forgedNotification(detail: string): ApiError {
  return new ApiError("signature_invalid", `The payment notification is not authentic: ${detail}.`);
}

/** A notification body that cannot be read: 400, nothing happens. */
export function malformedNotification(detail: string): ApiError {
  return new ApiError("bad_request", `The payment notification cannot be read: ${detail}.`);
}

/** Minor units of a decimal amount string with up to 2 fraction digits ("100.50" → 10050n); null if not one. */
export function minorOf(value: unknown): bigint | null {
  if (typeof value !== "string") return null;
  const m = /^(\d{1,15})(?:\.(\d{1,2}))?$/.exec(value);
  return m ? BigInt(m[1]) * 100n + BigInt((m[2] ?? "0").padEnd(2, "0")) : null;
}
