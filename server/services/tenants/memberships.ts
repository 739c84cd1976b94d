import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { memberships, tenants } from "@/db/schema";
import { notFound } from "@/server/errors";
import type { Right } from "@/server/schemas/scopes";
import type { StaffActor } from "../actor";

/** A staff member's active membership in one tenant, as the console acts with it. */
export interface StaffMembership {
  actor: StaffActor;
  role: string;
}

/**
 * The actor of a signed-in staff user in `tenantId`: their active membership's rights.
 * @throws ApiError 404 `not_found` ("Tenant") when they hold no active membership there, so a tenant
 *   they do not belong to reads like a missing one.
 */
export async function staffMembership(db: Db, staffUserId: string, tenantId: string): Promise<StaffMembership> {
  const [m] = await db
    .select({ rights: memberships.rights, role: memberships.role })
    .from(memberships)
    .where(
      and(eq(memberships.tenantId, tenantId), eq(memberships.staffUserId, staffUserId), eq(memberships.active, true)),
    );
  if (!m) throw notFound("Tenant");
  return { actor: { via: "console", tenantId, staffUserId, rights: m.rights as Right[] }, role: m.role };
}

/** Tenants where the staff user holds an active membership, by name, with their role and rights there. */
export async function listStaffTenants(
  db: Db,
  staffUserId: string,
): Promise<{ id: string; name: string; role: string; rights: string[] }[]> {
  return db
    .select({ id: tenants.id, name: tenants.name, role: memberships.role, rights: memberships.rights })
    .from(memberships)
    .innerJoin(tenants, eq(tenants.id, memberships.tenantId))
    .where(and(eq(memberships.staffUserId, staffUserId), eq(memberships.active, true)))
    .orderBy(tenants.name);
}
