import { and, eq, ne, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { crmStatusMaps, leads, tenants } from "@/db/schema";
import { invalidField, notFound } from "@/server/errors";
import type { LeadStatus } from "@/server/schemas/leads";
import { recordEvent } from "../events/outbox";
import { ownedBy, ownerOf, type Owner } from "../tenant-scope";

/** The CRM modes of a tenant (spec "Me": `crm_mode`): the platform's CRM, or an external one. */
export const CRM_MODES = ["internal", "external"] as const;
export type CrmMode = (typeof CRM_MODES)[number];

/** A status map as answered: external status → canonical status, and when it was last set (null: never). */
export interface StatusMap {
  map: Record<string, LeadStatus>;
  updated_at: string | null;
}

/** `GET /crm/status-map` (issue 70 item 4): the map of the owner's tenant and mode; `{}` until one is set. */
export async function getStatusMap(db: Db, owner: Owner): Promise<StatusMap> {
  const [row] = await db.select().from(crmStatusMaps).where(ownedBy(crmStatusMaps, owner));
  return row
    ? { map: row.map as Record<string, LeadStatus>, updated_at: row.updatedAt.toISOString() }
    : { map: {}, updated_at: null };
}

/**
 * `PUT /crm/status-map`: replaces the whole map of the owner's tenant and mode (at most 200 entries, each
 * value a canonical status: the body schema refuses others with 422). Call it in a transaction.
 */
export async function putStatusMap(db: Db, owner: Owner, map: Record<string, LeadStatus>): Promise<StatusMap> {
  const now = new Date();
  await db
    .insert(crmStatusMaps)
    .values({ ...ownerOf(owner), map, updatedAt: now })
    .onConflictDoUpdate({ target: [crmStatusMaps.tenantId, crmStatusMaps.livemode], set: { map, updatedAt: now } });
  return { map, updated_at: now.toISOString() };
}

/**
 * Sets a tenant's CRM mode (staff in the console, `npm run admin -- crm:set-mode`; issue 70 item 4). A change
 * makes every lead of the tenant (both modes) carry the new `owner` (a new version of each, `updated_at` now,
 * so sync clients see it), and emits `crm.mode_changed` `{crm_mode, previous}` in live and sandbox data. `/me`
 * shows the mode from the tenant's next request on (the key cache is told by the tenants trigger).
 * Call it in a transaction.
 * @returns the mode and whether it changed
 * @throws ApiError 422 on `/mode` for an unknown mode; 404 for no tenant.
 */
export async function setCrmMode(
  db: Db,
  tenantId: string,
  mode: string,
): Promise<{ crm_mode: CrmMode; previous: string; changed: boolean }> {
  if (!(CRM_MODES as readonly string[]).includes(mode))
    throw invalidField("/mode", "invalid_value", `The CRM mode must be one of ${CRM_MODES.join(", ")}.`);
  const [cur] = await db.select({ mode: tenants.crmMode }).from(tenants).where(eq(tenants.id, tenantId)).for("update");
  if (!cur) throw notFound("Tenant");
  if (cur.mode === mode) return { crm_mode: mode as CrmMode, previous: cur.mode, changed: false };
  await db.update(tenants).set({ crmMode: mode, updatedAt: new Date() }).where(eq(tenants.id, tenantId));
  await db
    .update(leads)
    .set({ owner: mode, version: sql`${leads.version} + 1`, updatedAt: new Date() })
    .where(and(eq(leads.tenantId, tenantId), ne(leads.owner, mode)));
  for (const livemode of [true, false])
    await recordEvent(db, {
      tenantId,
      livemode,
      type: "crm.mode_changed",
      data: { crm_mode: mode, previous: cur.mode },
    });
  return { crm_mode: mode as CrmMode, previous: cur.mode, changed: true };
}
