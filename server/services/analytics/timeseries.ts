import type { Db } from "@/db/client";
import { CELL_CURRENCY, formatMinor } from "@/server/lib/money";
import type { TimeseriesItem, TimeseriesMetric, TimeseriesResponse } from "@/server/schemas/analytics";
import type { IntegrationActor } from "../actor";
import { dataThrough, type IntakeStatus } from "./data-as-of";
import { ROLLUP_METRICS, type DailyPoint, type RollupMetric } from "./daily-series";
import { readTimeseriesDays } from "./timeseries-read";
import { analyticsPeriod, daysIn, weekStart } from "./period";

/**
 * Metrics intake cannot feed (spec TimeseriesItem `metric`), with why: their series answer `no_source`.
 * Search metrics need a search console, `bounce_rate` page exits, `bot_hits` server logs.
 */
export const NO_SOURCE_REASONS: Record<Exclude<TimeseriesMetric, RollupMetric>, string> = {
  impressions: "no search console connected",
  clicks: "no search console connected",
  ctr: "no search console connected",
  position: "no search console connected",
  bounce_rate: "intake receives page views, not page exits: a bounce rate cannot be computed from them",
  bot_hits: "bot hits are read from server logs, which are not connected (intake receives visitors' events)",
};

const isRollupMetric = (m: TimeseriesMetric): m is RollupMetric => (ROLLUP_METRICS as readonly string[]).includes(m);

/** The query of {@link timeseries}, as the route parsed it. */
export interface TimeseriesInput {
  metric: TimeseriesMetric[];
  from?: string;
  to?: string;
  granularity: "day" | "week";
  agg: "sum" | "avg";
}

/** Sum, or mean a day, of the values; 0 for none. */
export function aggregate(values: number[], agg: "sum" | "avg"): number {
  const sum = values.reduce((a, b) => a + b, 0);
  return agg === "sum" || values.length === 0 ? sum : sum / values.length;
}

/** Percentage change from `prev` to `current`, one decimal; null when `prev` is 0. */
export function deltaPct(current: number, prev: number): number | null {
  return prev === 0 ? null : Math.round(((current - prev) / prev) * 1000) / 10;
}

/** A value on the wire: money (minor units) as a decimal string of whole kopecks, a count rounded to 2 decimals. */
export function wireValue(v: number, money: boolean): number | string {
  return money ? formatMinor(BigInt(Math.round(v))) : Math.round(v * 100) / 100;
}

/** Points of a series: one a day, or one a week (dated its Monday) holding the sum or mean of its days in the period. */
function buckets(points: DailyPoint[], granularity: "day" | "week", agg: "sum" | "avg"): DailyPoint[] {
  if (granularity === "day") return points;
  const weeks = new Map<string, number[]>();
  for (const p of points) {
    const w = weekStart(p.date);
    const list = weeks.get(w);
    if (list) list.push(p.value);
    else weeks.set(w, [p.value]);
  }
  return [...weeks].map(([date, values]) => ({ date, value: aggregate(values, agg) }));
}

/**
 * One TimeseriesItem (spec "Analytics shapes") of `metric` over the period: `series` by the granularity,
 * `comparison` of the period (sum or mean a day) with the one before, `summary` (total as `comparison.current`,
 * the last point's value, days with a non-zero value).
 */
function itemOf(
  metric: TimeseriesMetric,
  q: TimeseriesInput,
  p: { from: string; to: string },
  days: { current: DailyPoint[]; prev: number } | null,
  status: IntakeStatus,
  currency: string,
): TimeseriesItem {
  const base = {
    metric,
    from: p.from,
    to: p.to,
    granularity: q.granularity,
    agg: q.agg,
    engine: null,
    cluster_applied: false,
    data_as_of: status.dataAsOf,
  };
  if (!days || !isRollupMetric(metric))
    return {
      ...base,
      availability: "no_source",
      reason: isRollupMetric(metric) ? null : NO_SOURCE_REASONS[metric],
      series: [],
      comparison: { current: null, prev: null, delta_pct: null, data_through: null },
      summary: { total: null, latest: null, non_zero_days: 0 },
      currency: null,
    };
  const money = metric === "revenue";
  const current = aggregate(
    days.current.map((d) => d.value),
    q.agg,
  );
  const { prev } = days;
  const series = buckets(days.current, q.granularity, q.agg).map((b) => ({
    date: b.date,
    value: wireValue(b.value, money),
  }));
  return {
    ...base,
    availability: status.inPeriod ? "ok" : "no_data",
    reason: status.inPeriod ? null : "no events were received for this period",
    series,
    comparison: {
      current: wireValue(current, money),
      prev: wireValue(prev, money),
      delta_pct: deltaPct(current, prev),
      data_through: dataThrough(status, p.to),
    },
    summary: {
      total: wireValue(current, money),
      latest: series.at(-1)?.value ?? null,
      non_zero_days: days.current.filter((d) => d.value !== 0).length,
    },
    currency: money ? currency : null,
  };
}

/**
 * `GET /analytics/timeseries` (issue 74 item 3): the requested metrics of the actor's tenant and mode over
 * the period (default the 30 days ending yesterday; `to` trimmed to the last full day), read from the daily
 * rollups only: one prepared statement reads intake's status and the period with the one before it. One metric answers `{data: item}`,
 * several `{data: {items}}` in request order. Metrics intake cannot feed are `no_source` with a reason.
 * @throws ApiError 422 on `/from` (after `to`, or a period over 366 days)
 */
export async function timeseries(db: Db, actor: IntegrationActor, q: TimeseriesInput): Promise<TimeseriesResponse> {
  const p = analyticsPeriod(q);
  const read = await readTimeseriesDays(db, actor, p);
  const currency = CELL_CURRENCY[actor.cell];
  const prevDays = daysIn(p.prevFrom, p.prevTo);
  const items = q.metric.map((m) => {
    const days = isRollupMetric(m)
      ? { current: read.current(m), prev: prevDays === 0 ? 0 : read.prevSum(m) / (q.agg === "avg" ? prevDays : 1) }
      : null;
    return itemOf(m, q, p, days, read.status, currency);
  });
  return { data: items.length === 1 ? items[0]! : { items } };
}
