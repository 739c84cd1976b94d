import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { analyticsDaily } from "@/db/schema";
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

/** Every UTC day from `from` to `to` inclusive, YYYY-MM-DD. */
export function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = Date.parse(`${from}T00:00:00Z`); d <= Date.parse(`${to}T00:00:00Z`); d += DAY_MS)
    out.push(new Date(d).toISOString().slice(0, 10));
  return out;
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

/** One traffic source's totals over a period (spec TrafficSourceRow without `series`). */
export interface SourceTotals {
  source: string;
  kind: string;
  sessions: number;
  visitors: number;
  leads: number;
}

/**
 * Totals by traffic source for the owner's tenant and mode from `from` to `to` (inclusive), from the daily
 * rollups; more sessions first, then by source name. Sources without any row in the period are absent.
 */
export async function sourceTotals(db: Db, owner: Owner, from: string, to: string): Promise<SourceTotals[]> {
  const rows = rowsOf<{ source: string; kind: string; sessions: string; visitors: string; leads: string }>(
    await db.execute(sql`
      select ${analyticsDaily.source} as source, min(${analyticsDaily.kind}) as kind,
             sum(${analyticsDaily.sessions})::text as sessions, sum(${analyticsDaily.visitors})::text as visitors,
             sum(${analyticsDaily.leads})::text as leads
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
    }))
    .sort((a, b) => b.sessions - a.sessions || a.source.localeCompare(b.source));
}
