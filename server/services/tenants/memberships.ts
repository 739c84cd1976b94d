import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { memberships, tenants } from "@/db/schema";
import { notFound } from "@/server/errors";
import type { PreviewFeature } from "@/server/schemas/previews";
import type { Right } from "@/server/schemas/scopes";
import type { StaffActor } from "../actor";

/** The preview that gives a tenant its sandbox and the console its "Test mode" switch. */
export const TEST_MODE_PREVIEW: PreviewFeature = "test-mode";

/** A staff member's active membership in one tenant, as the console acts with it. */
export interface StaffMembership {
  /** Acts with the membership's rights, in the sandbox (`livemode: false`) when Test mode applies. */
  actor: StaffActor;
  role: string;
  /** The tenant has the preview `test-mode`: the console offers its "Test mode" switch. */
  testModeAvailable: boolean;
  /** The tenant's sandbox has been seeded with sample data (`tenants.sandbox_seeded_at` set). */
  sandboxSeeded: boolean;
}

/**
 * The actor of a signed-in staff user in `tenantId`: their active membership's rights, and the world the
 * console shows (issue 69 item 6): `livemode` false when the console's "Test mode" switch is on
 * (`testMode`, server/lib/console-mode.ts) and the tenant has the preview `test-mode`, else true. The
 * switch of a tenant without the preview is ignored, so such a tenant's console is live as before.
 * @throws ApiError 404 `not_found` ("Tenant") when they hold no active membership there, so a tenant
 *   they do not belong to reads like a missing one.
 */
export async function staffMembership(
  db: Db,
  staffUserId: string,
  tenantId: string,
  testMode = false,
): Promise<StaffMembership> {
  const [m] = await db
    .select({
      rights: memberships.rights,
      role: memberships.role,
      previews: tenants.previews,
      sandboxSeededAt: tenants.sandboxSeededAt,
    })
    .from(memberships)
    .innerJoin(tenants, eq(tenants.id, memberships.tenantId))
    .where(
      and(eq(memberships.tenantId, tenantId), eq(memberships.staffUserId, staffUserId), eq(memberships.active, true)),
    );
  if (!m) throw notFound("Tenant");
  const testModeAvailable = m.previews.includes(TEST_MODE_PREVIEW);
  return {
    actor: {
      via: "console",
      tenantId,
      staffUserId,
      rights: m.rights as Right[],
      livemode: !(testMode && testModeAvailable),
    },
    role: m.role,
    testModeAvailable,
    sandboxSeeded: m.sandboxSeededAt !== null,
  };
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
