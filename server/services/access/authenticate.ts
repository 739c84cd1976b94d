import { and, eq, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Db } from "@/db/client";
import { preparedQuery } from "@/db/prepared";
import {
  apiKeys,
  channels,
  integrationDailySpend,
  integrations,
  memberships,
  rateLimitOverrides,
  tenants,
  wallets,
} from "@/db/schema";
import { baseUrl, env, type Cell } from "@/server/env";
import { ApiError } from "@/server/errors";
import type { Scope } from "@/server/schemas/scopes";
import type { ApiCaller } from "../actor";
import { isAllowed } from "./ip-allowlist";
import { keyCacheOf } from "./key-cache";
import { effectiveScopes } from "./scopes";
import { parseKey, secretMatches } from "../keys/key-format";
import { resolveLimits, tenantLimits, type LimitOverride } from "../limits/rate-limits";

const keyLimits = alias(rateLimitOverrides, "key_limits");
/** The membership in the key's tenant of the staff member who issued the key (issue 76 item 1). */
const issuerMembership = alias(memberships, "issuer_membership");
const tenantLimitRow = alias(rateLimitOverrides, "tenant_limits");

/**
 * Details of the 401 `invalid_api_key` (spec "Authentication" 3): the code is the same for every case, the
 * detail tells a person what to fix. What the request itself shows is told apart (no header; a header that
 * is not `Bearer <a key of this platform>`); whether a well-formed key is unknown, revoked or expired is
 * never told apart, so the answer does not confirm that a key existed.
 */
export const INVALID_KEY_DETAIL = {
  missing: "The Authorization header is missing; send `Authorization: Bearer <API key>`.",
  malformed:
    "The Authorization header does not hold an API key of this platform; send `Authorization: Bearer sk_live_...` (or `sk_test_...`) with the key exactly as it was issued.",
  unknown: "The API key is unknown, revoked or expired; check it in the tenant console, or issue a new one there.",
} as const;

/**
 * Authenticates a public request (spec "Authentication" 1-5), in the pipeline's order:
 * key (401 `invalid_api_key`, `wrong_cell`, `integration_inactive`, also when the owner of the integration
 * or the issuer of the key lost access) → 403 `tenant_inactive` →
 * 403 `ip_not_allowed` → 403 `feature_not_in_plan`. Returns the caller with its effective scopes.
 * The key's row comes from the process's key cache when one was started for `db` (key-cache.ts: no
 * database round trip for a known key); every check above still runs on each request.
 * @param authorization the raw `Authorization` header
 * @param callerIp the caller's address as decided by the trusted-proxy configuration
 * @throws ApiError with the codes above
 */
export async function authenticate(
  db: Db,
  authorization: string | null,
  callerIp: string | null,
  now = new Date(),
): Promise<ApiCaller> {
  return authenticateNow(db, authorization, callerIp, now);
}

/**
 * {@link authenticate}, without a promise when the key's row is in the process's key cache (the hot path:
 * the same checks and errors, thrown synchronously); a promise when the row must be read from the database.
 * @throws ApiError as {@link authenticate}, synchronously when no query was needed to tell
 */
export function authenticateNow(
  db: Db,
  authorization: string | null,
  callerIp: string | null,
  now = new Date(),
): ApiCaller | Promise<ApiCaller> {
  const parsed = bearerKey(authorization);
  const day = utcDay(now);
  // The row comes from the in-process cache when one runs for this database (key-cache.ts: trusted only
  // while its change listener is connected); every check runs on each request either way.
  const cache = keyCacheOf<KeyRow>(db);
  const r = cache?.get(parsed.keyId, day);
  if (r) return verifiedCaller(parsed, r, callerIp, now);
  const token = cache?.begin() ?? 0;
  return keyQuery(db)
    .execute({ keyId: parsed.keyId, day })
    .then(([row]) => {
      if (row && cache) cache.put(parsed.keyId, day, row, token);
      return verifiedCaller(parsed, row, callerIp, now);
    });
}

/** The UTC day of `now` (YYYY-MM-DD): the day the key query reads the integration's spend for. */
const utcDay = (now: Date) => now.toISOString().slice(0, 10);

/**
 * The key of an `Authorization: Bearer <key>` header, parsed (spec "Authentication" 1-2).
 * @throws ApiError 401 `invalid_api_key` (missing or malformed) or `wrong_cell` (a key of another cell)
 */
function bearerKey(authorization: string | null): NonNullable<ReturnType<typeof parseKey>> {
  if (authorization === null || authorization.trim() === "")
    throw new ApiError("invalid_api_key", INVALID_KEY_DETAIL.missing);
  const m = /^Bearer ([^\s]+)$/i.exec(authorization.trim());
  const parsed = m ? parseKey(m[1]) : null;
  if (!parsed) throw new ApiError("invalid_api_key", INVALID_KEY_DETAIL.malformed);
  if (parsed.cell !== env().cell) {
    throw new ApiError(
      "wrong_cell",
      `This key was issued in the ${parsed.cell.toUpperCase()} cell; call that cell's base URL.`,
      {
        correct_base_url: baseUrl(parsed.cell),
      },
    );
  }
  return parsed;
}

/**
 * Checks the presented key against its row (undefined: no such key) in the spec's order and answers the
 * caller the row describes.
 * @throws ApiError `invalid_api_key`, `integration_inactive`, `tenant_inactive`, `ip_not_allowed`,
 *   `feature_not_in_plan`
 */
function verifiedCaller(
  parsed: NonNullable<ReturnType<typeof parseKey>>,
  r: KeyRow | undefined,
  callerIp: string | null,
  now: Date,
): ApiCaller {
  // The hash is compared even for a missing key's stand-in so both paths take the same time.
  const ok = secretMatches(parsed.secret, r?.secretHash ?? "0".repeat(64));
  if (!r || !ok || r.mode !== parsed.mode || r.expiresAt.getTime() <= now.getTime() || r.tenantCell !== env().cell) {
    throw new ApiError("invalid_api_key", INVALID_KEY_DETAIL.unknown);
  }
  // Revoking an integration also revokes its keys; the holder of a correct secret is told the integration
  // is revoked (spec catalog: integration_inactive), which reveals nothing the key itself does not.
  if (r.integrationStatus !== "active") {
    throw new ApiError("integration_inactive", `The integration is ${r.integrationStatus}.`);
  }
  if (r.revokedAt) throw new ApiError("invalid_api_key", INVALID_KEY_DETAIL.unknown);
  if (r.ownerId !== null && r.ownerActive !== true) {
    throw new ApiError(
      "integration_inactive",
      "The staff member who owns this integration no longer has access to the tenant.",
    );
  }
  // Removing a member revokes the keys they issued (the same transaction); this answers for a key whose
  // issuer's membership is gone or inactive all the same (defence in depth, issue 76 item 1).
  if (r.issuedBy !== null && r.issuerActive !== true) {
    throw new ApiError(
      "integration_inactive",
      "The staff member who issued this key no longer has access to the tenant; issue a new key in the console.",
    );
  }
  if (r.tenantStatus !== "active") throw new ApiError("tenant_inactive", "The tenant account is not active.");
  for (const list of [r.integrationAllowlist, r.keyAllowlist]) {
    if (list && !isAllowed(callerIp, list)) {
      throw new ApiError(
        "ip_not_allowed",
        `Requests from ${callerIp ?? "an unknown address"} are outside the key's IP allowlist.`,
      );
    }
  }
  if (!r.apiAccess) throw new ApiError("feature_not_in_plan", "The tenant's plan does not include API access.");
  // The key's last-used time and address are stamped by the request log's batched writer
  // (server/services/request-log), off the request's path.
  return callerOf(r);
}

/**
 * The caller a key row describes, made once per row object and shared by every request it answers (a
 * cached row answers many; a change to any input is a new row, key-cache.ts). Frozen, as it is shared:
 * whoever needs another caller makes a new object.
 */
const callerByRow = new WeakMap<KeyRow, ApiCaller>();

/** The frozen caller of row `r` (see {@link callerByRow}). */
function callerOf(r: KeyRow): ApiCaller {
  let caller = callerByRow.get(r);
  if (!caller) {
    caller = deepFreeze(buildCaller(r));
    callerByRow.set(r, caller);
  }
  return caller;
}

function buildCaller(r: KeyRow): ApiCaller {
  const mode = r.mode as "live" | "test";
  const keyOverride: LimitOverride = {
    readPerMin: r.kRead,
    writePerMin: r.kWrite,
    paidPerMin: r.kPaid,
    paidConcurrency: r.kConc,
  };
  const tenantOverride: LimitOverride = {
    readPerMin: r.tRead,
    writePerMin: r.tWrite,
    paidPerMin: r.tPaid,
    paidConcurrency: r.tConc,
  };
  const scopes = scopesOf(r);
  const cell = r.tenantCell as Cell;
  return {
    actor: {
      via: "api",
      tenantId: r.tenantId,
      integrationId: r.integrationId,
      keyId: r.keyId,
      keyMode: mode,
      livemode: mode === "live" || !r.previews.includes("test-mode"),
      scopes,
      cell,
      mainDomain: r.mainDomain,
    },
    tenantId: r.tenantId,
    integrationId: r.integrationId,
    keyMode: mode,
    tenant: { id: r.tenantId, name: r.tenantName, cell, crmMode: r.crmMode, mainDomain: r.mainDomain },
    previews: r.previews,
    sandboxSeeded: r.sandboxSeededAt !== null,
    integration: {
      id: r.integrationId,
      name: r.integrationName,
      piiCountry: r.piiCountry,
      legalBasis: r.legalBasis,
      dailySpendLimitMinor: r.dailySpendLimitMinor,
      spentTodayMinor: r.spentTodayMinor ?? 0n,
    },
    apiChannelId: r.apiChannelId,
    walletRow:
      r.walletBalance === null
        ? null
        : { balanceMinor: r.walletBalance, blocked: r.walletBlocked ?? false, lowMinor: r.lowMinor },
    key: {
      id: r.keyUuid,
      keyId: r.keyId,
      mode,
      expiresAt: r.expiresAt,
      ipAllowlist: r.keyAllowlist ?? r.integrationAllowlist ?? null,
    },
    limits: resolveLimits(tenantOverride, keyOverride),
    tenantLimits: tenantLimits(tenantOverride),
    scopes,
  };
}

/** Freezes `o` and every object and array it holds (not Dates: their setters are methods, not fields). */
function deepFreeze<T>(o: T): T {
  if (o && typeof o === "object" && !(o instanceof Date) && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

/**
 * The mode of the data a key works in, as SQL over the key query's rows: true (live) for a live key, and
 * for a test key of a tenant without the preview `test-mode`; false (the sandbox) for a test key of a
 * tenant with it. The same rule as the actor's `livemode` (buildCaller), so the wallet row (one of the
 * tenant's two: PK tenant, livemode) and today's spend read with the key are those of the actor's mode
 * (issue 69): a sandbox key's wallet gate, `GET /wallet` and `GET /me` judge the sandbox wallet.
 */
const keyDataLivemode = sql`(${apiKeys.mode} = 'live' or not ('test-mode' = any(${tenants.previews})))`;

/** The key lookup with everything the pipeline needs in one round trip; built once per database (query building is a hot path). */
function buildKeyQuery(db: Db) {
  return (
    db
      .select({
        keyUuid: apiKeys.id,
        keyId: apiKeys.keyId,
        secretHash: apiKeys.secretHash,
        mode: apiKeys.mode,
        expiresAt: apiKeys.expiresAt,
        revokedAt: apiKeys.revokedAt,
        keyAllowlist: apiKeys.ipAllowlist,
        integrationId: integrations.id,
        integrationName: integrations.name,
        integrationStatus: integrations.status,
        role: integrations.role,
        scopes: integrations.scopes,
        ownerId: integrations.ownerStaffUserId,
        piiCountry: integrations.piiCountry,
        legalBasis: integrations.legalBasis,
        integrationAllowlist: integrations.ipAllowlist,
        tenantId: tenants.id,
        tenantName: tenants.name,
        tenantCell: tenants.cell,
        tenantStatus: tenants.status,
        apiAccess: tenants.apiAccess,
        features: tenants.features,
        previews: tenants.previews,
        sandboxSeededAt: tenants.sandboxSeededAt,
        crmMode: tenants.crmMode,
        mainDomain: tenants.mainDomain,
        ownerActive: memberships.active,
        ownerRights: memberships.rights,
        issuedBy: apiKeys.issuedByStaffUserId,
        issuerActive: issuerMembership.active,
        issuerRights: issuerMembership.rights,
        walletBalance: wallets.balanceMinor,
        walletBlocked: wallets.blocked,
        lowMinor: tenants.lowBalanceMinor,
        dailySpendLimitMinor: integrations.dailySpendLimitMinor,
        spentTodayMinor: integrationDailySpend.usedMinor,
        apiChannelId: channels.id,
        kRead: keyLimits.readPerMin,
        kWrite: keyLimits.writePerMin,
        kPaid: keyLimits.paidPerMin,
        kConc: keyLimits.paidConcurrency,
        tRead: tenantLimitRow.readPerMin,
        tWrite: tenantLimitRow.writePerMin,
        tPaid: tenantLimitRow.paidPerMin,
        tConc: tenantLimitRow.paidConcurrency,
      })
      .from(apiKeys)
      .innerJoin(integrations, eq(integrations.id, apiKeys.integrationId))
      .innerJoin(tenants, eq(tenants.id, apiKeys.tenantId))
      .leftJoin(
        memberships,
        and(eq(memberships.tenantId, tenants.id), eq(memberships.staffUserId, integrations.ownerStaffUserId)),
      )
      .leftJoin(
        issuerMembership,
        and(eq(issuerMembership.tenantId, tenants.id), eq(issuerMembership.staffUserId, apiKeys.issuedByStaffUserId)),
      )
      // The wallet of the key's data mode: the sandbox wallet for a sandbox key (one row: PK tenant, livemode).
      .leftJoin(wallets, and(eq(wallets.tenantId, tenants.id), eq(wallets.livemode, keyDataLivemode)))
      .leftJoin(keyLimits, eq(keyLimits.keyId, apiKeys.keyId))
      .leftJoin(tenantLimitRow, eq(tenantLimitRow.tenantId, tenants.id))
      .leftJoin(channels, and(eq(channels.integrationId, integrations.id), eq(channels.type, "api")))
      .leftJoin(
        integrationDailySpend,
        and(
          eq(integrationDailySpend.integrationId, integrations.id),
          eq(integrationDailySpend.livemode, keyDataLivemode),
          eq(integrationDailySpend.day, sql.placeholder("day")),
        ),
      )
      .where(eq(apiKeys.keyId, sql.placeholder("keyId")))
      .limit(1)
  );
}

/** One row of the key query, as cached by key-cache.ts. */
type KeyRow = Awaited<ReturnType<typeof buildKeyQuery>>[number];

/**
 * Effective scopes by key row: a cached row answers many requests, and its scopes follow from it alone
 * (a change to any input is a new row, key-cache.ts). Shared between requests, so never changed in place.
 */
const scopesByRow = new WeakMap<KeyRow, Scope[]>();

/**
 * The key row's effective scopes (SECURITY.md "Rights"), computed once per row object: the integration's,
 * cut by its owner's and the key's issuer's current rights (both read in the key query; a change of either
 * membership invalidates the cached row, key-cache.ts).
 */
function scopesOf(r: KeyRow): Scope[] {
  let scopes = scopesByRow.get(r);
  if (!scopes) {
    scopes = effectiveScopes({
      integrationScopes: r.scopes,
      role: r.role,
      ownerRights: r.ownerId === null ? null : (r.ownerRights ?? []),
      licenseFeatures: r.features,
      issuerRights: r.issuedBy === null ? null : (r.issuerRights ?? []),
    });
    scopesByRow.set(r, scopes);
  }
  return scopes;
}

/** The key query, prepared once per database handle (db/prepared.ts). */
const keyQuery = (db: Db) => preparedQuery(db, "authenticate:key", buildKeyQuery);
