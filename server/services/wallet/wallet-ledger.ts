import { and, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { walletLedger, wallets } from "@/db/schema";
import { ApiError, notFound } from "@/server/errors";
import { resumeDeferredDeliveries } from "@/server/services/webhooks/delivery-queue";
import { announceExchangeResumed } from "../events/work-notifier";
import { livemodeOf, ownedBy, type Owner } from "../tenant-scope";

/** Who changed a wallet, written on each ledger row: `operator`, `staff:<id>`, `integration:<id>` or `system`. */
export type LedgerActor = string;

/** A wallet after a change, RUB minor units; `livemode` false for the tenant's sandbox wallet. */
export interface WalletChange {
  tenantId: string;
  livemode: boolean;
  balanceMinor: bigint;
  blocked: boolean;
  ledgerId: string;
}

/** Largest and smallest balance a wallet holds, RUB minor units: the range of the bigint column. */
export const BALANCE_MAX_MINOR = 9_223_372_036_854_775_807n;
export const BALANCE_MIN_MINOR = -9_223_372_036_854_775_808n;

/**
 * Adds (positive) or takes (negative) `amountMinor` RUB minor units, with its ledger row, in one
 * transaction; the wallet row is locked so concurrent changes serialize. A debit may take the balance
 * below zero (the wallet then reads `negative` and exchange is suspended). The wallet is the tenant's
 * live one, or its sandbox's when `input.livemode` is false; the other is never touched.
 * @throws ApiError `not_found` (no wallet for the tenant in that mode), `validation_failed` (zero amount,
 *   or a balance the wallet cannot hold: beyond {@link BALANCE_MAX_MINOR} / {@link BALANCE_MIN_MINOR}).
 */
export async function changeBalance(db: Db, input: BalanceChangeInput): Promise<WalletChange> {
  const { change, resumed } = await db.transaction((tx) => changeBalanceInTransaction(tx as unknown as Db, input));
  // After the commit, so the driver finds the rows already due.
  if (resumed) announceExchangeResumed(change.tenantId, change.livemode);
  return change;
}

/**
 * What {@link changeBalance} takes: whose wallet (`tenantId`, and `livemode` false for the sandbox
 * wallet; absent = live), a signed amount in RUB minor units, the ledger kind and who.
 */
export interface BalanceChangeInput {
  tenantId: string;
  livemode?: boolean;
  amountMinor: bigint;
  kind: "credit" | "debit" | "topup" | "charge";
  actor: LedgerActor;
  description?: string;
  integrationId?: string;
}

/**
 * {@link changeBalance} inside the caller's transaction `tx` (a payment credited together with its
 * state). `resumed` says exchange resumed: the caller announces it with `announceExchangeResumed`
 * after its commit. Same errors as {@link changeBalance}.
 */
export async function changeBalanceInTransaction(
  tx: Db,
  input: BalanceChangeInput,
): Promise<{ change: WalletChange; resumed: boolean }> {
  if (input.amountMinor === 0n) {
    throw new ApiError("validation_failed", "The amount must not be zero.", {
      errors: [{ field: "/amount", code: "out_of_range", message: "The amount must be greater than 0." }],
    });
  }
  const amount = input.amountMinor.toString();
  const livemode = livemodeOf(input);
  // The sum is checked in numeric, so a balance that would leave the bigint range changes nothing
  // instead of failing the statement.
  const [w] = await tx
    .update(wallets)
    .set({ balanceMinor: sql`${wallets.balanceMinor} + ${amount}::bigint`, updatedAt: new Date() })
    .where(
      and(
        ownedBy(wallets, input),
        sql`${wallets.balanceMinor}::numeric + ${amount}::numeric between ${BALANCE_MIN_MINOR.toString()}::numeric and ${BALANCE_MAX_MINOR.toString()}::numeric`,
      ),
    )
    .returning();
  if (!w) {
    const [exists] = await tx.select({ tenantId: wallets.tenantId }).from(wallets).where(ownedBy(wallets, input));
    if (!exists) throw notFound("Wallet");
    const message = "The balance cannot hold this amount: it would pass the largest balance a wallet can hold.";
    throw new ApiError("validation_failed", message, {
      errors: [{ field: "/amount", code: "out_of_range", message }],
    });
  }
  const [l] = await tx
    .insert(walletLedger)
    .values({
      tenantId: input.tenantId,
      livemode,
      kind: input.kind,
      amountMinor: input.amountMinor,
      balanceAfterMinor: w.balanceMinor,
      integrationId: input.integrationId ?? null,
      description: input.description ?? null,
      actor: input.actor,
    })
    .returning({ id: walletLedger.id });
  // Exchange resumes (balance back to >= 0, not blocked): webhooks of this mode deferred meanwhile become
  // due now.
  let resumed = false;
  if (w.balanceMinor >= 0n && w.balanceMinor - input.amountMinor < 0n && !w.blocked) {
    await resumeDeferredDeliveries(tx, { tenantId: w.tenantId, livemode });
    resumed = true;
  }
  return {
    change: { tenantId: w.tenantId, livemode, balanceMinor: w.balanceMinor, blocked: w.blocked, ledgerId: l.id },
    resumed,
  };
}

/**
 * Blocks or unblocks the wallet of `owner` (the tenant's live wallet, or its sandbox's for `livemode`
 * false; blocked → exchange suspended, 402 `wallet_suspended`), with a ledger row of amount 0 so the
 * history shows who did it. Unblocking a wallet whose balance is >= 0 resumes its mode's deferred
 * webhook deliveries (announced after the commit).
 * @throws ApiError `not_found`.
 */
export async function setWalletBlocked(
  db: Db,
  owner: Owner,
  blocked: boolean,
  actor: LedgerActor,
): Promise<WalletChange> {
  const { change, resumed } = await db.transaction((tx) =>
    setWalletBlockedInTransaction(tx as unknown as Db, owner, blocked, actor),
  );
  if (resumed) announceExchangeResumed(change.tenantId, change.livemode);
  return change;
}

/**
 * {@link setWalletBlocked} inside the caller's transaction `tx`. `resumed` says exchange resumed: the
 * caller announces it with `announceExchangeResumed` after its commit. Same errors.
 */
export async function setWalletBlockedInTransaction(
  tx: Db,
  owner: Owner,
  blocked: boolean,
  actor: LedgerActor,
): Promise<{ change: WalletChange; resumed: boolean }> {
  const livemode = livemodeOf(owner);
  const [w] = await tx
    .update(wallets)
    .set({ blocked, updatedAt: new Date() })
    .where(ownedBy(wallets, owner))
    .returning();
  if (!w) throw notFound("Wallet");
  const [l] = await tx
    .insert(walletLedger)
    .values({
      tenantId: owner.tenantId,
      livemode,
      kind: blocked ? "block" : "unblock",
      amountMinor: 0n,
      balanceAfterMinor: w.balanceMinor,
      actor,
    })
    .returning({ id: walletLedger.id });
  const resumed = !blocked && w.balanceMinor >= 0n;
  if (resumed) await resumeDeferredDeliveries(tx, { tenantId: owner.tenantId, livemode });
  return {
    change: { tenantId: owner.tenantId, livemode, balanceMinor: w.balanceMinor, blocked: w.blocked, ledgerId: l.id },
    resumed,
  };
}
