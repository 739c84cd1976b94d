import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { channels } from "@/db/schema";
import { baseUrl, env, type Env } from "@/server/env";
import { money } from "@/server/lib/money";
import type { MeBody, WalletBody } from "@/server/schemas/account";
import { grantedScopes } from "../access/pii-transfer";
import type { ApiCaller } from "../actor";
import {
  dailySpend,
  dbWalletSource,
  prefetchedWallet,
  readWallet,
  topupUrl,
  walletSource,
  type WalletSnapshot,
  type WalletSource,
} from "../wallet/wallet-state";

/**
 * `GET /wallet` (spec "Wallet"): balance in RUB, state, exchange, top-up address and the calling
 * integration's spend today. Served while exchange is suspended. The wallet and the spend are those of the
 * key's data mode: a sandbox key's (a test key of a tenant with the preview `test-mode`) are the sandbox
 * wallet and the integration's sandbox spend (issue 69).
 */
export async function getWallet(db: Db, caller: ApiCaller): Promise<WalletBody> {
  const known = knownWalletBody(caller);
  if (known) return known;
  const limit = caller.integration.dailySpendLimitMinor;
  const spent = caller.integration.spentTodayMinor;
  const [w, spend] = await Promise.all([
    readWallet(db, caller.actor, caller.walletRow),
    spent !== undefined
      ? spendBody(limit, spent)
      : dailySpend(db, caller.integrationId, caller.actor.livemode, new Date(), limit),
  ]);
  return walletBody(caller, w, spend);
}

/**
 * The caller of a sandbox key whose sandbox its own request has just seeded (pipeline-steps.ts): the key's
 * row was read before the seeding, so it holds no sandbox wallet (the wallet gate would read `unknown`:
 * 503 on paid routes, `balance: null` on `/wallet` and `/me`) and no sandbox spend. This caller carries the
 * sandbox wallet row read now and leaves today's spend to be read when asked; a new object (callers are
 * shared and frozen), made once per seeding request.
 */
export async function callerAfterSandboxSeeding(db: Db, caller: ApiCaller): Promise<ApiCaller> {
  const walletRow = await dbWalletSource.read(db, caller.actor);
  return Object.freeze({
    ...caller,
    sandboxSeeded: true,
    walletRow,
    integration: Object.freeze({ ...caller.integration, spentTodayMinor: undefined }),
  });
}

/**
 * The `GET /wallet` body read now from the database, never from what was read with the key: for an answer
 * after a change of the wallet in the same request (`POST /test-helpers/wallet`), in `db`'s transaction.
 */
export async function readWalletBody(db: Db, caller: ApiCaller): Promise<WalletBody> {
  const limit = caller.integration.dailySpendLimitMinor;
  const w = await readWallet(db, caller.actor);
  const spend = await dailySpend(db, caller.integrationId, caller.actor.livemode, new Date(), limit);
  return walletBody(caller, w, spend);
}

/**
 * The `GET /wallet` body from what was read with the key (the wallet row and today's spend), without a
 * query or a promise; undefined when either must be asked for ({@link getWallet} then).
 */
export function knownWalletBody(caller: ApiCaller): WalletBody | undefined {
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
  // What was read with the key (the channel, the wallet, today's spend) saves a query each; when all of it
  // was, the route answers with knownMeText instead, so this is the path that asks for something.
  const [wallet, channel] =
    caller.apiChannelId !== undefined
      ? [await getWallet(db, caller), [{ id: caller.apiChannelId }]]
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
  return meBody(caller, wallet, channel[0]?.id ?? null);
}

/**
 * `GET /me`'s JSON text when everything it reports was read with the key (the channel, the wallet row,
 * today's spend): made once per caller (a caller is made once per key row and shared, authenticate.ts, so
 * a change to any of these is a new caller) and served as it is; undefined when a query is due ({@link getMe}
 * then). Made again when the configuration or the wallet source was replaced (tests).
 */
export function knownMeText(caller: ApiCaller): string | undefined {
  const made = meTextByCaller.get(caller);
  if (made && made.env === env() && made.source === walletSource()) return made.text;
  if (caller.apiChannelId === undefined) return undefined;
  const wallet = knownWalletBody(caller);
  if (!wallet) return undefined;
  const text = JSON.stringify(meBody(caller, wallet, caller.apiChannelId));
  meTextByCaller.set(caller, { env: env(), source: walletSource(), text });
  return text;
}

/** {@link knownMeText}'s texts, with what they were made under. */
const meTextByCaller = new WeakMap<ApiCaller, { env: Env; source: WalletSource; text: string }>();

function meBody(caller: ApiCaller, wallet: WalletBody, channelId: string | null): MeBody {
  return {
    tenant: { id: caller.tenant.id, name: caller.tenant.name },
    cell: env().cell,
    base_url: baseUrl(),
    integration: { id: caller.integration.id, name: caller.integration.name },
    channel_id: channelId,
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
