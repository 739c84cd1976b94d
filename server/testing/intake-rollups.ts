import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { analyticsDaily, analyticsDailyPages, intakeEvents, intakeRollupState } from "@/db/schema";
import { rollupIntake } from "@/server/services/analytics/rollup";

/**
 * Analytics of accepted intake events in a form both sides can be compared in (issue 74 "rollups equal to a
 * recount from raw events"), keyed by `tenant|livemode|day|source` (`daily`), `tenant|livemode|day`
 * (`visitorsByDay`) and `tenant|livemode|day|path` (`pages`). Counts as numbers, `revenue_minor` as text.
 * Visitors are compared per day: the rollups count a visitor day once, under the source of the visitor's
 * earliest page view of the batch that first saw them, which a recount cannot know.
 */
export interface AnalyticsTotals {
  daily: Record<
    string,
    {
      kind: string;
      pageviews: number;
      sessions: number;
      leads: number;
      deals_won: number;
      revenue_minor: string;
      events: number;
    }
  >;
  visitorsByDay: Record<string, number>;
  pages: Record<string, number>;
}

type DailyRow = {
  k: string;
  kind: string;
  pageviews: number;
  sessions: number;
  leads: number;
  deals_won: number;
  revenue_minor: string;
  events: number;
};

const toDaily = (rows: DailyRow[]): AnalyticsTotals["daily"] =>
  Object.fromEntries(
    rows.map(({ k, ...r }) => [
      k,
      {
        kind: r.kind,
        pageviews: Number(r.pageviews),
        sessions: Number(r.sessions),
        leads: Number(r.leads),
        deals_won: Number(r.deals_won),
        revenue_minor: String(r.revenue_minor),
        events: Number(r.events),
      },
    ]),
  );
const toCounts = (rows: { k: string; n: number | string }[]) =>
  Object.fromEntries(rows.filter((r) => Number(r.n) > 0).map((r) => [r.k, Number(r.n)]));

/**
 * The analytics recounted from the raw events with plain GROUP BYs over `intake_events` (accepted rows),
 * by the definitions of server/services/analytics/rollup.ts. For tests only: it scans every raw row.
 */
export async function recountFromRaw(db: Db): Promise<AnalyticsTotals> {
  const e = intakeEvents;
  const day = sql`(coalesce(${e.occurredAt}, ${e.receivedAt}) at time zone 'UTC')::date`;
  const key = sql`${e.tenantId}::text || '|' || ${e.livemode}::text || '|' || ${day}::text`;
  const accepted = sql`${e.status} = 'accepted'`;
  const daily = rowsOf<DailyRow>(
    await db.execute(sql`
      select ${key} || '|' || coalesce(${e.source}, 'other') as k, min(coalesce(${e.kind}, 'other')) as kind,
             count(*) filter (where ${e.type} = 'page_view')::int as pageviews,
             count(*) filter (where ${e.type} = 'page_view' and ${e.sessionStart})::int as sessions,
             count(*) filter (where ${e.leadEffect} = 'lead_created')::int as leads,
             count(*) filter (where ${e.type} in ('purchase', 'conversion'))::int as deals_won,
             coalesce(sum(${e.valueMinor}) filter (where ${e.type} in ('purchase', 'conversion')), 0)::text as revenue_minor,
             count(*)::int as events
      from ${e} where ${accepted} group by 1`),
  );
  const visitors = rowsOf<{ k: string; n: number }>(
    await db.execute(sql`
      select ${key} as k, count(distinct ${e.visitorKey})::int as n
      from ${e} where ${accepted} and ${e.type} = 'page_view' group by 1`),
  );
  const pages = rowsOf<{ k: string; n: number }>(
    await db.execute(sql`
      select ${key} || '|' || ${e.pagePath} as k, count(*)::int as n
      from ${e} where ${accepted} and ${e.type} = 'page_view' and ${e.pagePath} is not null group by 1`),
  );
  return { daily: toDaily(daily), visitorsByDay: toCounts(visitors), pages: toCounts(pages) };
}

/** The same figures as the rollup tables hold them (`analytics_daily`, `analytics_daily_pages`). */
export async function readRollups(db: Db): Promise<AnalyticsTotals> {
  const d = analyticsDaily;
  const p = analyticsDailyPages;
  const key = (t: typeof d | typeof p) =>
    sql`${t.tenantId}::text || '|' || ${t.livemode}::text || '|' || ${t.day}::text`;
  const daily = rowsOf<DailyRow>(
    await db.execute(sql`
      select ${key(d)} || '|' || ${d.source} as k, ${d.kind} as kind, ${d.pageviews} as pageviews,
             ${d.sessions} as sessions, ${d.leads} as leads, ${d.dealsWon} as deals_won,
             ${d.revenueMinor}::text as revenue_minor, ${d.events} as events
      from ${d}`),
  );
  const visitors = rowsOf<{ k: string; n: number }>(
    await db.execute(sql`select ${key(d)} as k, sum(${d.visitors})::int as n from ${d} group by 1`),
  );
  const pages = rowsOf<{ k: string; n: number }>(
    await db.execute(sql`select ${key(p)} || '|' || ${p.path} as k, ${p.pageviews} as n from ${p}`),
  );
  return { daily: toDaily(daily), visitorsByDay: toCounts(visitors), pages: toCounts(pages) };
}

/** Whether some intake row still waits above the rollup watermark (sample rows, below it, never do). */
async function pending(db: Db): Promise<boolean> {
  const [r] = rowsOf<{ pending: boolean }>(
    await db.execute(sql`select exists (select 1 from ${intakeEvents} where ${intakeEvents.xid} >= (
      select ${intakeRollupState.xidWatermark} from ${intakeRollupState} where ${intakeRollupState.id} = 1)) as pending`),
  );
  return !!r?.pending;
}

/**
 * Waits until every intake row written so far is final for the rollup job: the server's oldest running
 * transaction is younger than each row's. On a PostgreSQL server shared by other test files (the CI's
 * PostgreSQL pass), a transaction of another database holds the snapshot's xmin back for a while, and a
 * rollup run then rightly leaves the rows for later.
 * @throws Error after `timeoutMs` (default 20 s)
 */
export async function untilFinal(db: Db, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [r] = rowsOf<{ ok: boolean }>(
      await db.execute(sql`select coalesce(pg_snapshot_xmin(pg_current_snapshot()) > max(${intakeEvents.xid}), true) as ok
        from ${intakeEvents}`),
    );
    if (r?.ok) return;
    if (Date.now() > deadline) throw new Error("intake rows stayed above the oldest running transaction");
    await new Promise((res) => setTimeout(res, 20));
  }
}

/**
 * Runs the rollup job until no intake row waits above its watermark (see {@link untilFinal} for why one run
 * may not be enough on a shared server). @returns the events added. @throws Error after `timeoutMs` (20 s).
 */
export async function rollUpAll(db: Db, timeoutMs = 20_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let events = 0;
  for (;;) {
    events += (await rollupIntake(db)).events;
    if (!(await pending(db))) return events;
    if (Date.now() > deadline) throw new Error("intake rows stayed above the rollup watermark");
    await new Promise((res) => setTimeout(res, 20));
  }
}
