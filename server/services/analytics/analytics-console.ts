import { desc } from "drizzle-orm";
import type { Db } from "@/db/client";
import { intakeEvents } from "@/db/schema";
import { nowMs } from "@/server/lib/clock";
import { formatMinor } from "@/server/lib/money";
import type { StaffActor } from "../actor";
import { ownedBy } from "../tenant-scope";
import { getPreviews } from "../tenants/previews";
import { daysBetween, dailySeries, sourceTotals, type SourceTotals } from "./daily-series";

/** Days the console's Analytics page covers, today (UTC) included. */
export const ANALYTICS_CONSOLE_DAYS = 30;

/** Rows of the live list: the newest intake events of the tenant and mode. */
export const LIVE_EVENTS_LIMIT = 50;

const DAY_MS = 86_400_000;

/** One UTC day of the Analytics page's charts. */
export interface AnalyticsDay {
  /** YYYY-MM-DD (UTC). */
  day: string;
  sessions: number;
  leads: number;
  /** Revenue in kopecks, as a decimal integer string (bigint on the server). */
  revenueMinor: string;
  /** Revenue in rubles with two decimals, e.g. "12.34" (server/lib/money.ts formatMinor). */
  revenueRub: string;
}

/** What the console's Analytics page charts (issue 74 item 7). */
export interface AnalyticsOverview {
  /** The window, YYYY-MM-DD inclusive: the last {@link ANALYTICS_CONSOLE_DAYS} UTC days. */
  from: string;
  to: string;
  /** Every day of the window, oldest first, zeros where nothing was counted. */
  days: AnalyticsDay[];
  /** Sums over the window; revenue as {@link AnalyticsDay}'s. */
  totals: { sessions: number; leads: number; revenueMinor: string; revenueRub: string };
  /** Totals by traffic source over the window, more sessions first. */
  sources: SourceTotals[];
  /** The tenant has the preview `event-intake`, without which `POST /intake/events` answers 404. */
  intakePreview: boolean;
}

/**
 * The Analytics page's figures for the staff actor's tenant in the console's mode (live, or the sandbox
 * in Test mode): sessions, leads and revenue a UTC day over the last {@link ANALYTICS_CONSOLE_DAYS} days
 * and totals by traffic source, read from the daily rollups only (server/services/analytics/daily-series.ts;
 * issue 74 item 4: never raw events), plus whether the tenant has the preview `event-intake`. Any member
 * of the tenant may read it (as the usage charts). Two grouped queries over the window's rollup rows.
 * @throws ApiError `not_found` when the tenant is gone.
 */
export async function analyticsOverview(db: Db, actor: StaffActor): Promise<AnalyticsOverview> {
  const today = Math.floor(nowMs() / DAY_MS) * DAY_MS;
  const to = new Date(today).toISOString().slice(0, 10);
  const from = new Date(today - (ANALYTICS_CONSOLE_DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
  const [series, sources, previews] = await Promise.all([
    dailySeries(db, actor, ["sessions", "leads", "revenue"], from, to),
    sourceTotals(db, actor, from, to),
    getPreviews(db, actor.tenantId),
  ]);
  const days = daysBetween(from, to).map((day, i) => {
    const minor = BigInt(series.revenue[i]?.value ?? 0);
    return {
      day,
      sessions: series.sessions[i]?.value ?? 0,
      leads: series.leads[i]?.value ?? 0,
      revenueMinor: minor.toString(),
      revenueRub: formatMinor(minor),
    };
  });
  const revenue = days.reduce((n, d) => n + BigInt(d.revenueMinor), 0n);
  return {
    from,
    to,
    days,
    totals: {
      sessions: days.reduce((n, d) => n + d.sessions, 0),
      leads: days.reduce((n, d) => n + d.leads, 0),
      revenueMinor: revenue.toString(),
      revenueRub: formatMinor(revenue),
    },
    sources,
    intakePreview: previews["event-intake"],
  };
}

/** One row of the live list: what intake answered for an event, and what it did. No personal data. */
export interface LiveEvent {
  /** When intake received it, ISO 8601. */
  receivedAt: string;
  /** The client's `event_id` (null when a rejected event had none). */
  eventId: string | null;
  /** `page_view` | `form_submit` | `signup` | `purchase` | `conversion` | `custom:<name>`; null when rejected without one. */
  type: string | null;
  status: "accepted" | "duplicate" | "rejected";
  /** Traffic source classified at intake (null when rejected). */
  source: string | null;
  /** The page's path (no query string). */
  pagePath: string | null;
  /** `lead_created` | `lead_won` | `lead_value_set` | null. */
  leadEffect: string | null;
  /** A rejected event's first error, as the answer gave it; null otherwise. */
  error: { field: string; code: string; message: string } | null;
}

/**
 * The console's live list (issue 74 item 7): the last {@link LIVE_EVENTS_LIMIT} events intake received for
 * the staff actor's tenant in the console's mode, newest first (by `received_at`; events of one batch share
 * it and follow by `event_id`, one without an id last), with their status. Reads the raw table through its index
 * `(tenant_id, livemode, received_at desc)`; never selects a contact (none is stored) or the properties.
 */
export async function liveEvents(db: Db, actor: StaffActor): Promise<LiveEvent[]> {
  const rows = await db
    .select({
      receivedAt: intakeEvents.receivedAt,
      eventId: intakeEvents.eventId,
      type: intakeEvents.type,
      status: intakeEvents.status,
      source: intakeEvents.source,
      pagePath: intakeEvents.pagePath,
      leadEffect: intakeEvents.leadEffect,
      errors: intakeEvents.errors,
    })
    .from(intakeEvents)
    .where(ownedBy(intakeEvents, actor))
    .orderBy(desc(intakeEvents.receivedAt), intakeEvents.eventId)
    .limit(LIVE_EVENTS_LIMIT);
  return rows.map((r) => ({
    receivedAt: r.receivedAt.toISOString(),
    eventId: r.eventId,
    type: r.type,
    status: r.status as LiveEvent["status"],
    source: r.source,
    pagePath: r.pagePath,
    leadEffect: r.leadEffect,
    error: r.status === "rejected" ? (r.errors?.[0] ?? null) : null,
  }));
}
