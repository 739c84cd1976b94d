import { randomUUID } from "node:crypto";
import { and, desc, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { payments, staffUsers } from "@/db/schema";
import { env } from "@/server/env";
import { ApiError, invalidField, notFound } from "@/server/errors";
import { formatMinor } from "@/server/lib/money";
import { log } from "@/server/log";
import type { StaffActor } from "../actor";
import { livemodeOf, ownedBy, ownerOf, type Owner } from "../tenant-scope";
import { paymentProviderFor } from "./providers";
import { settlePayment } from "./payment-settle";

/** Smallest and largest top-up, RUB minor units (100.00 and 1,000,000.00 RUB). */
export const TOPUP_MIN_MINOR = 10_000n;
export const TOPUP_MAX_MINOR = 100_000_000n;

/** A payment as the console shows it; `amount` is a decimal RUB string. */
export interface PaymentView {
  id: string;
  amount: string;
  currency: string;
  provider: string;
  status: "pending" | "succeeded" | "canceled";
  confirmationUrl: string | null;
  createdAt: string;
  settledAt: string | null;
  /** Email of the staff user who started it (their id when the user is gone). */
  by: string;
}

type Row = typeof payments.$inferSelect;

function viewOf(p: Row, email: string | null): PaymentView {
  return {
    id: p.id,
    amount: formatMinor(p.amountMinor),
    currency: p.currency,
    provider: p.provider,
    status: p.status as PaymentView["status"],
    confirmationUrl: p.status === "pending" ? p.confirmationUrl : null,
    createdAt: p.createdAt.toISOString(),
    settledAt: p.settledAt?.toISOString() ?? null,
    by: email ?? p.staffUserId,
  };
}

/** Where the payer comes back after the provider's page: the console page that checks the status. */
export function paymentReturnUrl(tenantId: string, paymentId: string): string {
  return `${env().cellOrigins[env().cell]}/console/wallet/payments/${paymentId}?tenant=${tenantId}`;
}

/**
 * Starts a wallet top-up (spec "Wallet" `topup_url`; DESIGN "Money"): a `pending` payment of
 * `amountMinor` RUB kopecks (100.00 to 1,000,000.00 RUB) by the staff actor, then a checkout at the
 * configured provider. A staff actor in Test mode (`livemode` false) tops up the sandbox wallet: the
 * payment is the sandbox's and its checkout is always the built-in sandbox provider's (a real provider
 * never sees test mode, issue 69). Nothing is credited here: only a verified notification or status check does.
 * The same `idempotencyKey` (a UUID made by the form) returns the payment it already started.
 * @returns the payment, whose `confirmationUrl` is where to send the payer.
 * @throws ApiError `validation_failed` (/amount out of range), `upstream_unavailable` (the provider did
 *   not answer; the payment is then canceled).
 */
export async function startPayment(
  db: Db,
  actor: StaffActor,
  input: { amountMinor: bigint; idempotencyKey?: string },
): Promise<PaymentView> {
  if (input.amountMinor < TOPUP_MIN_MINOR || input.amountMinor > TOPUP_MAX_MINOR)
    throw invalidField("/amount", "out_of_range", "A top-up is from 100.00 to 1,000,000.00 RUB.");
  const provider = paymentProviderFor(livemodeOf(actor));
  const key = input.idempotencyKey ?? randomUUID();
  const [created] = await db
    .insert(payments)
    .values({
      ...ownerOf(actor),
      amountMinor: input.amountMinor,
      provider: provider.id,
      idempotencyKey: `${actor.tenantId}:${key}`,
      staffUserId: actor.staffUserId,
    })
    .onConflictDoNothing()
    .returning();
  if (!created) {
    const [same] = await db
      .select()
      .from(payments)
      .where(and(ownedBy(payments, actor), eq(payments.idempotencyKey, `${actor.tenantId}:${key}`)));
    if (!same || same.amountMinor !== input.amountMinor)
      throw new ApiError("idempotency_conflict", "This top-up form was already sent with another amount.");
    if (same.confirmationUrl) return getPayment(db, actor, same.id);
    throw new ApiError("operation_in_progress", "This top-up is being started; wait a moment and reload.");
  }
  try {
    const checkout = await provider.createCheckout(db, {
      paymentId: created.id,
      tenantId: actor.tenantId,
      amountMinor: created.amountMinor,
      description: `Wallet top-up ${formatMinor(created.amountMinor)} RUB`,
      returnUrl: paymentReturnUrl(actor.tenantId, created.id),
      idempotencyKey: created.id,
    });
    await db
      .update(payments)
      .set({ providerPaymentId: checkout.providerPaymentId, confirmationUrl: checkout.confirmationUrl })
      .where(eq(payments.id, created.id));
  } catch (err) {
    // No checkout exists (the provider refused or did not answer): nobody can pay this one.
    await db
      .update(payments)
      .set({ status: "canceled", settledAt: new Date() })
      .where(and(eq(payments.id, created.id), eq(payments.status, "pending")));
    throw err;
  }
  return getPayment(db, actor, created.id);
}

/**
 * One payment of the actor's tenant and mode (the sandbox's for a staff actor in Test mode).
 * @throws ApiError `not_found` (no such payment in this tenant and mode).
 */
export async function getPayment(db: Db, actor: Owner, paymentId: string): Promise<PaymentView> {
  const [r] = await db
    .select({ p: payments, email: staffUsers.email })
    .from(payments)
    .leftJoin(staffUsers, eq(staffUsers.id, payments.staffUserId))
    .where(and(ownedBy(payments, actor), eq(payments.id, paymentId)));
  if (!r) throw notFound("Payment");
  return viewOf(r.p, r.email);
}

/** The payments of the actor's tenant and mode, newest first (at most `limit`, 1-100). */
export async function listPayments(db: Db, actor: Owner, limit = 50): Promise<PaymentView[]> {
  const rows = await db
    .select({ p: payments, email: staffUsers.email })
    .from(payments)
    .leftJoin(staffUsers, eq(staffUsers.id, payments.staffUserId))
    .where(ownedBy(payments, actor))
    .orderBy(desc(payments.createdAt), desc(payments.id))
    .limit(Math.min(Math.max(limit, 1), 100));
  return rows.map((r) => viewOf(r.p, r.email));
}

/**
 * The status check of the return page: a pending payment is read back from its provider and settled
 * like a notification would (so a payment whose notification never came is still credited once).
 * A provider that does not answer leaves the payment pending; `checkFailed` says so and the page
 * asks again. A sandbox payment (test mode) is read back from the sandbox provider.
 * @throws ApiError `not_found`.
 */
export async function refreshPayment(
  db: Db,
  actor: Owner,
  paymentId: string,
): Promise<PaymentView & { checkFailed: boolean }> {
  const before = await getPayment(db, actor, paymentId);
  if (before.status !== "pending") return { ...before, checkFailed: false };
  const [row] = await db.select().from(payments).where(eq(payments.id, paymentId));
  const provider = paymentProviderFor(row.livemode);
  if (!row.providerPaymentId || row.provider !== provider.id) return { ...before, checkFailed: true };
  try {
    const remote = await provider.readPayment(db, row.providerPaymentId);
    await settlePayment(db, provider.id, remote, null, { sandboxOnly: !row.livemode });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    log().warn({ paymentId, code: err.code }, "payment status check failed; the payment stays pending");
    return { ...(await getPayment(db, actor, paymentId)), checkFailed: true };
  }
  return { ...(await getPayment(db, actor, paymentId)), checkFailed: false };
}
