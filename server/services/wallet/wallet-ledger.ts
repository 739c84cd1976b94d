import { eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { walletLedger, wallets } from "@/db/schema";
import { ApiError, notFound } from "@/server/errors";
import { resumeDeferredDeliveries } from "@/server/jobs/delivery-queue";
import { dispatchExchangeResumed } from "@/server/jobs/dispatch";

/** Who changed a wallet, written on each ledger row: `operator`, `staff:<id>`, `integration:<id>` or `system`. */
export type LedgerActor = string;

/** A wallet after a change, RUB minor units. */
export interface WalletChange {
  tenantId: string;
  balanceMinor: bigint;
  blocked: boolean;
  ledgerId: string;
}

/**
 * Adds (positive) or takes (negative) `amountMinor` RUB minor units, with its ledger row, in one
 * transaction; the wallet row is locked so concurrent changes serialize. A debit may take the balance
 * below zero (the wallet then reads `negative` and exchange is suspended).
 * @throws ApiError `not_found` (no wallet for the tenant), `validation_failed` (zero amount).
 */
export async function changeBalance(
  db: Db,
  input: { tenantId: string; amountMinor: bigint; kind: "credit" | "debit" | "topup" | "charge"; actor: LedgerActor; description?: string; integrationId?: string },
): Promise<WalletChange> {
  if (input.amountMinor === 0n) {
    throw new ApiError("validation_failed", "The amount must not be zero.", { errors: [{ field: "/amount", code: "out_of_range", message: "The amount must be greater than 0." }] });
  }
  let resumed = false;
  const change = await db.transaction(async (tx) => {
    const [w] = await tx
      .update(wallets)
      .set({ balanceMinor: sql`${wallets.balanceMinor} + ${input.amountMinor.toString()}::bigint`, updatedAt: new Date() })
      .where(eq(wallets.tenantId, input.tenantId))
      .returning();
    if (!w) throw notFound("Wallet");
    const [l] = await tx
      .insert(walletLedger)
      .values({
        tenantId: input.tenantId,
        kind: input.kind,
        amountMinor: input.amountMinor,
        balanceAfterMinor: w.balanceMinor,
        integrationId: input.integrationId ?? null,
        description: input.description ?? null,
        actor: input.actor,
      })
      .returning({ id: walletLedger.id });
    // Exchange resumes (balance back to >= 0, not blocked): webhooks deferred meanwhile become due now.
    if (w.balanceMinor >= 0n && w.balanceMinor - input.amountMinor < 0n && !w.blocked) {
      await resumeDeferredDeliveries(tx as unknown as Db, w.tenantId);
      resumed = true;
    }
    return { tenantId: w.tenantId, balanceMinor: w.balanceMinor, blocked: w.blocked, ledgerId: l.id };
  });
  // After the commit, so the driver finds the rows already due.
  if (resumed) void dispatchExchangeResumed(change.tenantId);
  return change;
}

/**
 * Blocks or unblocks a wallet (blocked → exchange suspended, 402 `wallet_suspended`), with a ledger row
 * of amount 0 so the history shows who did it.
 * @throws ApiError `not_found`.
 */
export async function setWalletBlocked(db: Db, tenantId: string, blocked: boolean, actor: LedgerActor): Promise<WalletChange> {
  const change = await db.transaction(async (tx) => {
    const [w] = await tx.update(wallets).set({ blocked, updatedAt: new Date() }).where(eq(wallets.tenantId, tenantId)).returning();
    if (!w) throw notFound("Wallet");
    const [l] = await tx
      .insert(walletLedger)
      .values({ tenantId, kind: blocked ? "block" : "unblock", amountMinor: 0n, balanceAfterMinor: w.balanceMinor, actor })
      .returning({ id: walletLedger.id });
    if (!blocked && w.balanceMinor >= 0n) await resumeDeferredDeliveries(tx as unknown as Db, tenantId);
    return { tenantId, balanceMinor: w.balanceMinor, blocked: w.blocked, ledgerId: l.id };
  });
  if (!blocked && change.balanceMinor >= 0n) void dispatchExchangeResumed(tenantId);
  return change;
}
