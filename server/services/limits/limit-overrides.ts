import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { apiKeys, rateLimitOverrides, tenants } from "@/db/schema";
import { ApiError, type FieldError, notFound } from "@/server/errors";
import { resolveLimits, tenantLimits, type LimitOverride, type RateLimits } from "./rate-limits";

/** Highest value an operator may set, per minute (and simultaneous paid operations). */
export const MAX_LIMIT = 1_000_000;

/**
 * Sets limits for a tenant or one key (`npm run admin -- limits:set`); omitted values stay as they were.
 * Takes effect on the next request of every process (limits are read with the key).
 * @returns the effective limits of that tenant (or key) after the change.
 * @throws ApiError `not_found` (tenant or key), `validation_failed` (values not integers 1..MAX_LIMIT, or no value).
 */
export async function setLimitOverride(
  db: Db,
  target: { tenantId: string } | { keyId: string },
  patch: Partial<LimitOverride>,
): Promise<RateLimits> {
  const errors: FieldError[] = [];
  const names: Record<string, string> = {
    readPerMin: "read_per_min",
    writePerMin: "write_per_min",
    paidPerMin: "paid_per_min",
    paidConcurrency: "paid_concurrency",
  };
  for (const [k, v] of Object.entries(patch)) {
    if (v !== undefined && v !== null && (!Number.isInteger(v) || v < 1 || v > MAX_LIMIT)) {
      errors.push({
        field: `/${names[k]}`,
        code: "out_of_range",
        message: `${names[k]} must be an integer from 1 to ${MAX_LIMIT}.`,
      });
    }
  }
  if (Object.values(patch).every((v) => v === undefined))
    errors.push({ field: "", code: "required", message: "Give at least one limit." });
  if (errors.length) throw new ApiError("validation_failed", "The limits are not valid.", { errors });

  let tenantOverride: LimitOverride | null = null;
  if ("keyId" in target) {
    const [k] = await db.select({ tenantId: apiKeys.tenantId }).from(apiKeys).where(eq(apiKeys.keyId, target.keyId));
    if (!k) throw notFound("Key");
    [tenantOverride] = await db.select().from(rateLimitOverrides).where(eq(rateLimitOverrides.tenantId, k.tenantId));
  } else {
    const [t] = await db.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, target.tenantId));
    if (!t) throw notFound("Tenant");
  }
  const set = { ...patch, updatedAt: new Date() };
  const [row] = await db
    .insert(rateLimitOverrides)
    .values({ ...("keyId" in target ? { keyId: target.keyId } : { tenantId: target.tenantId }), ...patch })
    .onConflictDoUpdate({ target: "keyId" in target ? rateLimitOverrides.keyId : rateLimitOverrides.tenantId, set })
    .returning();
  return "keyId" in target ? resolveLimits(tenantOverride ?? null, row) : resolveLimits(row, null);
}

/**
 * The tenant's simultaneous paid operations (spec "Limits" `paid_concurrency`): its override, else the
 * starting value. For paid work started outside the API door (the console's Score and Generate buttons),
 * which has no key whose limits the door read.
 */
export async function tenantPaidConcurrency(db: Db, tenantId: string): Promise<number> {
  const [override] = await db
    .select({ paidConcurrency: rateLimitOverrides.paidConcurrency })
    .from(rateLimitOverrides)
    .where(eq(rateLimitOverrides.tenantId, tenantId));
  return tenantLimits(
    override
      ? { readPerMin: null, writePerMin: null, paidPerMin: null, paidConcurrency: override.paidConcurrency }
      : null,
  ).paid_concurrency;
}
