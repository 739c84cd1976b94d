import { z } from "zod";

// Analytics reads of the `event-intake` preview (issue 74 item 3; spec "Analytics shapes"). The spec names
// the schemas' fields; their paths and parameters are this issue's. Money (`revenue`) is a decimal string
// with the item's `currency` (spec "Money": an amount is a decimal string, never a float; the currency is
// the cell's), counts are numbers.

/** TimeseriesItem `metric` values (spec "Analytics shapes"). */
export const TIMESERIES_METRICS = [
  "sessions",
  "pageviews",
  "visitors",
  "bounce_rate",
  "impressions",
  "clicks",
  "ctr",
  "position",
  "ai_referrals",
  "bot_hits",
  "leads",
  "deals_won",
  "revenue",
] as const;
export type TimeseriesMetric = (typeof TIMESERIES_METRICS)[number];

/** Availability of a series or a funnel step. */
export const ANALYTICS_AVAILABILITY = ["ok", "no_data", "no_source"] as const;
/** TrafficSourceRow `source` values. */
export const TRAFFIC_SOURCES = [
  "google",
  "yandex",
  "bing",
  "chatgpt",
  "perplexity",
  "ai_other",
  "social",
  "ads",
  "direct",
  "other",
] as const;
/** TrafficSourceRow `kind` values. */
export const TRAFFIC_KINDS = ["search", "ai_assistant", "social", "ads", "direct", "other"] as const;
/** FunnelStep `key` values, in the funnel's order. */
export const FUNNEL_STEP_KEYS = [
  "impressions",
  "clicks",
  "sessions",
  "leads",
  "deals_created",
  "deals_won",
  "revenue",
] as const;
/** Search engines (TimeseriesItem `engine`, FunnelResponse `search_by_engine`). */
export const SEARCH_ENGINES = ["google", "yandex", "bing"] as const;

const Day = z.iso.date();
/** A count (a number; an average may have two decimals) or, for money, a decimal amount such as "12.34". */
const Value = z.union([z.number(), z.string().regex(/^-?\d+\.\d{2}$/)]);
const Currency = z
  .string()
  .length(3)
  .nullable()
  .meta({ description: "ISO 4217 code of money values (the cell's: RUB, GBP, IDR); null for counts" });

/** Spec `data_as_of`: source → the date YYYY-MM-DD through which its data is complete; a source without data is absent. */
export const DataAsOfSchema = z
  .record(z.string(), Day)
  .meta({ description: "source → date YYYY-MM-DD through which its data is complete (`intake`)" });

/** One point of a series: the day (the Monday of a weekly step) and its value. */
export const SeriesPointSchema = z.object({ date: Day, value: Value }).meta({ id: "SeriesPoint" });

/** Spec TimeseriesItem. */
export const TimeseriesItemSchema = z
  .object({
    metric: z.enum(TIMESERIES_METRICS),
    from: Day,
    to: Day,
    granularity: z.enum(["day", "week"]),
    agg: z.enum(["sum", "avg"]),
    engine: z.enum(SEARCH_ENGINES).nullable(),
    availability: z.enum(ANALYTICS_AVAILABILITY),
    reason: z.string().nullable(),
    series: z.array(SeriesPointSchema).meta({ description: "days without data are zero; empty when no_source" }),
    comparison: z.object({
      current: Value.nullable(),
      prev: Value.nullable().meta({ description: "the period of the same length just before `from`" }),
      delta_pct: z.number().nullable().meta({ description: "null when prev is 0" }),
      data_through: Day.nullable(),
    }),
    summary: z.object({ total: Value.nullable(), latest: Value.nullable(), non_zero_days: z.number().int() }),
    cluster_applied: z.boolean(),
    data_as_of: DataAsOfSchema,
    currency: Currency,
  })
  .meta({ id: "TimeseriesItem" });
export type TimeseriesItem = z.infer<typeof TimeseriesItemSchema>;

/** `GET /analytics/timeseries`: one series for one metric, `items` in request order for several. */
export const TimeseriesResponseSchema = z
  .object({ data: z.union([TimeseriesItemSchema, z.object({ items: z.array(TimeseriesItemSchema) })]) })
  .meta({ id: "TimeseriesResponse" });
export type TimeseriesResponse = z.infer<typeof TimeseriesResponseSchema>;

/** Spec TrafficSourceRow. */
export const TrafficSourceRowSchema = z
  .object({
    source: z.enum(TRAFFIC_SOURCES),
    kind: z.enum(TRAFFIC_KINDS),
    sessions: z.number().int(),
    visitors: z.number().int().nullable(),
    leads: z.number().int(),
    series: z.array(SeriesPointSchema).optional().meta({ description: "daily sessions; only with include=series" }),
  })
  .meta({ id: "TrafficSourceRow" });
export type TrafficSourceRow = z.infer<typeof TrafficSourceRowSchema>;

/** `GET /analytics/traffic-sources`: rows with more sessions first, and `data_as_of`. */
export const TrafficSourcesResponseSchema = z
  .object({ data: z.array(TrafficSourceRowSchema), data_as_of: DataAsOfSchema })
  .meta({ id: "TrafficSourcesResponse" });
export type TrafficSourcesResponse = z.infer<typeof TrafficSourcesResponseSchema>;

/** Spec FunnelStep, with the `reason` of a step that is not `ok` and the `currency` of the money step. */
export const FunnelStepSchema = z
  .object({
    key: z.enum(FUNNEL_STEP_KEYS),
    availability: z.enum(ANALYTICS_AVAILABILITY),
    reason: z.string().nullable(),
    sources: z.array(z.string()).meta({ description: "data sources that feed the step (`intake`)" }),
    unit: z.enum(["count", "money"]),
    current: Value.nullable(),
    prev: Value.nullable(),
    delta_pct: z.number().nullable(),
    data_through: Day.nullable(),
    currency: Currency,
  })
  .meta({ id: "FunnelStep" });
export type FunnelStep = z.infer<typeof FunnelStepSchema>;

/** Totals of one channel (`by_channel`: a traffic kind) or search engine (`search_by_engine`) over the period. */
const ChannelTotals = {
  sessions: z.number().int(),
  leads: z.number().int(),
  deals_won: z.number().int(),
  revenue: z.string().regex(/^-?\d+\.\d{2}$/),
};

/** Spec FunnelResponse `data`. */
export const FunnelSchema = z
  .object({
    engine: z.enum(["yandex", "google", "both"]),
    from: Day,
    to: Day,
    steps: z.array(FunnelStepSchema),
    by_channel: z.array(z.object({ kind: z.enum(TRAFFIC_KINDS), ...ChannelTotals })),
    search_by_engine: z.array(z.object({ engine: z.enum(SEARCH_ENGINES), ...ChannelTotals })),
    by_product: z.array(z.looseObject({})).meta({
      description:
        "empty: intake events name no product (an order's lines are not sent), so revenue by product is not known",
    }),
    crm: z.object({ availability: z.enum(["ok", "no_data"]), reason: z.string().nullable() }),
    currency: z.string().length(3).meta({ description: "ISO 4217 code of `revenue` values (the cell's)" }),
  })
  .meta({ id: "Funnel" });
export type Funnel = z.infer<typeof FunnelSchema>;

/** `GET /analytics/funnel`. */
export const FunnelResponseSchema = z
  .object({ data: FunnelSchema, data_as_of: DataAsOfSchema })
  .meta({ id: "FunnelResponse" });
export type FunnelResponse = z.infer<typeof FunnelResponseSchema>;

const dateParam = (field: string) => z.iso.date({ message: `${field} must be a real date YYYY-MM-DD` }).optional();
const period = {
  from: dateParam("from").meta({ description: "first day, inclusive (default: 30 days ending `to`)" }),
  to: dateParam("to").meta({
    description: "last day, inclusive; not later than the last full day (yesterday, UTC): a later value is trimmed",
  }),
};

/** Query of `GET /analytics/timeseries`. `metric` is parsed to the list of metrics in request order, without repeats. */
export const TimeseriesQuery = z.strictObject({
  metric: z
    .string({ message: `metric is required: one or several (comma-separated) of ${TIMESERIES_METRICS.join(", ")}` })
    .refine((v) => v.split(",").every((m) => (TIMESERIES_METRICS as readonly string[]).includes(m.trim())), {
      message: `must be one or several (comma-separated) of ${TIMESERIES_METRICS.join(", ")}`,
      params: { code: "invalid_value" },
    })
    .transform((v) => [...new Set(v.split(",").map((m) => m.trim() as TimeseriesMetric))])
    .meta({ description: "one metric, or several comma-separated (then `data.items` in this order)" }),
  ...period,
  granularity: z.enum(["day", "week"]).default("day").meta({ description: "week: a point a week, dated its Monday" }),
  agg: z.enum(["sum", "avg"]).default("sum").meta({ description: "avg: the mean a day" }),
});
export type TimeseriesQueryInput = z.infer<typeof TimeseriesQuery>;

/** Query of `GET /analytics/traffic-sources`. */
export const TrafficSourcesQuery = z.strictObject({
  ...period,
  include: z.enum(["series"]).optional().meta({ description: "`series`: each row's daily sessions" }),
});

/** Query of `GET /analytics/funnel`. */
export const FunnelQuery = z.strictObject(period);
