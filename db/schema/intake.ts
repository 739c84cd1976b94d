import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  customType,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  uuid,
} from "drizzle-orm/pg-core";
import { tenants } from "./tenants";
import { ts } from "./columns";

/**
 * PostgreSQL's 64-bit transaction id (`xid8`). Read and written as a decimal string: it passes 2^53.
 * The rollup job uses it as a watermark (server/services/analytics/rollup.ts).
 */
export const xid8 = customType<{ data: string; driverData: string }>({
  dataType: () => "xid8",
});

/**
 * One event as `POST /intake/events` received it (issue 74): accepted, duplicate or rejected, so the
 * console's live list shows every outcome. PARTITIONED BY RANGE (`received_at`), one partition a UTC day
 * (`intake_events_pYYYYMMDD`, created ahead by server/services/intake/partitions.ts and on demand); after
 * 90 days a whole partition is dropped, never rows (server/jobs/retention.ts). The migration creates the
 * table by hand (drizzle-kit has no partitioned tables); this declaration is what queries use.
 * No primary key: a partitioned table's key must hold the partition column, and nothing looks a row up
 * by one. Uniqueness of `event_id` (per tenant and mode, 7 days) lives in {@link intakeEventIds}.
 * Personal data: a contact's email and phone are used in the intake transaction (to find or create the
 * lead) and never stored here; `visitor_key` is the contact's `external_id` or the snippet's anonymous id.
 */
export const intakeEvents = pgTable(
  "intake_events",
  {
    receivedAt: ts("received_at").notNull(),
    tenantId: uuid("tenant_id").notNull(),
    /** Test mode: false for a row of the tenant's sandbox (spec "Me" `key.mode`; DESIGN "Test mode"). */
    livemode: boolean("livemode").notNull().default(true),
    integrationId: uuid("integration_id"),
    /** The client's id, at most 100 chars (a rejected event's is cut to 100, or null when absent). */
    eventId: text("event_id"),
    /** `accepted` | `duplicate` | `rejected`. Only `accepted` rows reach the rollups. */
    status: text("status").notNull(),
    /** `page_view` | `form_submit` | `signup` | `purchase` | `conversion` | `custom:<name>` (null when rejected without one). */
    type: text("type"),
    occurredAt: ts("occurred_at"),
    /** Traffic source (spec TrafficSourceRow `source`) and its `kind`, classified at intake from utm and referrer. */
    source: text("source"),
    kind: text("kind"),
    /** True for a page view that starts a session (reached from outside the page's host, or directly). */
    sessionStart: boolean("session_start").notNull().default(false),
    visitorKey: text("visitor_key"),
    pageUrl: text("page_url"),
    /** The page URL's path (no query string: it may hold personal data), for popular pages. */
    pagePath: text("page_path"),
    pageTitle: text("page_title"),
    referrer: text("referrer"),
    utmSource: text("utm_source"),
    utmMedium: text("utm_medium"),
    utmCampaign: text("utm_campaign"),
    /** `value` in minor units (kopecks) and its currency, for purchases and conversions. */
    valueMinor: bigint("value_minor", { mode: "bigint" }),
    currency: text("currency"),
    orderId: text("order_id"),
    /** The lead the event is linked to: given, found by contact, or created by it. */
    leadId: uuid("lead_id"),
    conversationId: uuid("conversation_id"),
    /** What the event did to the CRM: `lead_created` | `lead_won` | `lead_value_set` | null. */
    leadEffect: text("lead_effect"),
    properties: jsonb("properties").$type<Record<string, unknown>>(),
    /** A rejected event's errors, as the answer gave them ([{field, code, message}]). */
    errors: jsonb("errors").$type<{ field: string; code: string; message: string }[]>(),
    /** The inserting transaction's id: the rollup job's watermark (every id below the snapshot's xmin is final). */
    xid: xid8("xid")
      .notNull()
      .default(sql`pg_current_xact_id()`),
  },
  (t) => [
    // The console's live list: one tenant and mode, newest first.
    index("intake_events_tenant_received_idx").on(t.tenantId, t.livemode, t.receivedAt.desc()),
    // The rollup job reads what committed since its watermark.
    index("intake_events_xid_idx").on(t.xid),
  ],
);

/**
 * The `event_id`s accepted per tenant and mode in the last 7 days: an insert that conflicts with a row
 * younger than 7 days is a duplicate (issue 74 item 1). Across processes the primary key decides: the
 * second writer waits for the first's commit. Rows older than 7 days are reused in place and purged by
 * the retention job.
 */
export const intakeEventIds = pgTable(
  "intake_event_ids",
  {
    // No foreign key: a per-row check on the intake path costs throughput, and the rows leave within 7 days.
    tenantId: uuid("tenant_id").notNull(),
    livemode: boolean("livemode").notNull().default(true),
    eventId: text("event_id").notNull(),
    receivedAt: ts("received_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.livemode, t.eventId] }),
    index("intake_event_ids_received_brin").using("brin", t.receivedAt),
  ],
);

/**
 * Daily rollup of accepted intake events by the day they occurred (UTC) and traffic source: what every
 * analytics read answers from (never raw events). Counts are added by the rollup job
 * (server/services/analytics/rollup.ts); `visitors` counts a visitor once a day, under the source of
 * their first event that day. `revenue_minor` in kopecks.
 */
export const analyticsDaily = pgTable(
  "analytics_daily",
  {
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    livemode: boolean("livemode").notNull().default(true),
    day: date("day", { mode: "string" }).notNull(),
    source: text("source").notNull(),
    kind: text("kind").notNull(),
    pageviews: integer("pageviews").notNull().default(0),
    sessions: integer("sessions").notNull().default(0),
    visitors: integer("visitors").notNull().default(0),
    leads: integer("leads").notNull().default(0),
    dealsWon: integer("deals_won").notNull().default(0),
    revenueMinor: bigint("revenue_minor", { mode: "bigint" })
      .notNull()
      .default(sql`0`),
    /** Accepted events of any type. */
    events: integer("events").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.livemode, t.day, t.source] })],
);

/** Daily page views by page path (the dashboard's `popular_pages`), from the same rollup job. */
export const analyticsDailyPages = pgTable(
  "analytics_daily_pages",
  {
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    livemode: boolean("livemode").notNull().default(true),
    day: date("day", { mode: "string" }).notNull(),
    path: text("path").notNull(),
    title: text("title"),
    pageviews: integer("pageviews").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.livemode, t.day, t.path] })],
);

/**
 * Visitors seen a day, so a visitor counts once a day in `analytics_daily.visitors`, under `source`; kept 90
 * days. The rollup job's insert returns the source of each visitor day it added, so counting them needs no
 * join back to the batch.
 */
export const analyticsVisitorDays = pgTable(
  "analytics_visitor_days",
  {
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    livemode: boolean("livemode").notNull().default(true),
    day: date("day", { mode: "string" }).notNull(),
    visitorKey: text("visitor_key").notNull(),
    /** The source the visitor was counted under that day (their first page view's). */
    source: text("source").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.livemode, t.day, t.visitorKey] })],
);

/**
 * The rollup job's position (one row, `id` 1): every intake row whose `xid` is below `xid_watermark` has
 * been added to the rollups. Locked `FOR UPDATE` by the job, so two workers never add a row twice.
 */
export const intakeRollupState = pgTable("intake_rollup_state", {
  id: smallint("id").primaryKey(),
  xidWatermark: xid8("xid_watermark").notNull(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

/**
 * API requests a UTC day by integration and status class (2..5), for the console's usage charts: added
 * by the request-log writer in the transaction that writes its batch (issue 74 item 4), so the charts
 * never scan the request log. Kept 30 days.
 */
export const usageDaily = pgTable(
  "usage_daily",
  {
    tenantId: uuid("tenant_id").notNull(),
    livemode: boolean("livemode").notNull().default(true),
    day: date("day", { mode: "string" }).notNull(),
    integrationId: uuid("integration_id").notNull(),
    statusClass: smallint("status_class").notNull(),
    requests: integer("requests").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.livemode, t.day, t.integrationId, t.statusClass] })],
);
