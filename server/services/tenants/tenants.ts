import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { tenants, wallets } from "@/db/schema";
import { CELLS, env, type Cell } from "@/server/env";
import { invalidField, notFound } from "@/server/errors";
import { FEATURE_NAMES, type Feature } from "@/server/schemas/scopes";
import { mainDomainInput } from "./main-domain";

/** A tenant as operators and the console see it. */
export type Tenant = typeof tenants.$inferSelect;

/**
 * Creates a tenant with an empty wallet (balance 0, RUB minor units) in one transaction. Without `cell` the
 * tenant belongs to this process's cell (`CELL`): its keys are issued for, and answered by, this cell.
 * @throws ApiError `validation_failed` for an empty name, an unknown cell or a bad domain.
 */
export async function createTenant(
  db: Db,
  input: { name: string; cell?: Cell; mainDomain?: string | null },
): Promise<Tenant> {
  const name = input.name.trim();
  if (!name || name.length > 200) throw invalidField("/name", "invalid_length", "name must be 1 to 200 characters.");
  const cell = input.cell ?? env().cell;
  if (!(CELLS as readonly string[]).includes(cell))
    throw invalidField("/cell", "invalid_value", `cell must be one of ${CELLS.join(", ")}.`);
  const { domain: mainDomain, error } = mainDomainInput(input.mainDomain);
  if (error) throw invalidField(error.field, error.code, error.message);
  return db.transaction(async (tx) => {
    const [t] = await tx.insert(tenants).values({ name, cell, mainDomain }).returning();
    await tx.insert(wallets).values({ tenantId: t.id });
    return t;
  });
}

/** Reads a tenant. @throws ApiError `not_found`. */
export async function getTenant(db: Db, tenantId: string): Promise<Tenant> {
  const [t] = await db.select().from(tenants).where(eq(tenants.id, tenantId));
  if (!t) throw notFound("Tenant");
  return t;
}

/**
 * Activates or deactivates a tenant; an inactive tenant's keys answer 403 `tenant_inactive`.
 * @throws ApiError `not_found`, `validation_failed` for another status.
 */
export async function setTenantStatus(db: Db, tenantId: string, status: string): Promise<Tenant> {
  if (status !== "active" && status !== "inactive")
    throw invalidField("/status", "invalid_value", "status must be active or inactive.");
  const [t] = await db
    .update(tenants)
    .set({ status, updatedAt: new Date() })
    .where(eq(tenants.id, tenantId))
    .returning();
  if (!t) throw notFound("Tenant");
  return t;
}

/**
 * Changes the license: `apiAccess` (no access → 403 `feature_not_in_plan`) and the feature set that
 * bounds effective scopes. Omitted fields stay as they are.
 * @throws ApiError `not_found`, `validation_failed` for an unknown feature.
 */
export async function setLicense(
  db: Db,
  tenantId: string,
  input: { apiAccess?: boolean; features?: string[] },
): Promise<Tenant> {
  const unknown = input.features?.filter((f) => !(FEATURE_NAMES as string[]).includes(f)) ?? [];
  if (unknown.length)
    throw invalidField(
      "/features",
      "invalid_value",
      `Unknown features: ${unknown.join(", ")}. Known: ${FEATURE_NAMES.join(", ")}.`,
    );
  const patch: Partial<Tenant> = { updatedAt: new Date() };
  if (input.apiAccess !== undefined) patch.apiAccess = input.apiAccess;
  if (input.features !== undefined) patch.features = [...new Set(input.features as Feature[])];
  const [t] = await db.update(tenants).set(patch).where(eq(tenants.id, tenantId)).returning();
  if (!t) throw notFound("Tenant");
  return t;
}
