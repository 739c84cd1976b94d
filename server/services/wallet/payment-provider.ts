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
  topUp(
    db: Db,
    input: { tenantId: string; amountMinor: bigint; staffUserId: string; note?: string },
  ): Promise<WalletChange>;
}

/** Built-in provider: staff with the top-up right record a payment; the balance changes at once. */
export const manualProvider: PaymentProvider = {
  id: "manual",
  label: "Manual (payment received outside the platform)",
  topUp: (db, i) =>
    changeBalance(db, {
      tenantId: i.tenantId,
      amountMinor: i.amountMinor,
      kind: "topup",
      actor: `staff:${i.staffUserId}`,
      description: i.note?.trim() || "Manual top-up",
    }),
};

/** Providers by id (no prototype: a name such as `constructor` or `__proto__` is simply not there). */
export const PAYMENT_PROVIDERS: Readonly<Record<string, PaymentProvider>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, PaymentProvider>, { [manualProvider.id]: manualProvider }),
);

/** Ids of the providers, for input validation. */
export const PAYMENT_PROVIDER_IDS = Object.keys(PAYMENT_PROVIDERS) as [string, ...string[]];

/** The provider with this id, or undefined; only the providers' own ids match. */
export function findPaymentProvider(id: string): PaymentProvider | undefined {
  return Object.hasOwn(PAYMENT_PROVIDERS, id) ? PAYMENT_PROVIDERS[id] : undefined;
}
