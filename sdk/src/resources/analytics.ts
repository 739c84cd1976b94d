import type {
  AnalyticsFunnel,
  AnalyticsPeriodQuery,
  TimeseriesItem,
  TimeseriesMetric,
  TimeseriesQuery,
  TrafficSources,
} from "../types.js";
import { unwrap, type CallOptions, type Context } from "./context.js";

/**
 * Analytics computed from the events your site and CRM send (preview `event-intake`: switched on per
 * tenant; for other tenants every method answers ApiError `not_found`). Scope `analytics:read`. Periods
 * default to the 30 days ending yesterday (UTC); `to` is trimmed to the last full day. Money values
 * (`revenue`) are decimal strings in the answer's `currency`.
 */
export function analyticsResource(ctx: Context) {
  return {
    /**
     * `GET /analytics/timeseries`: one TimeseriesItem per metric, in the order asked (one request for all):
     * `series` a point a day or a week (`granularity: "week"`, dated Mondays), `comparison` with the period
     * before, `summary`. Metrics intake cannot feed (impressions, clicks, ctr, position, bounce_rate,
     * bot_hits) come back `no_source` with a `reason`.
     * @throws ApiError `validation_failed` (an unknown metric, `from` after `to`), `not_found` (no preview)
     */
    timeseries: async (
      metrics: TimeseriesMetric | readonly TimeseriesMetric[],
      query: Omit<TimeseriesQuery, "metric"> = {},
      o?: CallOptions,
    ): Promise<TimeseriesItem[]> => {
      const list = typeof metrics === "string" ? [metrics] : [...metrics];
      const r = await unwrap(
        ctx.raw.GET("/analytics/timeseries", {
          params: { query: { ...query, metric: list.join(",") } },
          signal: o?.signal,
        }),
      );
      return "items" in r.data ? r.data.items : [r.data];
    },
    /**
     * `GET /analytics/traffic-sources`: `{data, data_as_of}`, sources with more sessions first;
     * `include: "series"` adds each source's daily sessions.
     */
    trafficSources: (
      query: AnalyticsPeriodQuery & { include?: "series" } = {},
      o?: CallOptions,
    ): Promise<TrafficSources> =>
      unwrap(ctx.raw.GET("/analytics/traffic-sources", { params: { query }, signal: o?.signal })),
    /**
     * `GET /analytics/funnel`: `{data, data_as_of}`: steps impressions → … → revenue (those without a source
     * `no_source`), splits by channel and search engine, and whether CRM data is there.
     */
    funnel: (query: AnalyticsPeriodQuery = {}, o?: CallOptions): Promise<AnalyticsFunnel> =>
      unwrap(ctx.raw.GET("/analytics/funnel", { params: { query }, signal: o?.signal })),
  };
}
