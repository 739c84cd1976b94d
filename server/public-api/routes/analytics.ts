import {
  FunnelQuery,
  FunnelResponseSchema,
  TimeseriesQuery,
  TimeseriesResponseSchema,
  TrafficSourcesQuery,
  TrafficSourcesResponseSchema,
} from "@/server/schemas/analytics";
import { funnel } from "@/server/services/analytics/funnel";
import { timeseries } from "@/server/services/analytics/timeseries";
import { trafficSources } from "@/server/services/analytics/traffic-sources";
import type { AnyRoute } from "../define-route";
import { defineRoute, ok } from "../define-route";

// Analytics reads (issue 74 item 3; spec "Analytics shapes", scope `analytics:read`), released to tenants
// with the `event-intake` preview (server/schemas/previews.ts); every other caller gets the Planned 404.
// They read the daily rollups that the rollup job keeps from the events of `POST /intake/events`.

const PREVIEW = "event-intake" as const;

const PERIOD_NOTE =
  "The period is `from`–`to` (default: the 30 days ending yesterday, UTC); `to` is trimmed to the last full day (yesterday). At most 366 days. Read from daily rollups kept up to date within seconds of an event's intake; `data_as_of.intake` is the last day they are complete through (absent while no event was received).";

/** `GET /analytics/timeseries`. */
export const getAnalyticsTimeseriesRoute = defineRoute({
  operationId: "getAnalyticsTimeseries",
  summary: "Read time series of analytics metrics (preview event-intake)",
  description: `One metric answers \`data\` as its TimeseriesItem; several (comma-separated) answer \`data.items\` in request order. \`series\` has a point a day, or a week (\`granularity=week\`, dated the week's Monday), days without data being zero; \`agg=avg\` gives means a day instead of sums. \`comparison\` sets the period against the one of the same length before it (\`delta_pct\` null when that was zero); \`summary\` gives the total, the latest point and the days with data. Metrics that intake cannot feed (impressions, clicks, ctr, position: no search console; bounce_rate; bot_hits) are \`no_source\` with a \`reason\`. \`revenue\` is a decimal amount in the item's \`currency\`. ${PERIOD_NOTE}`,
  method: "GET",
  path: "/analytics/timeseries",
  scope: "analytics:read",
  rate: "read",
  preview: PREVIEW,
  query: TimeseriesQuery,
  responses: { 200: TimeseriesResponseSchema },
  handler: async ({ db, actor, query }) => ok(await timeseries(db, actor, query)),
});

/** `GET /analytics/traffic-sources`. */
export const getAnalyticsTrafficSourcesRoute = defineRoute({
  operationId: "getAnalyticsTrafficSources",
  summary: "Read traffic sources (preview event-intake)",
  description: `Sessions, visitors and leads by traffic source (search engines, AI assistants such as chatgpt and perplexity, social, ads, direct), more sessions first; \`include=series\` adds each source's daily sessions. A visitor counts once a day, under the source of their first visit that day. ${PERIOD_NOTE}`,
  method: "GET",
  path: "/analytics/traffic-sources",
  scope: "analytics:read",
  rate: "read",
  preview: PREVIEW,
  query: TrafficSourcesQuery,
  responses: { 200: TrafficSourcesResponseSchema },
  handler: async ({ db, actor, query }) => ok(await trafficSources(db, actor, query)),
});

/** `GET /analytics/funnel`. */
export const getAnalyticsFunnelRoute = defineRoute({
  operationId: "getAnalyticsFunnel",
  summary: "Read the funnel (preview event-intake)",
  description: `Steps impressions → clicks → sessions → leads → deals_created → deals_won → revenue against the previous period of the same length. Impressions and clicks need a search console and deals_created a CRM's deal stages: they are \`no_source\` with a \`reason\`. \`by_channel\` (by traffic kind) and \`search_by_engine\` (google, yandex, bing) split the period's totals; \`by_product\` is empty (intake events name no product). ${PERIOD_NOTE}`,
  method: "GET",
  path: "/analytics/funnel",
  scope: "analytics:read",
  rate: "read",
  preview: PREVIEW,
  query: FunnelQuery,
  responses: { 200: FunnelResponseSchema },
  handler: async ({ db, actor, query }) => ok(await funnel(db, actor, query)),
});

/** Analytics reads of the `event-intake` preview. */
export const ANALYTICS_ROUTES: AnyRoute[] = [
  getAnalyticsTimeseriesRoute,
  getAnalyticsTrafficSourcesRoute,
  getAnalyticsFunnelRoute,
];
