import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { apiKeys, rateLimitOverrides } from "@/db/schema";
import { ApiError, invalidField, notFound } from "@/server/errors";
import { nowMs } from "@/server/lib/clock";
import type { StaffActor } from "../actor";
import { keysOf } from "./key-world";
import { issueKey, MAX_KEY_LIFETIME_MS, type IssuedKey } from "./keys";

/**
 * How long the old key of a roll keeps working, ms, by choice (as in Stripe's "Roll key"): at once, an hour,
 * a day or a week, time enough to deploy the new key everywhere the old one is used.
 */
export const ROLL_DELAYS = { now: 0, "1h": 3_600_000, "24h": 86_400_000, "7d": 7 * 86_400_000 } as const;

/** A choice of {@link ROLL_DELAYS}. */
export type RollDelay = keyof typeof ROLL_DELAYS;

/** Names of {@link ROLL_DELAYS}, for schemas and forms. */
export const ROLL_DELAY_NAMES = Object.keys(ROLL_DELAYS) as [RollDelay, ...RollDelay[]];

/** What a roll did: the new key (its secret shown once) and when the old one stops working. */
export interface RolledKey {
  key: IssuedKey;
  old: { keyId: string; expiresAt: Date };
}

/**
 * Rolls a key: issues a new key for the same integration with the same settings (name, mode, IP allowlist,
 * per-key rate limits and lifetime — the old key's `expires_at − created_at`, at most three years, counted
 * from now) and makes the old key expire after `delay` (never later than it already would). From then on
 * the API answers the old key with 401 `invalid_api_key`, as for any expired key; until then both work.
 * All in one transaction with the old key's row locked, so a key is rolled at most once.
 *
 * The daily `api_key.expiring` job treats the old key like any key with that expiry: a delay of 7 days or
 * less falls inside the 7-day notice, so the integration's subscribers get one `api_key.expiring`
 * (`days_left` 1 to 7) unless it was already sent; with `now` the key is already expired and gets none. The
 * new key starts with no notice sent.
 * @param input.issuer the staff member rolling in the console: the same rights as issuing a key (the
 *   new key's scopes must be covered by them), and they become the new key's issuer (its scopes cut by
 *   their current rights, issue 76 item 1); absent for operators, whose roll keeps the old key's issuer.
 * @throws ApiError `not_found` (key, or another tenant's when `tenantId` is given, or with `issuer` one of
 *   another tenant or of the other world than the issuer's Test mode), `invalid_state` (the
 *   key is revoked, expired, already rolled, or its integration is not active), `validation_failed` on
 *   `/delay`, 403 `scope_missing` as {@link issueKey}.
 */
export async function rollKey(
  db: Db,
  input: { keyId: string; delay: string; tenantId?: string; issuer?: StaffActor },
): Promise<RolledKey> {
  if (!Object.hasOwn(ROLL_DELAYS, input.delay))
    throw invalidField("/delay", "invalid_value", `delay must be one of ${ROLL_DELAY_NAMES.join(", ")}.`);
  const delayMs = ROLL_DELAYS[input.delay as RollDelay];
  return db.transaction(async (tx) => {
    // The console's issuer reaches only keys of their tenant and world (its Test mode, key-world.ts).
    const where = input.issuer
      ? and(eq(apiKeys.keyId, input.keyId), keysOf(input.issuer))
      : input.tenantId
        ? and(eq(apiKeys.keyId, input.keyId), eq(apiKeys.tenantId, input.tenantId))
        : eq(apiKeys.keyId, input.keyId);
    const [old] = await tx.select().from(apiKeys).where(where).for("update");
    if (!old) throw notFound("Key");
    const now = nowMs();
    if (old.revokedAt) throw new ApiError("invalid_state", "A revoked key cannot be rolled; issue a new key instead.");
    if (old.replacedBy)
      throw new ApiError("invalid_state", `This key was already rolled to ${old.replacedBy}; roll that key instead.`);
    if (old.expiresAt.getTime() <= now)
      throw new ApiError("invalid_state", "An expired key cannot be rolled; issue a new key instead.");
    const lifetime = Math.min(old.expiresAt.getTime() - old.createdAt.getTime(), MAX_KEY_LIFETIME_MS);
    const key = await issueKey(tx, {
      integrationId: old.integrationId,
      tenantId: old.tenantId,
      name: old.name,
      mode: old.mode,
      // A key issued moments before its roll could have a lifetime of almost nothing; a day at least.
      expiresAt: new Date(now + Math.max(lifetime, ROLL_DELAYS["24h"])),
      ipAllowlist: old.ipAllowlist,
      issuer: input.issuer,
      issuedByStaffUserId: old.issuedByStaffUserId,
    });
    const expiresAt = new Date(Math.min(old.expiresAt.getTime(), now + delayMs));
    await tx.update(apiKeys).set({ expiresAt, replacedBy: key.keyId }).where(eq(apiKeys.id, old.id));
    // Limits an operator set for the old key (limits:set --key-id) carry over to the new one.
    await tx.execute(sql`
      insert into ${rateLimitOverrides} (key_id, read_per_min, write_per_min, paid_per_min, paid_concurrency)
      select ${key.keyId}, read_per_min, write_per_min, paid_per_min, paid_concurrency
      from ${rateLimitOverrides} where key_id = ${old.keyId}`);
    return { key, old: { keyId: old.keyId, expiresAt } };
  });
}
