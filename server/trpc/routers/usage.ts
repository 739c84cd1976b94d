import { usageSummary } from "@/server/services/usage/usage";
import { router, tenantProcedure } from "../init";

/**
 * The console's usage charts (issue 19 item 6) for any member of the tenant: API requests, spend and
 * webhook deliveries a day over the last 30 days.
 */
export const usageRouter = router({
  summary: tenantProcedure.query(({ ctx }) => usageSummary(ctx.db, ctx.actor)),
});
