import { sql, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import {
  analyticsDaily,
  analyticsDailyPages,
  analyticsVisitorDays,
  intakeEvents,
  intakeRollupState,
  tenants,
} from "@/db/schema";
import { nowMs } from "@/server/lib/clock";

/** What one {@link rollupIntake} added. */
export interface RollupResult {
  /** Accepted intake events added to the rollups. */
  events: number;
  /** `analytics_daily` rows inserted or added to. */
  dailyRows: number;
  /** `analytics_daily_pages` rows inserted or added to. */
  pageRows: number;
  /** Visitor days seen for the first time (added to `analytics_daily.visitors`). */
  visitors: number;
  /** The watermark after the run (xid8 as a decimal string); every intake row with a lower `xid` is in the rollups. */
  watermark: string;
}

/**
 * How often the state's `updated_at` is moved forward when nothing new came in (ms): it is the moment the
 * rollups were last known complete (`data_as_of` of the analytics reads), kept fresh without a write a tick.
 */
export const IDLE_STAMP_MS = 60_000;

/**
 * The rollup job (issue 74 item 4): adds the accepted intake events that committed since the last run to the
 * daily rollups, off the request path (the local driver every second, Inngest every minute).
 *
 * Correct under concurrency without ever reading a row twice: in one transaction it locks the state row
 * (`intake_rollup_state` 1, `FOR UPDATE`: a second worker waits and then reads the watermark the first one
 * wrote), takes `pg_snapshot_xmin(pg_current_snapshot())` as the new watermark (every transaction with a
 * lower id has finished, so the rows with `xid` in [old, new) are final: committed ones are visible, aborted
 * ones never will be; an insert still running has an id at or above it and is taken next time, whatever
 * order the inserts commit in), adds those rows in one statement, and stores the new watermark.
 * - `analytics_daily` by (tenant, mode, occurred day UTC, source): `pageviews` = page views, `sessions` =
 *   page views that start a session, `leads` = events with `lead_effect` `lead_created`, `deals_won` =
 *   purchases and conversions, `revenue_minor` = their `value_minor`, `events` = all accepted ones; the
 *   counts are added (`on conflict do update set x = x + excluded.x`).
 * - visitors: a page view's (tenant, mode, day, `visitor_key`) goes into `analytics_visitor_days`
 *   (`on conflict do nothing returning`); each visitor day inserted counts once under the source of that
 *   visitor's earliest page view of the batch. Only page views count: a visitor is someone who viewed a page
 *   (the CRM's events carry its own contact ids, which would count the same person twice).
 * - `analytics_daily_pages` by page path: page views, and the title of the latest one that has a title.
 * A row whose source was not classified counts under `other`; rows of a tenant deleted meanwhile are skipped.
 * Cheap when nothing is new: one index probe on `xid`, no lock and no write (the state's `updated_at`, the
 * moment the rollups were last complete, moves at most every {@link IDLE_STAMP_MS}).
 * A long transaction anywhere on the server (xids are the whole server's) holds the snapshot's xmin back,
 * and with it the rollups (they catch up when it ends).
 * @returns what was added (all zero when nothing was new) and the watermark.
 */
export async function rollupIntake(db: Db): Promise<RollupResult> {
  const at = new Date(nowMs());
  const s = intakeRollupState;
  const e = intakeEvents;
  const [probe] = rowsOf<{ due: boolean; w: string }>(
    await db.execute(sql`
      select ${s.xidWatermark}::text as w,
             exists (select 1 from ${e} where ${e.xid} >= ${s.xidWatermark}) as due
      from ${s} where ${s.id} = 1`),
  );
  const none = (watermark: string): RollupResult => ({ events: 0, dailyRows: 0, pageRows: 0, visitors: 0, watermark });
  if (!probe) throw new Error("intake_rollup_state has no row 1 (migration 0025 makes it)");
  if (!probe.due) {
    // Nothing committed since the watermark: the rollups are complete as of now.
    await db.execute(sql`
      update ${s} set ${sql.identifier(s.updatedAt.name)} = ${at.toISOString()}::timestamptz
      where ${s.id} = 1 and ${s.updatedAt} < ${new Date(at.getTime() - IDLE_STAMP_MS).toISOString()}::timestamptz`);
    return none(probe.w);
  }
  return db.transaction(async (tx) => {
    const [locked] = rowsOf<{ w: string }>(
      await tx.execute(sql`select ${s.xidWatermark}::text as w from ${s} where ${s.id} = 1 for update`),
    );
    const old = locked!.w;
    // A statement after the lock: its snapshot sees what the worker before us committed.
    const [snap] = rowsOf<{ w: string }>(
      await tx.execute(sql`select pg_snapshot_xmin(pg_current_snapshot())::text as w`),
    );
    const next = snap!.w;
    if (BigInt(next) <= BigInt(old)) return none(old);
    const [r] = rowsOf<{ events: number; daily_rows: number; page_rows: number; visitors: number }>(
      await tx.execute(addBatch(sql`${intakeEvents.xid} >= ${old}::xid8 and ${intakeEvents.xid} < ${next}::xid8`)),
    );
    await tx.execute(sql`
      update ${s} set ${sql.identifier(s.xidWatermark.name)} = ${next}::xid8,
                      ${sql.identifier(s.updatedAt.name)} = ${at.toISOString()}::timestamptz
      where ${s.id} = 1`);
    return {
      events: Number(r?.events ?? 0),
      dailyRows: Number(r?.daily_rows ?? 0),
      pageRows: Number(r?.page_rows ?? 0),
      visitors: Number(r?.visitors ?? 0),
      watermark: next,
    };
  });
}

/**
 * An `xid` below every watermark (the first one is a snapshot's xmin, at least 3): intake rows written with it
 * are never taken by {@link rollupIntake}. The sandbox's sample events (server/services/sandbox) are written
 * with it and added to the rollups by the transaction that writes them ({@link addRolledUpRows}).
 */
export const ROLLED_UP_XID = "1";

/**
 * Adds the accepted intake rows that match `where` and were written with {@link ROLLED_UP_XID} to the
 * rollups, inside the caller's transaction (the sandbox's seeding: its sample analytics are there at once).
 * @returns the number of events added
 */
export async function addRolledUpRows(db: Db, where: SQL): Promise<number> {
  const [r] = rowsOf<{ events: number }>(
    await db.execute(addBatch(sql`${intakeEvents.xid} = ${ROLLED_UP_XID}::xid8 and ${where}`)),
  );
  return Number(r?.events ?? 0);
}

/**
 * The one statement that adds the accepted rows matching `rows` (the job: `xid` in [old, next)) to the three
 * rollups. The job's statement has a snapshot younger than `next` (taken in an earlier statement), so it sees
 * every row below `next` that committed. Rows go in in key order, so two statements never wait on each
 * other's rows in a cycle.
 */
function addBatch(rows: SQL) {
  const e = intakeEvents;
  const d = analyticsDaily;
  const p = analyticsDailyPages;
  const v = analyticsVisitorDays;
  const ident = (c: { name: string }) => sql.identifier(c.name);
  const add = (c: { name: string }) => sql`${ident(c)} = ${d}.${ident(c)} + excluded.${ident(c)}`;
  return sql`
    with batch as materialized (
      select ${e.tenantId} as tenant_id, ${e.livemode} as livemode,
             (coalesce(${e.occurredAt}, ${e.receivedAt}) at time zone 'UTC')::date as day,
             coalesce(${e.source}, 'other') as source, coalesce(${e.kind}, 'other') as kind,
             ${e.type} as type, ${e.sessionStart} as session_start, ${e.visitorKey} as visitor_key,
             ${e.pagePath} as page_path, ${e.pageTitle} as page_title, ${e.valueMinor} as value_minor,
             ${e.leadEffect} as lead_effect, coalesce(${e.occurredAt}, ${e.receivedAt}) as moment
      from ${e}
      where ${rows} and ${e.status} = 'accepted'
        and ${e.tenantId} in (select ${tenants.id} from ${tenants})
    ), firsts as (
      select distinct on (tenant_id, livemode, day, visitor_key) tenant_id, livemode, day, visitor_key, source
      from batch where type = 'page_view' and visitor_key is not null
      order by tenant_id, livemode, day, visitor_key, moment, source
    ), seen as (
      -- The insert returns each new visitor day's source: no join of two CTEs back together (the planner
      -- cannot estimate a RETURNING, and a nested loop over two batch-sized scans took half an hour at 1M rows).
      insert into ${v} (tenant_id, livemode, day, visitor_key, source)
      select tenant_id, livemode, day, visitor_key, source from firsts order by 1, 2, 3, 4
      on conflict do nothing
      returning tenant_id, livemode, day, source
    ), visitors as (
      select tenant_id, livemode, day, source, count(*)::int as n
      from seen group by 1, 2, 3, 4
    ), counts as (
      select tenant_id, livemode, day, source, min(kind) as kind,
             count(*) filter (where type = 'page_view')::int as pageviews,
             count(*) filter (where type = 'page_view' and session_start)::int as sessions,
             count(*) filter (where lead_effect = 'lead_created')::int as leads,
             count(*) filter (where type in ('purchase', 'conversion'))::int as deals_won,
             coalesce(sum(value_minor) filter (where type in ('purchase', 'conversion')), 0)::bigint as revenue_minor,
             count(*)::int as events
      from batch group by 1, 2, 3, 4
    ), daily as (
      insert into ${d} (tenant_id, livemode, day, source, kind, pageviews, sessions, visitors, leads, deals_won,
                        revenue_minor, events)
      select c.tenant_id, c.livemode, c.day, c.source, c.kind, c.pageviews, c.sessions, coalesce(vs.n, 0), c.leads,
             c.deals_won, c.revenue_minor, c.events
      from counts c left join visitors vs using (tenant_id, livemode, day, source)
      order by 1, 2, 3, 4
      on conflict (tenant_id, livemode, day, source) do update set
        ${ident(d.kind)} = excluded.${ident(d.kind)}, ${add(d.pageviews)}, ${add(d.sessions)}, ${add(d.visitors)},
        ${add(d.leads)}, ${add(d.dealsWon)}, ${add(d.revenueMinor)}, ${add(d.events)}
      returning 1
    ), pages as (
      insert into ${p} (tenant_id, livemode, day, path, title, pageviews)
      select tenant_id, livemode, day, page_path,
             (array_agg(page_title order by moment desc) filter (where page_title is not null))[1], count(*)::int
      from batch where type = 'page_view' and page_path is not null
      group by 1, 2, 3, 4 order by 1, 2, 3, 4
      on conflict (tenant_id, livemode, day, path) do update set
        ${ident(p.pageviews)} = ${p}.${ident(p.pageviews)} + excluded.${ident(p.pageviews)},
        ${ident(p.title)} = coalesce(excluded.${ident(p.title)}, ${p}.${ident(p.title)})
      returning 1
    )
    select (select count(*) from batch)::int as events, (select count(*) from daily)::int as daily_rows,
           (select count(*) from pages)::int as page_rows, (select coalesce(sum(n), 0) from visitors)::int as visitors`;
}
