import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { paymentEvents, payments } from "@/db/schema";
import { ApiError } from "@/server/errors";
import { log } from "@/server/log";
import { announceExchangeResumed } from "../events/work-notifier";
import { changeBalanceInTransaction } from "../wallet/wallet-ledger";
import type { ProviderId, ProviderPayment } from "./provider";
import { paymentProvider } from "./providers";
import { sandboxProvider } from "./sandbox-provider";

/**
 * What settling did: `credited` (the wallet got the amount, once), `canceled`, `pending` (the provider
 * says not yet), `settled_before` (already succeeded or canceled: a duplicate), `duplicate_event`
 * (this event id was handled), `unknown` (not a payment of ours), `mismatch` (ours by id, but the
 * provider's amount, currency or metadata differ: nothing credited, an operator looks).
 */
export type SettleOutcome =
  "credited" | "canceled" | "pending" | "settled_before" | "duplicate_event" | "unknown" | "mismatch";

/**
 * Applies the provider's word on a payment (from a verified notification or a status check) in one
 * transaction: the payment row is locked, a pending payment whose provider payment succeeded with
 * the same amount and currency becomes `succeeded` together with its `topup` ledger row (naming the
 * payment, by the staff user who started it); a canceled one becomes `canceled`. Anything else
 * changes nothing. A sandbox payment (`livemode` false, test mode) credits the tenant's sandbox wallet,
 * never the live one. Exchange resumes through the ledger's resume path, announced after the commit.
 * @param eventId the provider's event id, recorded so the same event is handled once (null: none).
 * @param opts.sandboxOnly settle only a sandbox payment: the sandbox provider answering while another
 *   provider is configured speaks for test money only, so a live payment it names is `unknown`.
 */
export async function settlePayment(
  db: Db,
  provider: ProviderId,
  remote: ProviderPayment,
  eventId: string | null,
  opts: { sandboxOnly?: boolean } = {},
): Promise<SettleOutcome> {
  const { outcome, resumedTenant } = await db.transaction(async (t) => {
    const tx = t as unknown as Db;
    const none = { resumedTenant: null as { tenantId: string; livemode: boolean } | null };
    if (eventId) {
      const fresh = await tx.insert(paymentEvents).values({ provider, eventId }).onConflictDoNothing().returning();
      if (!fresh.length) return { outcome: "duplicate_event" as const, ...none };
    }
    const [p] = await tx
      .select()
      .from(payments)
      .where(
        and(
          eq(payments.provider, provider),
          eq(payments.providerPaymentId, remote.providerPaymentId),
          opts.sandboxOnly ? eq(payments.livemode, false) : undefined,
        ),
      )
      .for("update");
    if (!p) return { outcome: "unknown" as const, ...none };
    if (p.status !== "pending") return { outcome: "settled_before" as const, ...none };
    if (remote.ourPaymentId !== null && remote.ourPaymentId !== p.id) return { outcome: "mismatch" as const, ...none };
    if (remote.status === "pending") return { outcome: "pending" as const, ...none };
    if (remote.status === "canceled") {
      await tx.update(payments).set({ status: "canceled", settledAt: new Date() }).where(eq(payments.id, p.id));
      return { outcome: "canceled" as const, ...none };
    }
    if (remote.amountMinor !== p.amountMinor || remote.currency !== p.currency)
      return { outcome: "mismatch" as const, ...none };
    const { change, resumed } = await changeBalanceInTransaction(tx, {
      tenantId: p.tenantId,
      livemode: p.livemode,
      amountMinor: p.amountMinor,
      kind: "topup",
      actor: `staff:${p.staffUserId}`,
      description: `Payment ${p.id} (${provider} ${remote.providerPaymentId})`,
    });
    await tx
      .update(payments)
      .set({ status: "succeeded", ledgerId: change.ledgerId, settledAt: new Date() })
      .where(eq(payments.id, p.id));
    return {
      outcome: "credited" as const,
      resumedTenant: resumed ? { tenantId: p.tenantId, livemode: p.livemode } : null,
    };
  });
  if (resumedTenant) announceExchangeResumed(resumedTenant.tenantId, resumedTenant.livemode);
  const level = outcome === "mismatch" ? "error" : outcome === "unknown" ? "warn" : "info";
  log()[level]({ provider, providerPaymentId: remote.providerPaymentId, eventId, outcome }, "payment settled");
  return outcome;
}

/**
 * A provider's notification (`POST /api/payments/{provider}`), trusted for nothing until verified:
 * the provider checks the signature (Stripe, sandbox) and the payment is read back from the provider
 * when the body is not signed (YooKassa) or carries no state (sandbox). A payment that is not ours
 * is ignored without calling the provider. The built-in sandbox provider is always heard for test-mode
 * (sandbox) payments, whatever provider is configured (issue 69): then it settles sandbox payments only.
 * @throws ApiError `not_found` (that provider is not the configured one, nor the sandbox), `signature_invalid`,
 *   `bad_request`, `upstream_unavailable` (the read-back failed: the provider should resend).
 */
export async function handlePaymentNotification(
  db: Db,
  providerId: string,
  rawBody: string,
  headers: Headers,
): Promise<SettleOutcome | "ignored"> {
  const configured = paymentProvider();
  // The sandbox, when not the configured provider, takes test money only.
  const sandboxOnly = configured.id !== providerId && providerId === sandboxProvider.id;
  const provider = sandboxOnly ? sandboxProvider : configured;
  if (provider.id !== providerId)
    throw new ApiError("not_found", `Payments through ${providerId} are not configured on this platform.`);
  const verified = provider.verifyNotification(rawBody, headers);
  if (!verified) return "ignored";
  if (verified.payment) return settlePayment(db, provider.id, verified.payment, verified.eventId, { sandboxOnly });
  const [ours] = await db
    .select({ id: payments.id })
    .from(payments)
    .where(
      and(
        eq(payments.provider, provider.id),
        eq(payments.providerPaymentId, verified.providerPaymentId),
        sandboxOnly ? eq(payments.livemode, false) : undefined,
      ),
    );
  if (!ours) {
    log().warn(
      { provider: provider.id, providerPaymentId: verified.providerPaymentId },
      "notification of an unknown payment",
    );
    return "unknown";
  }
  const remote = await provider.readPayment(db, verified.providerPaymentId);
  if (remote.providerPaymentId !== verified.providerPaymentId) return "mismatch";
  return settlePayment(db, provider.id, remote, verified.eventId, { sandboxOnly });
}
