import { analyticsOverview, liveEvents } from "@/server/services/analytics/analytics-console";
import { router, tenantProcedure } from "../init";

/**
 * The console's Analytics page (issue 74 item 7), in the console's mode (live, or the sandbox in Test
 * mode): the last 30 days of sessions, leads, revenue and traffic sources from the daily rollups, and the
 * live list of the last events intake received, which the page polls every 3 s.
 *
 * No right: any member of the tenant may read it, as the usage charts (server/trpc/routers/usage.ts) and
 * the API's `analytics:read` scope, which needs no staff right. No preview: the `event-intake` preview
 * gates the public API's intake and analytics routes; the page only says when the tenant lacks it.
 */
export const analyticsRouter = router({
  overview: tenantProcedure.query(({ ctx }) => analyticsOverview(ctx.db, ctx.actor)),
  live: tenantProcedure.query(({ ctx }) => liveEvents(ctx.db, ctx.actor)),
});
