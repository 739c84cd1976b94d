import type { Db } from "@/db/client";
import { changeBalance, type WalletChange } from "./wallet-ledger";

/**
 * A way money reaches the wallet. A card or bank provider would confirm a payment first and credit on
 * its callback; the built-in `manual` provider credits at once (staff record a payment they received).
 */
export interface PaymentProvider {
  readonly id: string;
  readonly label: string;
  /** Credits `amountMinor` RUB minor units (> 0) to the tenant, writing a `topup` ledger row. */
  topUp(db: Db, input: { tenantId: string; amountMinor: bigint; staffUserId: string; note?: string }): Promise<WalletChange>;
}

/** Built-in provider: staff with the top-up right record a payment; the balance changes at once. */
export const manualProvider: PaymentProvider = {
  id: "manual",
  label: "Manual (payment received outside the platform)",
  topUp: (db, i) =>
    changeBalance(db, { tenantId: i.tenantId, amountMinor: i.amountMinor, kind: "topup", actor: `staff:${i.staffUserId}`, description: i.note?.trim() || "Manual top-up" }),
};

/** Providers by id. */
export const PAYMENT_PROVIDERS: Record<string, PaymentProvider> = { [manualProvider.id]: manualProvider };
