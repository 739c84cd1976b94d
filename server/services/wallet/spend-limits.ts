import type { Db } from "@/db/client";
import { wallets } from "@/db/schema";
import { invalidField, notFound } from "@/server/errors";
import { money, type Money } from "@/server/lib/money";
import { ownedBy, type Owner } from "../tenant-scope";

/** A tenant's spend limits (spec "Limits"): daily spend (null = none) and the maximum cost of one paid operation. */
export interface SpendLimits {
  daily_limit: Money | null;
  max_operation_cost: Money;
}

/**
 * Sets the spend limits of a tenant's wallet (`npm run admin -- wallet:set-limits`, the console): the live
 * wallet's, or the sandbox wallet's for an owner with `livemode` false (the console in Test mode; each
 * wallet has its own limits). `dailyLimitMinor` (RUB minor units, null = none) and
 * `maxOperationCostMinor` (> 0). Omitted fields stay as they are.
 * @throws ApiError `not_found` (no wallet); `validation_failed` for a maximum of 0.
 */
export async function setSpendLimits(
  db: Db,
  owner: Owner,
  input: { dailyLimitMinor?: bigint | null; maxOperationCostMinor?: bigint },
): Promise<SpendLimits> {
  if (input.maxOperationCostMinor !== undefined && input.maxOperationCostMinor <= 0n)
    throw invalidField("/max_operation_cost", "out_of_range", "The maximum cost of one operation must be above 0.");
  const patch: Partial<typeof wallets.$inferInsert> = { updatedAt: new Date() };
  if (input.dailyLimitMinor !== undefined) patch.dailySpendLimitMinor = input.dailyLimitMinor;
  if (input.maxOperationCostMinor !== undefined) patch.maxOperationCostMinor = input.maxOperationCostMinor;
  const [w] = await db.update(wallets).set(patch).where(ownedBy(wallets, owner)).returning();
  if (!w) throw notFound("Wallet");
  return toLimits(w);
}

/** The spend limits of a tenant's wallet of `owner`'s mode (live, or the sandbox's). @throws ApiError `not_found`. */
export async function getSpendLimits(db: Db, owner: Owner): Promise<SpendLimits> {
  const [w] = await db.select().from(wallets).where(ownedBy(wallets, owner));
  if (!w) throw notFound("Wallet");
  return toLimits(w);
}

function toLimits(w: typeof wallets.$inferSelect): SpendLimits {
  return {
    daily_limit: w.dailySpendLimitMinor === null ? null : money(w.dailySpendLimitMinor),
    max_operation_cost: money(w.maxOperationCostMinor),
  };
}
