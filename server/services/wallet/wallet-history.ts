import { and, desc, eq, lt, or } from "drizzle-orm";
import type { Db } from "@/db/client";
import { integrationDailySpend, integrations, walletLedger } from "@/db/schema";
import { ApiError, notFound } from "@/server/errors";
import { formatMinor } from "@/server/lib/money";
import { livemodeOf, ownedBy, type Owner } from "../tenant-scope";

/** A ledger entry as the console shows it; amounts are decimal RUB strings. */
export interface LedgerEntryView {
  id: string;
  kind: string;
  amount: string;
  /** Change of the open holds of paid operations: + on `hold`, - on `charge` and `release`. */
  hold: string;
  balanceAfter: string;
  description: string | null;
  actor: string;
  createdAt: string;
}

/**
 * A page of the ledger of a tenant's wallet of `owner`'s mode (live, or the sandbox wallet's for
 * `livemode` false), newest first, keyset on (created_at, id).
 * @param after the `next` of the previous page, or null for the first page.
 */
export async function ledgerPage(
  db: Db,
  owner: Owner,
  limit: number,
  after: { createdAt: string; id: string } | null,
): Promise<{ entries: LedgerEntryView[]; next: { createdAt: string; id: string } | null }> {
  const where = after
    ? and(
        ownedBy(walletLedger, owner),
        or(
          lt(walletLedger.createdAt, new Date(after.createdAt)),
          and(eq(walletLedger.createdAt, new Date(after.createdAt)), lt(walletLedger.id, after.id)),
        ),
      )
    : ownedBy(walletLedger, owner);
  const rows = await db
    .select()
    .from(walletLedger)
    .where(where)
    .orderBy(desc(walletLedger.createdAt), desc(walletLedger.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    entries: page.map((r) => ({
      id: r.id,
      kind: r.kind,
      amount: formatMinor(r.amountMinor),
      hold: formatMinor(r.holdMinor),
      balanceAfter: formatMinor(r.balanceAfterMinor),
      description: r.description,
      actor: r.actor,
      createdAt: r.createdAt.toISOString(),
    })),
    next: rows.length > limit && last ? { createdAt: last.createdAt.toISOString(), id: last.id } : null,
  };
}

/**
 * Sets or clears (null) an integration's daily spend limit, RUB minor units.
 * @throws ApiError `not_found`, `validation_failed` (negative).
 */
export async function setDailySpendLimit(
  db: Db,
  tenantId: string,
  integrationId: string,
  limitMinor: bigint | null,
): Promise<void> {
  if (limitMinor !== null && limitMinor < 0n) {
    throw new ApiError("validation_failed", "The limit must not be negative.", {
      errors: [{ field: "/limit", code: "out_of_range", message: "The limit must be 0 or more." }],
    });
  }
  const done = await db
    .update(integrations)
    .set({ dailySpendLimitMinor: limitMinor, updatedAt: new Date() })
    .where(and(eq(integrations.id, integrationId), eq(integrations.tenantId, tenantId)))
    .returning({ id: integrations.id });
  if (!done.length) throw notFound("Integration");
}

/** One integration's spend today as the console shows it: Money strings in RUB, `limit` null = none set. */
export interface IntegrationDailySpendView {
  integrationId: string;
  name: string;
  limit: string | null;
  used: string;
}

/**
 * Today's (UTC day) spend of each integration of the tenant in `owner`'s mode (live spend, or sandbox
 * spend for `livemode` false) against its daily limit (spec "Me": `wallet.daily_spend`). One query,
 * filtered by the tenant.
 */
export async function dailySpendByIntegration(
  db: Db,
  owner: Owner,
  day = new Date().toISOString().slice(0, 10),
): Promise<IntegrationDailySpendView[]> {
  const rows = await db
    .select({
      id: integrations.id,
      name: integrations.name,
      limit: integrations.dailySpendLimitMinor,
      used: integrationDailySpend.usedMinor,
    })
    .from(integrations)
    .leftJoin(
      integrationDailySpend,
      and(
        eq(integrationDailySpend.integrationId, integrations.id),
        eq(integrationDailySpend.livemode, livemodeOf(owner)),
        eq(integrationDailySpend.day, day),
      ),
    )
    .where(eq(integrations.tenantId, owner.tenantId))
    .orderBy(integrations.createdAt);
  return rows.map((r) => ({
    integrationId: r.id,
    name: r.name,
    limit: r.limit === null ? null : formatMinor(r.limit),
    used: formatMinor(r.used ?? 0n),
  }));
}
