import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "@/db/client";
import { apiKeys, integrations, tenants } from "@/db/schema";
import type { Cell } from "@/server/env";
import { ApiError, type FieldError, notFound } from "@/server/errors";
import { nowMs } from "@/server/lib/clock";
import { allowlistInput } from "../access/ip-allowlist";
import { rightsMissingToIssue } from "../access/scopes";
import type { StaffActor } from "../actor";
import { integrationEffectiveScopes } from "../integrations/integrations";
import { generateKey, type KeyMode } from "./key-format";

/** Default lifetime of a key when no expiry is given, ms (one year). */
export const DEFAULT_KEY_LIFETIME_MS = 365 * 24 * 3600 * 1000;
/** Longest lifetime a key may be issued with, ms (three years). */
export const MAX_KEY_LIFETIME_MS = 3 * 365 * 24 * 3600 * 1000;

/** A freshly issued key: `key` is the full secret string, shown once and never stored. */
export interface IssuedKey {
  id: string;
  keyId: string;
  key: string;
  mode: KeyMode;
  integrationId: string;
  tenantId: string;
  expiresAt: Date;
  ipAllowlist: string[] | null;
}

/**
 * Issues a key for an active integration. Only the SHA-256 of the secret is stored (DESIGN "Decisions").
 * @param input.expiresAt must lie in the future and at most {@link MAX_KEY_LIFETIME_MS} ahead.
 * @param input.issuer the staff member issuing through the console: their rights must cover every scope
 *   the key would carry ({@link rightsMissingToIssue}). Absent for platform staff (operator CLI, demo seed).
 * @throws ApiError `not_found` (integration, or another tenant's when `tenantId` is given),
 *   `invalid_state` (integration not active), `validation_failed` (mode, expiry, allowlist),
 *   403 `scope_missing` naming the right the issuer lacks.
 */
export async function issueKey(
  db: Db,
  input: {
    integrationId: string;
    tenantId?: string;
    mode?: string;
    expiresAt?: Date | null;
    ipAllowlist?: string[] | null;
    issuer?: StaffActor;
  },
): Promise<IssuedKey> {
  const where = input.tenantId
    ? and(eq(integrations.id, input.integrationId), eq(integrations.tenantId, input.tenantId))
    : eq(integrations.id, input.integrationId);
  const [i] = await db
    .select({ id: integrations.id, tenantId: integrations.tenantId, status: integrations.status, cell: tenants.cell })
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
      const what = missing.map((m) => `"${m.right}" (for ${m.scopes.join(", ")})`).join(" and ");
      throw new ApiError(
        "scope_missing",
        `Issuing a key for this integration needs the ${what} right: a key never carries more than its issuer may see.`,
      );
    }
  }
  const errors: FieldError[] = [];
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
  const g = generateKey(mode as KeyMode, i.cell as Cell);
  const [row] = await db
    .insert(apiKeys)
    .values({
      keyId: g.keyId,
      tenantId: i.tenantId,
      integrationId: i.id,
      mode,
      secretHash: g.secretHash,
      expiresAt,
      ipAllowlist: allowlist,
    })
    .returning({ id: apiKeys.id });
  return {
    id: row.id,
    keyId: g.keyId,
    key: g.key,
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
 * @throws ApiError `not_found`.
 */
export async function revokeKey(db: Db, keyId: string, tenantId?: string): Promise<{ keyId: string; revokedAt: Date }> {
  const where = tenantId ? and(eq(apiKeys.keyId, keyId), eq(apiKeys.tenantId, tenantId)) : eq(apiKeys.keyId, keyId);
  await db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(where, isNull(apiKeys.revokedAt)));
  const [row] = await db.select({ keyId: apiKeys.keyId, revokedAt: apiKeys.revokedAt }).from(apiKeys).where(where);
  if (!row) throw notFound("Key");
  return { keyId: row.keyId, revokedAt: row.revokedAt! };
}
