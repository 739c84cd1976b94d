import { and, eq, getTableColumns, is } from "drizzle-orm";
import { PgTable, type AnyPgColumn } from "drizzle-orm/pg-core";
import * as schema from "@/db/schema";
import { notFound } from "@/server/errors";
import { router, withRight } from "../init";

/**
 * Every table of the schema with the two owner columns (`tenant_id`, `livemode`): the tenant-owned tables
 * whose sandbox rows a reset deletes. Found from the schema, so a table added later is included.
 */
const OWNED_TABLES = (Object.values(schema) as unknown[]).filter(
  (t): t is PgTable & { tenantId: AnyPgColumn; livemode: AnyPgColumn } => {
    if (!is(t, PgTable)) return false;
    const columns = getTableColumns(t);
    return "tenantId" in columns && "livemode" in columns;
  },
);

/**
 * The tenant's sandbox from the console (issue 69 item 2): "Reset test data" (the "Test data" banner,
 * app/console/_components/test-data-banner.tsx) calls `reset`.
 */
export const sandboxRouter = router({
  /**
   * Deletes every sandbox row (`livemode` false) of the tenant, in one transaction, and marks the sandbox
   * unseeded (`tenants.sandbox_seeded_at` null) so it is seeded afresh; never touches a live row. Needs
   * `manage_integrations`; a tenant without the preview `test-mode` has no sandbox: 404 `not_found`.
   * @returns `{tenant_id, livemode: false, reset: true}`, as `npm run admin -- sandbox:reset` prints.
   */
  reset: withRight("manage_integrations").mutation(async ({ ctx }) => {
    if (!ctx.testModeAvailable) throw notFound("Sandbox");
    const tenantId = ctx.actor.tenantId;
    await ctx.db.transaction(async (tx) => {
      for (const t of OWNED_TABLES) await tx.delete(t).where(and(eq(t.tenantId, tenantId), eq(t.livemode, false)));
      await tx.update(schema.tenants).set({ sandboxSeededAt: null }).where(eq(schema.tenants.id, tenantId));
    });
    return { tenant_id: tenantId, livemode: false as const, reset: true as const };
  }),
});
