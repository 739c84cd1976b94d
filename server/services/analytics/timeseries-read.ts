import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { preparedRows } from "@/db/prepared";
import type { Owner } from "../tenant-scope";
import { statusOf, type IntakeStatus } from "./data-as-of";
import { daysBetween, ROLLUP_METRICS, type DailyPoint, type RollupMetric } from "./daily-series";

/** The read's one row: the status, the period's days per metric (`s0`..`s6`) and the previous sums (`p0`..`p6`). */
interface Row {
  any: boolean | null;
  at: Date | string | null;
  /** Days of the period with rollup rows. */
  n: number | string;
  /** Those days' offsets from `from` (0 = `from`), comma-separated, in the order of `s0`..`s6`'s values. */
  o: string | null;
  s0: string | null;
  s1: string | null;
  s2: string | null;
  s3: string | null;
  s4: string | null;
  s5: string | null;
  s6: string | null;
  p0: string | null;
  p1: string | null;
  p2: string | null;
  p3: string | null;
  p4: string | null;
  p5: string | null;
  p6: string | null;
}

/** What {@link readTimeseriesDays} read: the status, the period's days and the previous period's totals. */
export interface TimeseriesDays {
  status: IntakeStatus;
  /** Metric → every day of the period `from`..`to` (zeros where no rollup row), oldest first; built when first asked. */
  current(metric: RollupMetric): DailyPoint[];
  /** Metric → its sum over the previous period `prevFrom`..`prevTo` (revenue in minor units). */
  prevSum(metric: RollupMetric): number;
}

const SERIES = ["s0", "s1", "s2", "s3", "s4", "s5", "s6"] as const;
const PREV = ["p0", "p1", "p2", "p3", "p4", "p5", "p6"] as const;

/**
 * The timeseries read (issue 74 items 3 and 5) as one prepared statement returning one row: intake's
 * status for the owner (rollup rows at all, the rollup job's last run, the period's days with rows), every
 * rollup metric's values on those days as one comma-separated text with the days' offsets beside them
 * (days without rows are 0, filled here), and the previous period's sums of every metric.
 *
 * Why one statement and one row: the read made three statements (presence, the job's state row, the
 * series), each unnamed with parameters, which postgres.js sends as Parse/Describe, then Bind/Execute: six
 * round trips for a read the bench asks ≤ 50 ms at p99 of. Named and with a fixed text (every metric,
 * whichever were asked: seven sums a day are cheaper than a statement per metric set), it is one
 * Bind/Execute write once the connection has parsed it. Then a row a day (91 rows of 10 columns) made
 * postgres.js's row parsing about a sixth of the read's CPU in-process; the days now come as one text a
 * metric, split only for the metrics asked.
 * @param owner the tenant and mode
 * @param p the period `from`..`to` and the previous one `prevFrom`..`prevTo` (YYYY-MM-DD, UTC, inclusive)
 * @returns the status of the period and the metrics' days and previous totals (`revenue` in minor units)
 */
export async function readTimeseriesDays(
  db: Db,
  owner: Owner,
  p: { prevFrom: string; prevTo: string; from: string; to: string },
): Promise<TimeseriesDays> {
  const [row] = await preparedRows<Row>(
    db,
    "analytics:timeseries-days",
    () => sql`
      with cur as (
        select day, ${SUMS}
        from analytics_daily
        where tenant_id = ${sql.placeholder("tenant")}::uuid and livemode = ${sql.placeholder("livemode")}::boolean
          and day between ${sql.placeholder("from")}::date and ${sql.placeholder("to")}::date
        group by day
      ), series as (
        select count(*)::int as n, string_agg((day - ${sql.placeholder("from")}::date)::text, ',') as o, ${SERIES_TEXTS}
        from cur
      ), prev as (
        select ${SUMS}
        from analytics_daily
        where tenant_id = ${sql.placeholder("tenant")}::uuid and livemode = ${sql.placeholder("livemode")}::boolean
          and day between ${sql.placeholder("prevFrom")}::date and ${sql.placeholder("prevTo")}::date
      )
      select exists (select 1 from analytics_daily
                     where tenant_id = ${sql.placeholder("tenant")}::uuid
                       and livemode = ${sql.placeholder("livemode")}::boolean) as any,
             (select updated_at from intake_rollup_state where id = 1) as at,
             series.*, ${PREV_TEXTS}
      from series, prev`,
  ).execute({ tenant: owner.tenantId, livemode: owner.livemode ?? true, ...p });
  const status = statusOf({ any: !!row?.any, inPeriod: Number(row?.n ?? 0) > 0 }, row?.at ? new Date(row.at) : null);
  const days = daysBetween(p.from, p.to);
  // The k-th value of every `s` text and of `o` come from the same day: the aggregates of one query level
  // read the same rows in the same order (none has an ORDER BY of its own, which would sort its input
  // apart). `o` is each such day's offset from `from`.
  let offsets: number[] | null = null;
  const index = (m: RollupMetric) => ROLLUP_METRICS.indexOf(m);
  return {
    status,
    current: (m) => {
      const values = new Array<number>(days.length).fill(0);
      const text = row?.[SERIES[index(m)]!];
      if (text && row?.o) {
        offsets ??= row.o.split(",").map(Number);
        const parts = text.split(",");
        for (let k = 0; k < parts.length; k++) values[offsets[k]!] = Number(parts[k]);
      }
      return days.map((date, k) => ({ date, value: values[k]! }));
    },
    prevSum: (m) => Number(row?.[PREV[index(m)]!] ?? 0),
  };
}

/** The seven sums of a group of rollup rows (bigint), in ROLLUP_METRICS' order, `m0`..`m6`. */
const SUMS = sql.raw(`sum(sessions) as m0, sum(pageviews) as m1, sum(visitors) as m2,
             sum(sessions) filter (where kind = 'ai_assistant') as m3,
             sum(leads) as m4, sum(deals_won) as m5, sum(revenue_minor) as m6`);

/** Each metric's values on the period's days with rollup rows as one text, `s0`..`s6`, in `o`'s order. */
const SERIES_TEXTS = sql.raw(SERIES.map((s, i) => `string_agg(coalesce(m${i}, 0)::text, ',') as ${s}`).join(", "));

/** The previous period's sums as text (bigint sums), `p0`..`p6`. */
const PREV_TEXTS = sql.raw(PREV.map((p, i) => `prev.m${i}::text as ${p}`).join(", "));
