import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { ensurePartitions } from "@/server/services/intake/partitions";
import { seedBenchTenant, type BenchTenant } from "./bench-tenant";
import type { IntakeCounts } from "./intake-load";
import { p99Verdict } from "./p99-target";

// Issue 74 item 5, PostgreSQL only (like the deliveries): the intake's throughput (POST /intake/events,
// batches of 100 with a tenth duplicates; target ≥ 10,000 accepted events a second) and the p99 of a
// timeseries read over 90 days of 1,000,000 events (target ≤ 50 ms). Both run as rows of bench/run.ts,
// measured like the others (wrk pinned to the load core, GET /api/health before and after); this file
// seeds their tenants and turns their rows into the report's figures and targets. The batches themselves
// are built by the load generator (bench/intake-load.ts).

/** The throughput row's name (`--only intake` selects both rows). */
export const INTAKE_ROW = "POST /intake/events (batches of 100, a tenth duplicates)";
/** The read row's name; `events` is the seeded count. */
export const timeseriesRow = (events: number) =>
  `GET /analytics/timeseries (sessions, 90 days of ${events.toLocaleString("en")} intake events)`;
/** Issue 74 item 5: accepted events a second, on this project's 2-core machine. */
export const INTAKE_TARGET_PER_S = 10_000;
/** Issue 74 item 5: the timeseries read's p99, ms. */
export const TIMESERIES_P99_TARGET_MS = 50;
/** Days of seeded events: received from 90 days ago to yesterday, the read's window. */
export const ANALYTICS_DAYS = 90;

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const today = (nowMs: number) => Math.floor(nowMs / DAY_MS) * DAY_MS;

/** The bench's intake tenants: one that sends batches, one whose analytics are read. */
export interface IntakeTenants {
  writer: BenchTenant;
  reader: BenchTenant & { events: number };
}

/**
 * Seeds the two intake tenants (bench/bench-tenant.ts: every scope, analytics:write and :read among them):
 * the writer with nothing more, the reader with `events` accepted events spread over the last
 * {@link ANALYTICS_DAYS} days ({@link seedAnalyticsEvents}). Their previews and limits are the caller's
 * (the operator CLI, as for the other bench tenants).
 */
export async function seedIntakeTenants(db: Db, events: number, log: (m: string) => void): Promise<IntakeTenants> {
  const writer = await seedBenchTenant(db, "Bench intake", ["127.0.0.1", "::1"]);
  const reader = await seedBenchTenant(db, "Bench analytics", ["127.0.0.1", "::1"]);
  log(
    `seeding ${events.toLocaleString("en")} intake events over ${ANALYTICS_DAYS} days (generate_series, a day a statement)`,
  );
  const started = Date.now();
  await seedAnalyticsEvents(db, reader, events, Date.now());
  log(`  seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { writer, reader: { ...reader, events } };
}

/**
 * Inserts `events` accepted live events of `tenant` into `intake_events`, received evenly over the
 * {@link ANALYTICS_DAYS} UTC days before `nowMs`'s, one INSERT ... SELECT generate_series per day after that
 * day's partition is made (so each day is its own transaction, as the intake's batches are). The mix, from a
 * hash of the row number: 85 % page views (3 in 10 starting a session), 3 % form submissions, 2 % sign-ups,
 * 2 % purchases and 1 % conversions (with values in RUB), 7 % custom events; sources Google, Yandex, Bing,
 * ChatGPT, Perplexity, social, ads, direct and other; about 5,000 visitors a day over 200 catalog pages.
 */
export async function seedAnalyticsEvents(db: Db, tenant: BenchTenant, events: number, nowMs: number): Promise<void> {
  const first = today(nowMs) - ANALYTICS_DAYS * DAY_MS;
  const days = Array.from({ length: ANALYTICS_DAYS }, (_, d) => first + d * DAY_MS);
  await ensurePartitions(db, days);
  for (const [d, dayMs] of days.entries()) {
    const n = Math.floor(events / ANALYTICS_DAYS) + (d < events % ANALYTICS_DAYS ? 1 : 0);
    await db.execute(sql`
      insert into intake_events (received_at, tenant_id, livemode, integration_id, event_id, status, type,
        occurred_at, source, kind, session_start, visitor_key, page_url, page_path, page_title, referrer,
        utm_source, utm_medium, utm_campaign, value_minor, currency, order_id)
      select at, ${tenant.tenantId}::uuid, true, ${tenant.integrationId}::uuid, 'seed-' || ${d}::int || '-' || g,
        'accepted', ty, at - make_interval(secs => h % 30), src,
        case src when 'google' then 'search' when 'yandex' then 'search' when 'bing' then 'search'
          when 'chatgpt' then 'ai_assistant' when 'perplexity' then 'ai_assistant' when 'social' then 'social'
          when 'ads' then 'ads' when 'direct' then 'direct' else 'other' end,
        ty = 'page_view' and h % 10 < 3, 'v' || (h / 7) % 5000,
        'https://bench.example' || path, path, 'Item ' || (h / 1400) % 200,
        case src when 'google' then 'https://www.google.com/' when 'yandex' then 'https://yandex.ru/'
          when 'bing' then 'https://www.bing.com/' when 'chatgpt' then 'https://chatgpt.com/'
          when 'perplexity' then 'https://www.perplexity.ai/' when 'social' then 'https://vk.com/'
          when 'other' then 'https://forum.example.org/' end,
        case src when 'ads' then 'yandex' end, case src when 'ads' then 'cpc' end,
        case src when 'ads' then 'socks' end,
        case when ty in ('purchase', 'conversion') then 100000 + h % 900000 end,
        case when ty in ('purchase', 'conversion') then 'RUB' end,
        case when ty in ('purchase', 'conversion') then 'order-' || ${d}::int || '-' || g end
      from (
        select g, at, h,
          case when h % 100 < 85 then 'page_view' when h % 100 < 88 then 'form_submit'
            when h % 100 < 90 then 'signup' when h % 100 < 92 then 'purchase'
            when h % 100 < 93 then 'conversion' else 'custom:add_to_cart' end as ty,
          (array['google', 'google', 'google', 'yandex', 'yandex', 'direct', 'direct', 'direct', 'chatgpt',
            'perplexity', 'social', 'ads', 'bing', 'other'])[1 + (h / 100) % 14] as src,
          '/catalog/item-' || (h / 1400) % 200 as path
        from (
          select g, ${new Date(dayMs).toISOString()}::timestamptz + make_interval(secs => 30 + g * (86340.0 / ${n}::int)) as at,
            (g::bigint + ${d}::int * 1000003) * 2654435761 % 4294967296 as h
          from generate_series(0, ${n}::int - 1) as g
        ) x
      ) y`);
  }
}

/** The read row's path: sessions from {@link ANALYTICS_DAYS} days before today (UTC) to yesterday. */
export function timeseriesPath(nowMs: number): string {
  const t = today(nowMs);
  return `/analytics/timeseries?metric=sessions&from=${dayOf(t - ANALYTICS_DAYS * DAY_MS)}&to=${dayOf(t - DAY_MS)}`;
}

/** What the intake figures read of a bench row (bench/run.ts `Result`). */
export interface IntakeRow {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  total: number;
  non2xx: number;
  intake?: IntakeCounts;
  appCpuPct: number;
  postgresCpuPct: number;
  healthAround: [number, number] | null;
  healthAroundP99: [number, number] | null;
}

/** The throughput row's figures for the report and results.json. */
export interface IntakeFigures {
  batchesPerSecond: number;
  acceptedPerSecond: number;
  /** Verdicts counted in the measured run's answers. */
  counts: IntakeCounts;
  /** Share of the answered events that were duplicates (the load sends 10 %). */
  duplicateShare: number;
  p50Ms: number;
  p99Ms: number;
  appCpuPct: number;
  postgresCpuPct: number;
  /** The app's CPU time a batch, ms. */
  appCpuMsPerBatch: number;
  /** batches/s ÷ GET /api/health's req/s around the row (null when health was not measured around it). */
  ratioToHealth: number | null;
  /** accepted events/s ÷ GET /api/health's req/s around the row. */
  eventsToHealth: number | null;
  met: boolean;
}

const healthMean = (r: IntakeRow) => (r.healthAround ? (r.healthAround[0] + r.healthAround[1]) / 2 : null);

/** The throughput row's figures: accepted events a second from the verdicts its answers gave. */
export function intakeFigures(r: IntakeRow): IntakeFigures {
  const counts = r.intake ?? { accepted: 0, duplicate: 0, rejected: 0 };
  const seconds = r.rps > 0 ? r.total / r.rps : 0;
  const acceptedPerSecond = seconds > 0 ? counts.accepted / seconds : 0;
  const answered = counts.accepted + counts.duplicate + counts.rejected;
  const health = healthMean(r);
  return {
    batchesPerSecond: r.rps,
    acceptedPerSecond,
    counts,
    duplicateShare: answered ? counts.duplicate / answered : 0,
    p50Ms: r.p50,
    p99Ms: r.p99,
    appCpuPct: r.appCpuPct,
    postgresCpuPct: r.postgresCpuPct,
    appCpuMsPerBatch: r.rps > 0 ? (r.appCpuPct * 10) / r.rps : 0,
    ratioToHealth: health ? r.rps / health : null,
    eventsToHealth: health ? acceptedPerSecond / health : null,
    met: acceptedPerSecond >= INTAKE_TARGET_PER_S,
  };
}

/** The two rows' lines of the targets table (absent rows: "not run"). */
export function intakeTargets(rows: IntakeRow[]): { target: string; figure: string; met: boolean }[] {
  const writes = rows.find((r) => r.name === INTAKE_ROW);
  const read = rows.find((r) => r.name.startsWith("GET /analytics/timeseries"));
  const f = writes ? intakeFigures(writes) : null;
  return [
    {
      target: `≥ ${INTAKE_TARGET_PER_S.toLocaleString("en")} accepted intake events/s (batches of 100, a tenth duplicates)`,
      figure: f
        ? `${Math.round(f.acceptedPerSecond).toLocaleString("en")}/s (${f.batchesPerSecond.toFixed(0)} batches/s, p99 ${f.p99Ms} ms)`
        : "not run",
      met: f?.met ?? false,
    },
    {
      target: `timeseries read over ${ANALYTICS_DAYS} days p99 ≤ ${TIMESERIES_P99_TARGET_MS} ms`,
      figure: read ? `${read.p99} ms (p50 ${read.p50} ms, ${Math.round(read.rps)} req/s)` : "not run",
      met: read !== undefined && read.p99 <= TIMESERIES_P99_TARGET_MS,
    },
  ];
}

/** The report's intake paragraph (markdown lines; none when neither row ran). */
export function intakeSection(rows: IntakeRow[]): string[] {
  const writes = rows.find((r) => r.name === INTAKE_ROW);
  const read = rows.find((r) => r.name.startsWith("GET /analytics/timeseries"));
  const out: string[] = [];
  if (writes) {
    const f = intakeFigures(writes);
    const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
    out.push(
      `Intake (\`${INTAKE_ROW}\`): ${Math.round(f.acceptedPerSecond).toLocaleString("en")} accepted events/s (target ≥ ${INTAKE_TARGET_PER_S.toLocaleString("en")}: ${f.met ? "met" : "**missed**"}) in ${f.batchesPerSecond.toFixed(0)} batches/s; ${f.counts.duplicate.toLocaleString("en")} duplicates answered (${pct(f.duplicateShare)} of the events), ${f.counts.rejected} rejected, ${writes.non2xx} non-2xx; a batch p50 ${f.p50Ms} ms, p99 ${f.p99Ms} ms; app CPU ${f.appCpuPct.toFixed(0)} % (${f.appCpuMsPerBatch.toFixed(2)} ms a batch), PostgreSQL CPU ${f.postgresCpuPct.toFixed(0)} %${f.ratioToHealth === null ? "" : `; batches/s ${f.ratioToHealth.toFixed(2)} × and accepted events/s ${f.eventsToHealth!.toFixed(1)} × GET /api/health's req/s around it`}.`,
      "",
    );
  }
  if (read) {
    const v = read.healthAroundP99 ? p99Verdict(read.p99, read.healthAroundP99) : null;
    out.push(
      `Timeseries read (\`${read.name}\`, rolled up first): p99 ${read.p99} ms (target ≤ ${TIMESERIES_P99_TARGET_MS} ms: ${read.p99 <= TIMESERIES_P99_TARGET_MS ? "met" : "**missed**"}${v ? `; ${v.multiple.toFixed(2)} × health's p99 around it, line ${v.line.toFixed(1)} ms: ${v.met ? "met" : "**missed**"}` : ""}), p50 ${read.p50} ms, ${Math.round(read.rps)} req/s.`,
      "",
    );
  }
  return out;
}
