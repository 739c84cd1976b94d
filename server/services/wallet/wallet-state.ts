import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { integrationDailySpend, integrations, tenants, wallets } from "@/db/schema";
import { env } from "@/server/env";
import { money, type Money } from "@/server/lib/money";
import { ownedBy, type Owner } from "../tenant-scope";

/** Wallet states of the spec ("Wallet" resource, "States and transitions: Wallet and exchange"). */
export type WalletStateName = "ok" | "low" | "negative" | "blocked" | "unknown";

/** What the pipeline and `/me` need of a wallet, balance in RUB minor units. */
export interface WalletSnapshot {
  balanceMinor: bigint | null;
  state: WalletStateName;
  exchange: "active" | "suspended";
}

/**
 * Where wallet state comes from. The default reads our ledger tables; the indirection exists so that a
 * failing or slow source is answered as `unknown` (reads go on, paid operations get 503). `owner` names
 * the wallet: the tenant's live one, or its sandbox's (`livemode` false; issue 69).
 */
export interface WalletSource {
  read(db: Db, owner: Owner): Promise<{ balanceMinor: bigint; blocked: boolean; lowMinor: bigint } | null>;
}

export const dbWalletSource: WalletSource = {
  async read(db, owner) {
    const rows = await db
      .select({ balanceMinor: wallets.balanceMinor, blocked: wallets.blocked, lowMinor: tenants.lowBalanceMinor })
      .from(wallets)
      .innerJoin(tenants, eq(tenants.id, wallets.tenantId))
      .where(ownedBy(wallets, owner));
    return rows[0] ?? null;
  },
};

const KEY = Symbol.for("platform.walletSource");
type Holder = { [KEY]?: WalletSource };

/** The wallet source in use (tests replace it to provoke `unknown`). */
export function walletSource(): WalletSource {
  return (globalThis as Holder)[KEY] ?? dbWalletSource;
}
export function setWalletSource(s: WalletSource | undefined): void {
  (globalThis as Holder)[KEY] = s;
}

/** How long the wallet source may take before the state is `unknown`, ms. */
export const WALLET_READ_TIMEOUT_MS = 2000;

/** Classifies raw wallet figures: blocked wins, then negative, then low (below the tenant's threshold). */
export function classify(w: { balanceMinor: bigint; blocked: boolean; lowMinor: bigint }): WalletSnapshot {
  const state: WalletStateName = w.blocked
    ? "blocked"
    : w.balanceMinor < 0n
      ? "negative"
      : w.balanceMinor < w.lowMinor
        ? "low"
        : "ok";
  return {
    balanceMinor: w.balanceMinor,
    state,
    exchange: state === "blocked" || state === "negative" ? "suspended" : "active",
  };
}

/**
 * The wallet state of `prefetched`, the row read with the key, without a query or a promise (the pipeline's
 * wallet gate and `GET /me` run on every request, so they take this path when they can).
 * @returns the classified row (`unknown` for a tenant without a wallet row); undefined when no row was
 *   read, or when a replaced {@link walletSource} must be asked instead ({@link readWallet} then)
 */
export function prefetchedWallet(
  prefetched?: { balanceMinor: bigint; blocked: boolean; lowMinor: bigint } | null,
): WalletSnapshot | undefined {
  // A replaced source (tests provoking `unknown`) is always asked.
  if (prefetched === undefined || walletSource() !== dbWalletSource) return undefined;
  return prefetched ? classify(prefetched) : { balanceMinor: null, state: "unknown", exchange: "active" };
}

/**
 * Reads the wallet of `owner` (the tenant's live wallet, or its sandbox's for `livemode` false), or
 * classifies `prefetched`, the row read with the key. Never throws: a failing or slow source (over
 * {@link WALLET_READ_TIMEOUT_MS}) gives `unknown` with exchange `active` (spec: "any | balance source
 * fails | unknown, exchange stays active"); so does a missing wallet row.
 */
export async function readWallet(
  db: Db,
  owner: Owner,
  prefetched?: { balanceMinor: bigint; blocked: boolean; lowMinor: bigint } | null,
): Promise<WalletSnapshot> {
  const known = prefetchedWallet(prefetched);
  if (known) return known;
  let timer: NodeJS.Timeout | undefined;
  try {
    const row = await Promise.race([
      walletSource().read(db, owner),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("wallet source timeout")), WALLET_READ_TIMEOUT_MS);
      }),
    ]);
    if (!row) return { balanceMinor: null, state: "unknown", exchange: "active" };
    return classify(row);
  } catch {
    return { balanceMinor: null, state: "unknown", exchange: "active" };
  } finally {
    clearTimeout(timer);
  }
}

/** The console address where staff with the top-up right fund the wallet. */
export function topupUrl(tenantId: string): string {
  return `${env().cellOrigins[env().cell]}/console/wallet?tenant=${tenantId}`;
}

/**
 * Today's spend of an integration in one mode (`livemode` false: its sandbox spend, counted apart from
 * live spend) and its limit, as the spec's `daily_spend` object.
 */
export async function dailySpend(
  db: Db,
  integrationId: string,
  livemode: boolean,
  now = new Date(),
  knownLimitMinor?: bigint | null,
): Promise<{ limit: Money | null; used: Money }> {
  const day = now.toISOString().slice(0, 10);
  const [limitRow] =
    knownLimitMinor !== undefined
      ? [{ limit: knownLimitMinor }]
      : await db
          .select({ limit: integrations.dailySpendLimitMinor })
          .from(integrations)
          .where(eq(integrations.id, integrationId));
  const [used] = await db
    .select({ used: integrationDailySpend.usedMinor })
    .from(integrationDailySpend)
    .where(
      and(
        eq(integrationDailySpend.integrationId, integrationId),
        eq(integrationDailySpend.livemode, livemode),
        eq(integrationDailySpend.day, day),
      ),
    );
  return { limit: limitRow?.limit != null ? money(limitRow.limit) : null, used: money(used?.used ?? 0n) };
}
