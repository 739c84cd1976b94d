import { notFound } from "@/server/errors";
import { resetSandbox, type SandboxReset } from "@/server/services/sandbox/seed-sandbox";
import { router, withRight } from "../init";

// The console's test mode (issue 69 item 2): "Reset test data" empties the tenant's sandbox and seeds it
// again, as `npm run admin -- sandbox:reset` does. It needs `manage_integrations`, the right that issues
// and revokes the keys (test keys included) that live in the sandbox; live data is never touched.

/** The tenant's sandbox. */
export const sandboxRouter = router({
  /**
   * Deletes every sandbox row of the membership's tenant and seeds it again; `{tenant_id, livemode: false, reset: true}`.
   * @throws TRPCError NOT_FOUND for a tenant without the preview `test-mode` (it has no sandbox to show).
   */
  reset: withRight("manage_integrations").mutation(({ ctx }): Promise<SandboxReset> => {
    if (!ctx.testModeAvailable) throw notFound("Sandbox");
    return resetSandbox(ctx.db, ctx.actor.tenantId);
  }),
});
