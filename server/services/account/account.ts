import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { channels } from "@/db/schema";
import { baseUrl, env } from "@/server/env";
import { money } from "@/server/lib/money";
import type { MeBody, WalletBody } from "@/server/schemas/account";
import { grantedScopes } from "../access/pii-transfer";
import type { ApiCaller } from "../actor";
import { dailySpend, prefetchedWallet, readWallet, topupUrl, type WalletSnapshot } from "../wallet/wallet-state";

/**
 * `GET /wallet` (spec "Wallet"): balance in RUB, state, exchange, top-up address and the calling
 * integration's spend today. Served while exchange is suspended.
 */
export async function getWallet(db: Db, caller: ApiCaller): Promise<WalletBody> {
  const known = knownWallet(caller);
  if (known) return known;
  const limit = caller.integration.dailySpendLimitMinor;
  const spent = caller.integration.spentTodayMinor;
  const [w, spend] = await Promise.all([
    readWallet(db, caller.tenantId, caller.walletRow),
    spent !== undefined ? spendBody(limit, spent) : dailySpend(db, caller.integrationId, new Date(), limit),
  ]);
  return walletBody(caller, w, spend);
}

/**
 * The `GET /wallet` body from what was read with the key (the wallet row and today's spend), without a
 * query or a promise; undefined when either must be asked for ({@link getWallet} then).
 */
function knownWallet(caller: ApiCaller): WalletBody | undefined {
  const w = prefetchedWallet(caller.walletRow);
  const spent = caller.integration.spentTodayMinor;
  if (!w || spent === undefined) return undefined;
  return walletBody(caller, w, spendBody(caller.integration.dailySpendLimitMinor, spent));
}

function spendBody(limitMinor: bigint | null, spentMinor: bigint): NonNullable<WalletBody["daily_spend"]> {
  return { limit: limitMinor === null ? null : money(limitMinor), used: money(spentMinor) };
}

function walletBody(caller: ApiCaller, w: WalletSnapshot, spend: WalletBody["daily_spend"]): WalletBody {
  return {
    balance: w.balanceMinor === null ? null : money(w.balanceMinor),
    state: w.state,
    exchange: w.exchange,
    topup_url: topupUrl(caller.tenantId),
    daily_spend: spend,
  };
}

/** `GET /me` (spec "Me"): who the key is, what it may do, its limits (overrides applied) and the wallet. */
export async function getMe(db: Db, caller: ApiCaller): Promise<MeBody> {
  // What was read with the key (the channel, the wallet, today's spend) saves a query each, and then
  // nothing is waited for.
  const [wallet, channel] =
    caller.apiChannelId !== undefined
      ? [knownWallet(caller) ?? (await getWallet(db, caller)), [{ id: caller.apiChannelId }]]
      : await Promise.all([
          getWallet(db, caller),
          db
            .select({ id: channels.id })
            .from(channels)
            .where(
              and(
                eq(channels.tenantId, caller.tenantId),
                eq(channels.integrationId, caller.integrationId),
                eq(channels.type, "api"),
              ),
            )
            .limit(1),
        ]);
  return {
    tenant: { id: caller.tenant.id, name: caller.tenant.name },
    cell: env().cell,
    base_url: baseUrl(),
    integration: { id: caller.integration.id, name: caller.integration.name },
    channel_id: channel[0]?.id ?? null,
    key: {
      key_id: caller.key.keyId,
      mode: caller.key.mode,
      // The scopes this key is granted: on the RU cell, personal-data scopes whose transfer rule fails are
      // left out (spec "Authentication" 7), with the same facts the pipeline's personal-data step checks.
      scopes: grantedScopes(caller.scopes, caller.actor.cell, {
        country: caller.integration.piiCountry,
        legalBasis: caller.integration.legalBasis,
        ipAllowlist: caller.key.ipAllowlist,
      }),
      expires_at: caller.key.expiresAt.toISOString(),
      ip_allowlist: caller.key.ipAllowlist,
    },
    limits: caller.limits,
    wallet: { ...wallet, daily_spend: wallet.daily_spend ?? { limit: null, used: money(0n) } },
    crm_mode: caller.tenant.crmMode,
  };
}
