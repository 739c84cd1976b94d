import { getOverview } from "@/server/services/dashboards/overview";
import { DashboardOverviewQuery, DashboardOverviewSchema } from "@/server/schemas/dashboards";
import type { AnyRoute } from "../define-route";
import { defineRoute, ok } from "../define-route";

/**
 * `GET /dashboards/overview`: `from`, `to` (trimmed to yesterday UTC), `blocks` (default all eleven).
 * A failing source answers 503 `service_unavailable` with Retry-After, never an empty block. For tenants with
 * the preview `event-intake` the `kpi`, `funnel` and `popular_pages` blocks come from intake's rollups.
 */
export const getDashboardOverviewRoute = defineRoute({
  operationId: "getDashboardOverview",
  summary: "Read the overview dashboard",
  method: "GET",
  path: "/dashboards/overview",
  scope: "dashboards:read",
  rate: "read",
  query: DashboardOverviewQuery,
  responses: { 200: DashboardOverviewSchema },
  problems: ["service_unavailable"],
  handler: async ({ db, actor, caller, query }) =>
    ok(await getOverview(db, actor, query, { intake: caller.previews.includes("event-intake") })),
});

/** Routes of this domain, in the order of the spec. */
export const DASHBOARD_ROUTES: AnyRoute[] = [getDashboardOverviewRoute];
