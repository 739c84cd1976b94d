import { baseUrl, env } from "@/server/env";
import { listStaffTenants } from "@/server/services/tenants/memberships";
import { livemodeOf } from "@/server/services/tenant-scope";
import { getTenant } from "@/server/services/tenants/tenants";
import { router, staffProcedure, tenantProcedure } from "../init";

/** Tenants of the signed-in staff user and the overview of one. */
export const tenantsRouter = router({
  mine: staffProcedure.query(({ ctx }) => listStaffTenants(ctx.db, ctx.staff.id)),
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
      /**
       * The console's Test mode (issue 69 item 6): `available` when the tenant has the preview
       * `test-mode`; `on` when this answer, and every other of the request, shows the sandbox.
       */
      testMode: { available: ctx.testModeAvailable, on: !livemodeOf(ctx.actor) },
    };
  }),
});
