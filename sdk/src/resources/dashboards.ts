import type { DashboardOverview, DashboardOverviewQuery } from "../types.js";
import { unwrap, type CallOptions, type Context } from "./context.js";

/** Dashboards (spec "GET /dashboards/overview"). */
export function dashboardsResource(ctx: Context) {
  return {
    /**
     * `GET /dashboards/overview`: `{data: {from, to, blocks}}`; `blocks` is a comma-separated list of block
     * names (default all eleven); `to` is trimmed to the last full day.
     */
    overview: (query: DashboardOverviewQuery = {}, o?: CallOptions): Promise<DashboardOverview> =>
      unwrap(ctx.raw.GET("/dashboards/overview", { params: { query }, signal: o?.signal })),
  };
}
