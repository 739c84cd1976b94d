import { eq, and } from "drizzle-orm";
import { memberships, tenants } from "@/db/schema";
import { baseUrl, env } from "@/server/env";
import { getTenant } from "@/server/services/tenants/tenants";
import { router, staffProcedure, tenantProcedure } from "../init";

/** Tenants of the signed-in staff user and the overview of one. */
export const tenantsRouter = router({
  mine: staffProcedure.query(async ({ ctx }) =>
    ctx.db
      .select({ id: tenants.id, name: tenants.name, role: memberships.role, rights: memberships.rights })
      .from(memberships)
      .innerJoin(tenants, eq(tenants.id, memberships.tenantId))
      .where(and(eq(memberships.staffUserId, ctx.staff.id), eq(memberships.active, true)))
      .orderBy(tenants.name),
  ),
  overview: tenantProcedure.query(async ({ ctx }) => {
    const t = await getTenant(ctx.db, ctx.actor.tenantId);
    return {
      id: t.id,
      name: t.name,
      status: t.status,
      plan: t.plan,
      apiAccess: t.apiAccess,
      features: t.features,
      crmMode: t.crmMode,
      mainDomain: t.mainDomain,
      cell: env().cell,
      baseUrl: baseUrl(),
      rights: ctx.rights,
      role: ctx.role,
    };
  }),
});
