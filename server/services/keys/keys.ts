import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "@/db/client";
import { apiKeys, integrations, tenants } from "@/db/schema";
import type { Cell } from "@/server/env";
import { ApiError, type FieldError, notFound } from "@/server/errors";
import { nowMs } from "@/server/lib/clock";
import { allowlistInput } from "../access/ip-allowlist";
import { missingRightsText, rightsMissingToIssue } from "../access/scopes";
import type { Actor, StaffActor } from "../actor";
import { integrationEffectiveScopes } from "../integrations/integrations";
import { generateKey, type KeyMode } from "./key-format";
import { checkIssuedKeyWorld, keysOf } from "./key-world";

/** Default lifetime of a key when no expiry is given, ms (one year). */
export const DEFAULT_KEY_LIFETIME_MS = 365 * 24 * 3600 * 1000;
/** Longest lifetime a key may be issued with, ms (three years). */
export const MAX_KEY_LIFETIME_MS = 3 * 365 * 24 * 3600 * 1000;

/** Longest name of a key, characters. */
export const KEY_NAME_MAX = 100;

/** A freshly issued key: `key` is the full secret string, shown once and never stored. */
export interface IssuedKey {
  id: string;
  keyId: string;
  key: string;
  /** The name the tenant gave it; null = unnamed. */
  name: string | null;
  mode: KeyMode;
  integrationId: string;
  tenantId: string;
  expiresAt: Date;
  ipAllowlist: string[] | null;
}

/**
 * A key name as stored: trimmed, null when empty. Pushes a `/name` field error when it is longer than
 * {@link KEY_NAME_MAX} characters or holds control characters.
 */
export function keyNameInput(name: string | null | undefined, errors: FieldError[]): string | null {
  const n = name?.trim() ?? "";
  if (n.length > KEY_NAME_MAX)
    errors.push({ field: "/name", code: "invalid_length", message: `name may be at most ${KEY_NAME_MAX} characters.` });
  else if (/[\u0000-\u001f\u007f]/.test(n))
    errors.push({ field: "/name", code: "invalid_format", message: "name may not hold control characters." });
  return n || null;
}

/**
 * Issues a key for an active integration. Only the SHA-256 of the secret is stored (DESIGN "Decisions").
 * @param input.name optional, at most {@link KEY_NAME_MAX} characters; shown in the console's key list.
 * @param input.expiresAt must lie in the future and at most {@link MAX_KEY_LIFETIME_MS} ahead.
 * @param input.issuer the staff member issuing through the console: their rights must cover every scope
 *   the key would carry ({@link rightsMissingToIssue}), and they are recorded as the key's issuer
 *   (`issued_by_staff_user_id`), whose current rights cut the key at every request and whose removal from
 *   the tenant revokes it (issue 76 item 1). Absent for platform staff (operator CLI, demo seed).
 *   The key must also work in the issuer's world (the console's Test mode, {@link checkIssuedKeyWorld}).
 * @param input.issuedByStaffUserId without `issuer`: the staff member recorded as the key's issuer (a roll
 *   by an operator keeps the old key's); null or absent = none.
 * @throws ApiError `not_found` (integration, or another tenant's when `tenantId` is given),
 *   `invalid_state` (integration not active), `validation_failed` (name, mode, expiry, allowlist; `/mode`
 *   for a key of the other world than the issuer's), 403 `scope_missing` naming the right the issuer lacks.
 */
export async function issueKey(
  db: Db,
  input: {
    integrationId: string;
    tenantId?: string;
    name?: string | null;
    mode?: string;
    expiresAt?: Date | null;
    ipAllowlist?: string[] | null;
    issuer?: StaffActor;
    issuedByStaffUserId?: string | null;
  },
): Promise<IssuedKey> {
  const where = input.tenantId
    ? and(eq(integrations.id, input.integrationId), eq(integrations.tenantId, input.tenantId))
    : eq(integrations.id, input.integrationId);
  const [i] = await db
    .select({
      id: integrations.id,
      tenantId: integrations.tenantId,
      status: integrations.status,
      cell: tenants.cell,
      previews: tenants.previews,
    })
    .from(integrations)
    .innerJoin(tenants, eq(tenants.id, integrations.tenantId))
    .where(where);
  if (!i) throw notFound("Integration");
  if (i.status !== "active")
    throw new ApiError("invalid_state", `Keys cannot be issued for a ${i.status} integration.`);
  if (input.issuer) {
    if (input.issuer.tenantId !== i.tenantId) throw notFound("Integration");
    const missing = rightsMissingToIssue(await integrationEffectiveScopes(db, i.id), input.issuer.rights);
    if (missing.length) {
      throw new ApiError(
        "scope_missing",
        `Issuing a key for this integration needs the ${missingRightsText(missing)} right: a key never carries more than its issuer may see.`,
      );
    }
  }
  const errors: FieldError[] = [];
  const name = keyNameInput(input.name, errors);
  const mode = input.mode ?? "live";
  if (mode !== "live" && mode !== "test")
    errors.push({ field: "/mode", code: "invalid_value", message: "mode must be live or test." });
  const now = nowMs();
  const expiresAt = input.expiresAt ?? new Date(now + DEFAULT_KEY_LIFETIME_MS);
  if (Number.isNaN(expiresAt.getTime()))
    errors.push({ field: "/expires_at", code: "invalid_format", message: "expires_at must be an ISO 8601 date-time." });
  else if (expiresAt.getTime() <= now)
    errors.push({ field: "/expires_at", code: "out_of_range", message: "expires_at must be in the future." });
  else if (expiresAt.getTime() > now + MAX_KEY_LIFETIME_MS)
    errors.push({ field: "/expires_at", code: "out_of_range", message: "expires_at may be at most 3 years ahead." });
  const { allowlist, errors: allowlistErrors } = allowlistInput(input.ipAllowlist);
  errors.push(...allowlistErrors);
  if (errors.length) throw new ApiError("validation_failed", "The key settings are not valid.", { errors });
  if (input.issuer) checkIssuedKeyWorld(input.issuer, mode, i.previews);
  const g = generateKey(mode as KeyMode, i.cell as Cell);
  const [row] = await db
    .insert(apiKeys)
    .values({
      keyId: g.keyId,
      tenantId: i.tenantId,
      integrationId: i.id,
      mode,
      name,
      secretHash: g.secretHash,
      expiresAt,
      ipAllowlist: allowlist,
      issuedByStaffUserId: input.issuer?.staffUserId ?? input.issuedByStaffUserId ?? null,
    })
    .returning({ id: apiKeys.id });
  return {
    id: row.id,
    keyId: g.keyId,
    key: g.key,
    name,
    mode: mode as KeyMode,
    integrationId: i.id,
    tenantId: i.tenantId,
    expiresAt,
    ipAllowlist: allowlist,
  };
}

/**
 * Revokes a key by its public `key_id`; the next request with it answers 401 `invalid_api_key`.
 * Revoking twice is harmless and keeps the first time.
 * @param actor the console's staff actor: only a key of their tenant and world ({@link keysOf}); absent
 *   for platform staff (operator CLI), who reach any key.
 * @throws ApiError `not_found` (also another tenant's key, or a key of the other world, with `actor`).
 */
export async function revokeKey(db: Db, keyId: string, actor?: Actor): Promise<{ keyId: string; revokedAt: Date }> {
  const where = actor ? and(eq(apiKeys.keyId, keyId), keysOf(actor)) : eq(apiKeys.keyId, keyId);
  await db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(where, isNull(apiKeys.revokedAt)));
  const [row] = await db.select({ keyId: apiKeys.keyId, revokedAt: apiKeys.revokedAt }).from(apiKeys).where(where);
  if (!row) throw notFound("Key");
  return { keyId: row.keyId, revokedAt: row.revokedAt! };
}

/**
 * Names or renames a key by its public `key_id` (the console); an empty name clears it. Revoked and
 * expired keys may be renamed too: the name only labels the row.
 * @param actor the console's staff actor: only a key of their tenant and world ({@link keysOf}).
 * @throws ApiError `not_found` (also another tenant's key, or one of the other world, with `actor`),
 *   `validation_failed` on `/name`.
 */
export async function renameKey(
  db: Db,
  keyId: string,
  name: string | null,
  actor?: Actor,
): Promise<{ keyId: string; name: string | null }> {
  const errors: FieldError[] = [];
  const stored = keyNameInput(name, errors);
  if (errors.length) throw new ApiError("validation_failed", "The key name is not valid.", { errors });
  const where = actor ? and(eq(apiKeys.keyId, keyId), keysOf(actor)) : eq(apiKeys.keyId, keyId);
  const [row] = await db
    .update(apiKeys)
    .set({ name: stored })
    .where(where)
    .returning({ keyId: apiKeys.keyId, name: apiKeys.name });
  if (!row) throw notFound("Key");
  return row;
}
