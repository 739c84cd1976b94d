import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { analyticsDaily, analyticsDailyPages } from "@/db/schema";
import { ownedBy, type Owner } from "../tenant-scope";

const DAY_MS = 86_400_000;

/** Metrics the daily rollups hold (issue 74; spec TimeseriesItem `metric` values that intake feeds). */
export const ROLLUP_METRICS = [
  "sessions",
  "pageviews",
  "visitors",
  "ai_referrals",
  "leads",
  "deals_won",
  "revenue",
] as const;
export type RollupMetric = (typeof ROLLUP_METRICS)[number];

/** One day of one metric: `date` YYYY-MM-DD (UTC), `value` a count, or minor units (kopecks) for `revenue`. */
export interface DailyPoint {
  date: string;
  value: number;
}

/** The last period asked of {@link daysBetween} and its days (frozen: shared by every caller). */
let lastDays: { from: string; to: string; days: readonly string[] } | null = null;

/**
 * Every UTC day from `from` to `to` inclusive, YYYY-MM-DD. The last period's list is kept: the reads of a
 * day ask the same period over and over, and formatting 90 dates was about a tenth of a timeseries read's CPU.
 */
export function daysBetween(from: string, to: string): readonly string[] {
  if (lastDays && lastDays.from === from && lastDays.to === to) return lastDays.days;
  const out: string[] = [];
  for (let d = Date.parse(`${from}T00:00:00Z`); d <= Date.parse(`${to}T00:00:00Z`); d += DAY_MS)
    out.push(new Date(d).toISOString().slice(0, 10));
  lastDays = { from, to, days: Object.freeze(out) };
  return lastDays.days;
}

/** The SQL sum of one metric over `analytics_daily` rows. */
const metricSum = (m: RollupMetric) =>
  ({
    sessions: sql`sum(${analyticsDaily.sessions})`,
    pageviews: sql`sum(${analyticsDaily.pageviews})`,
    visitors: sql`sum(${analyticsDaily.visitors})`,
    ai_referrals: sql`sum(${analyticsDaily.sessions}) filter (where ${analyticsDaily.kind} = 'ai_assistant')`,
    leads: sql`sum(${analyticsDaily.leads})`,
    deals_won: sql`sum(${analyticsDaily.dealsWon})`,
    revenue: sql`sum(${analyticsDaily.revenueMinor})`,
  })[m];

/**
 * Daily values of `metrics` for the owner's tenant and mode from `from` to `to` (YYYY-MM-DD, inclusive),
 * read from the daily rollups only (never raw events; issue 74 item 4). Every day is present, days
 * without data are 0. `ai_referrals` = sessions from AI assistants; `revenue` in minor units (kopecks).
 * One grouped query over the period's rollup rows (primary key range: tenant, mode, day).
 * @returns metric → points, oldest first.
 */
export async function dailySeries(
  db: Db,
  owner: Owner,
  metrics: readonly RollupMetric[],
  from: string,
  to: string,
): Promise<Record<RollupMetric, DailyPoint[]>> {
  const wanted = [...new Set(metrics)];
  const cols = wanted.map((m, i) => sql`coalesce(${metricSum(m)}, 0)::text as ${sql.raw(`m${i}`)}`);
  const rows = rowsOf<Record<string, string>>(
    await db.execute(sql`
      select ${analyticsDaily.day}::text as day, ${sql.join(cols, sql`, `)}
      from ${analyticsDaily}
      where ${ownedBy(analyticsDaily, owner)} and ${analyticsDaily.day} between ${from}::date and ${to}::date
      group by 1`),
  );
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const days = daysBetween(from, to);
  const out = {} as Record<RollupMetric, DailyPoint[]>;
  wanted.forEach((m, i) => {
    out[m] = days.map((date) => ({ date, value: Number(byDay.get(date)?.[`m${i}`] ?? 0) }));
  });
  return out;
}

/**
 * One traffic source's totals over a period (spec TrafficSourceRow without `series`), with the deals won
 * from it and their revenue in minor units (kopecks), for the funnel's `by_channel`.
 */
export interface SourceTotals {
  source: string;
  kind: string;
  sessions: number;
  visitors: number;
  leads: number;
  dealsWon: number;
  revenueMinor: number;
}

/**
 * Totals by traffic source for the owner's tenant and mode from `from` to `to` (inclusive), from the daily
 * rollups; more sessions first, then by source name. Sources without any row in the period are absent.
 */
export async function sourceTotals(db: Db, owner: Owner, from: string, to: string): Promise<SourceTotals[]> {
  const rows = rowsOf<{
    source: string;
    kind: string;
    sessions: string;
    visitors: string;
    leads: string;
    deals_won: string;
    revenue_minor: string;
  }>(
    await db.execute(sql`
      select ${analyticsDaily.source} as source, min(${analyticsDaily.kind}) as kind,
             sum(${analyticsDaily.sessions})::text as sessions, sum(${analyticsDaily.visitors})::text as visitors,
             sum(${analyticsDaily.leads})::text as leads, sum(${analyticsDaily.dealsWon})::text as deals_won,
             sum(${analyticsDaily.revenueMinor})::text as revenue_minor
      from ${analyticsDaily}
      where ${ownedBy(analyticsDaily, owner)} and ${analyticsDaily.day} between ${from}::date and ${to}::date
      group by 1`),
  );
  return rows
    .map((r) => ({
      source: r.source,
      kind: r.kind,
      sessions: Number(r.sessions),
      visitors: Number(r.visitors),
      leads: Number(r.leads),
      dealsWon: Number(r.deals_won),
      revenueMinor: Number(r.revenue_minor),
    }))
    .sort((a, b) => b.sessions - a.sessions || a.source.localeCompare(b.source));
}

/**
 * Daily sessions of each traffic source for the owner's tenant and mode from `from` to `to` (inclusive), from
 * the daily rollups: source → every day of the period (zeros where the source had none), oldest first.
 * Sources without any row in the period are absent (`include=series` of `GET /analytics/traffic-sources`).
 */
export async function sourceSessionSeries(
  db: Db,
  owner: Owner,
  from: string,
  to: string,
): Promise<Map<string, DailyPoint[]>> {
  const rows = rowsOf<{ source: string; day: string; n: string }>(
    await db.execute(sql`
      select ${analyticsDaily.source} as source, ${analyticsDaily.day}::text as day,
             sum(${analyticsDaily.sessions})::text as n
      from ${analyticsDaily}
      where ${ownedBy(analyticsDaily, owner)} and ${analyticsDaily.day} between ${from}::date and ${to}::date
      group by 1, 2`),
  );
  const days = daysBetween(from, to);
  const bySource = new Map<string, Map<string, number>>();
  for (const r of rows) {
    let m = bySource.get(r.source);
    if (!m) bySource.set(r.source, (m = new Map()));
    m.set(r.day, Number(r.n));
  }
  return new Map([...bySource].map(([source, m]) => [source, days.map((date) => ({ date, value: m.get(date) ?? 0 }))]));
}

/** Page views of one page over a period, with its latest title (the dashboard's `popular_pages`). */
export interface PageTotals {
  path: string;
  title: string | null;
  pageviews: number;
}

/**
 * The owner's most viewed pages from `from` to `to` (inclusive), from the daily page rollups: at most `limit`,
 * most views first (then by path); each with the title of its latest day that had one.
 */
export async function pageTotals(db: Db, owner: Owner, from: string, to: string, limit = 10): Promise<PageTotals[]> {
  const p = analyticsDailyPages;
  const rows = rowsOf<{ path: string; title: string | null; n: string }>(
    await db.execute(sql`
      select ${p.path} as path, (array_agg(${p.title} order by ${p.day} desc) filter (where ${p.title} is not null))[1] as title,
             sum(${p.pageviews})::text as n
      from ${p}
      where ${ownedBy(p, owner)} and ${p.day} between ${from}::date and ${to}::date
      group by 1 order by sum(${p.pageviews}) desc, 1 limit ${limit}`),
  );
  return rows.map((r) => ({ path: r.path, title: r.title, pageviews: Number(r.n) }));
}

/**
 * Whether the owner has rollup rows at all (`any`: intake has data, so `data_as_of` names it) and in the
 * period from `from` to `to` (`inPeriod`: else the reads answer `no_data`). One statement, two index probes.
 */
export async function rollupPresence(
  db: Db,
  owner: Owner,
  from: string,
  to: string,
): Promise<{ any: boolean; inPeriod: boolean }> {
  const d = analyticsDaily;
  const [r] = rowsOf<{ any: boolean; in_period: boolean }>(
    await db.execute(sql`
      select exists (select 1 from ${d} where ${ownedBy(d, owner)}) as any,
             exists (select 1 from ${d} where ${ownedBy(d, owner)}
                     and ${d.day} between ${from}::date and ${to}::date) as in_period`),
  );
  return { any: !!r?.any, inPeriod: !!r?.in_period };
}
