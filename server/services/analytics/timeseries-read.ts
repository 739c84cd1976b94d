import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { preparedRows } from "@/db/prepared";
import type { Owner } from "../tenant-scope";
import { statusOf, type IntakeStatus } from "./data-as-of";
import { daysBetween, ROLLUP_METRICS, type DailyPoint, type RollupMetric } from "./daily-series";

/** One row of the read: the day's sums as text (bigint sums), or the status row (`day` null). */
interface Row {
  day: string | null;
  any: boolean | null;
  at: Date | string | null;
  m0: string | null;
  m1: string | null;
  m2: string | null;
  m3: string | null;
  m4: string | null;
  m5: string | null;
  m6: string | null;
}

/** What {@link readTimeseriesDays} read: the status, the period's days and the previous period's totals. */
export interface TimeseriesDays {
  status: IntakeStatus;
  /** Metric → every day of the period `from`..`to` (zeros where no rollup row), oldest first; built when first asked. */
  current(metric: RollupMetric): DailyPoint[];
  /** Metric → its sum over the previous period `prevFrom`..`prevTo` (revenue in minor units). */
  prevSum(metric: RollupMetric): number;
}

const COLUMNS = ["m0", "m1", "m2", "m3", "m4", "m5", "m6"] as const;

/**
 * The timeseries read (issue 74 items 3 and 5) as one prepared statement: intake's status for the owner
 * (rollup rows at all, the rollup job's last run), the previous period's sums of every rollup metric (one
 * row), and the period's daily sums (a row a day that has rollup rows).
 *
 * Why one statement: the read made three (presence, the job's state row, the series), each an unnamed
 * statement with parameters, which postgres.js sends as Parse/Describe, then Bind/Execute: six round trips
 * for a read the bench asks ≤ 50 ms at p99 of. Named and with a fixed text (every metric summed, whichever
 * were asked: seven sums a row are cheaper than a statement per metric set), it is one Bind/Execute write
 * once the connection has parsed it. The previous period only feeds `comparison.prev`, a total, so it comes
 * back as one row, not a row a day.
 * @param owner the tenant and mode
 * @param p the period `from`..`to` and the previous one `prevFrom`..`prevTo` (YYYY-MM-DD, UTC, inclusive)
 * @returns the status of the period and the metrics' days and previous totals (`revenue` in minor units)
 */
export async function readTimeseriesDays(
  db: Db,
  owner: Owner,
  p: { prevFrom: string; prevTo: string; from: string; to: string },
): Promise<TimeseriesDays> {
  const rows = await preparedRows<Row>(
    db,
    "analytics:timeseries-days",
    () => sql`
      select null::text as day,
             exists (select 1 from analytics_daily
                     where tenant_id = ${sql.placeholder("tenant")}::uuid
                       and livemode = ${sql.placeholder("livemode")}::boolean) as any,
             (select updated_at from intake_rollup_state where id = 1) as at,
             ${SUMS}
      from analytics_daily
      where tenant_id = ${sql.placeholder("tenant")}::uuid and livemode = ${sql.placeholder("livemode")}::boolean
        and day between ${sql.placeholder("prevFrom")}::date and ${sql.placeholder("prevTo")}::date
      union all
      select day::text, null, null, ${SUMS}
      from analytics_daily
      where tenant_id = ${sql.placeholder("tenant")}::uuid and livemode = ${sql.placeholder("livemode")}::boolean
        and day between ${sql.placeholder("from")}::date and ${sql.placeholder("to")}::date
      group by day`,
  ).execute({ tenant: owner.tenantId, livemode: owner.livemode ?? true, ...p });
  let head: Row | undefined;
  const byDay = new Map<string, Row>();
  for (const r of rows) {
    if (r.day === null) head = r;
    else byDay.set(r.day, r);
  }
  const status = statusOf({ any: !!head?.any, inPeriod: byDay.size > 0 }, head?.at ? new Date(head.at) : null);
  const days = daysBetween(p.from, p.to);
  // ROLLUP_METRICS' order is the statement's column order (sessions, pageviews, visitors, ai_referrals,
  // leads, deals_won, revenue).
  const column = (m: RollupMetric) => COLUMNS[ROLLUP_METRICS.indexOf(m)]!;
  return {
    status,
    current: (m) => {
      const col = column(m);
      return days.map((date) => ({ date, value: Number(byDay.get(date)?.[col] ?? 0) }));
    },
    prevSum: (m) => Number(head?.[column(m)] ?? 0),
  };
}

/** The seven sums of a row, as text (bigint sums), in ROLLUP_METRICS' order. */
const SUMS = sql.raw(`sum(sessions)::text as m0, sum(pageviews)::text as m1, sum(visitors)::text as m2,
             (sum(sessions) filter (where kind = 'ai_assistant'))::text as m3,
             sum(leads)::text as m4, sum(deals_won)::text as m5, sum(revenue_minor)::text as m6`);
