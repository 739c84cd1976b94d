import type { Db } from "@/db/client";
import { analyticsDaily, analyticsDailyPages, intakeEvents } from "@/db/schema";
import { ensurePartitions } from "../intake/partitions";
import { prng } from "../seed/prng";
import { ROLLED_UP_XID } from "./rollup";
import type { Owner } from "../tenant-scope";
import { ownerOf } from "../tenant-scope";

const DAY_MS = 86_400_000;
const MIN_MS = 60_000;

/** Days of rollups {@link seedSampleAnalytics} writes, today (UTC) included. */
export const SAMPLE_ANALYTICS_DAYS = 30;

/**
 * The sample's traffic sources (spec TrafficSourceRow `source` and `kind`) with their share of a day's
 * sessions; every one has sessions every day, so each is a row of the traffic-sources table.
 */
const SOURCES = [
  { source: "google", kind: "search", share: 0.3 },
  { source: "yandex", kind: "search", share: 0.25 },
  { source: "direct", kind: "direct", share: 0.18 },
  { source: "chatgpt", kind: "ai_assistant", share: 0.1 },
  { source: "social", kind: "social", share: 0.09 },
  { source: "perplexity", kind: "ai_assistant", share: 0.04 },
  { source: "ads", kind: "ads", share: 0.04 },
] as const;

const PAGES = [
  { path: "/", title: "Demo Shop" },
  { path: "/blog/running-shoes-1", title: "How to choose running shoes" },
  { path: "/catalog/trail", title: "Trail shoes" },
  { path: "/delivery", title: "Delivery" },
];

/** What {@link seedSampleAnalytics} wrote. */
export interface SampleAnalytics {
  /** Rows of `analytics_daily` (days × sources). */
  dailyRows: number;
  /** Rows of `intake_events` (the live list's sample). */
  events: number;
}

/**
 * Seeds sample analytics for `owner` (the demo tenant, `npm run demo`), so the console's Analytics page
 * (issue 74 item 7) has something to draw before the tenant's site sends anything:
 * - `analytics_daily`: {@link SAMPLE_ANALYTICS_DAYS} UTC days up to the day of `atMs`, one row a day per
 *   sample source (google, yandex, direct, chatgpt, social, perplexity, ads), with sessions, page views,
 *   visitors, leads, deals won and revenue (kopecks) drawn deterministically, and `analytics_daily_pages`
 *   for four sample pages: as if the rollup job had counted them (no raw events stand behind them);
 * - `intake_events`: 12 events received in the hour before `atMs`, as intake records them: accepted page
 *   views from several sources, a `form_submit` that created a lead, a `purchase` that won one, two
 *   duplicates and two rejected events with their errors. No contact data (intake stores none). Written
 *   as already rolled up: the job never counts them on top of the seeded rollups.
 * `leadIds` (the owner's leads, optional) are linked to the form submission and the purchase; `seed` draws
 * the figures and names the sample visitors (the demo's is fixed; the sandbox's differs per reset).
 * Call once per owner: a second call conflicts on the rollups' primary keys.
 */
export async function seedSampleAnalytics(
  db: Db,
  owner: Owner,
  atMs: number,
  leadIds: readonly string[] = [],
  seed = 7407,
): Promise<SampleAnalytics> {
  const o = ownerOf(owner);
  const r = prng(seed);
  const today = Math.floor(atMs / DAY_MS) * DAY_MS;
  const daily: (typeof analyticsDaily.$inferInsert)[] = [];
  const pages: (typeof analyticsDailyPages.$inferInsert)[] = [];
  for (let i = SAMPLE_ANALYTICS_DAYS - 1; i >= 0; i--) {
    const dayMs = today - i * DAY_MS;
    const day = new Date(dayMs).toISOString().slice(0, 10);
    const weekend = [0, 6].includes(new Date(dayMs).getUTCDay());
    // A slow climb over the month, lower at weekends, with some noise.
    const total = Math.round((120 + (SAMPLE_ANALYTICS_DAYS - i) * 3) * (weekend ? 0.7 : 1) * (0.85 + r.next() * 0.3));
    for (const s of SOURCES) {
      const sessions = Math.max(1, Math.round(total * s.share));
      const leads = r.int(Math.max(2, Math.round(sessions / 12)));
      const dealsWon = leads > 0 ? r.int(Math.min(leads, 2) + 1) : 0;
      daily.push({
        ...o,
        day,
        source: s.source,
        kind: s.kind,
        sessions,
        pageviews: sessions * 2 + r.int(sessions),
        visitors: Math.max(1, Math.round(sessions * (0.75 + r.next() * 0.2))),
        leads,
        dealsWon,
        // 2,500.00–14,500.00 RUB an order.
        revenueMinor: BigInt(dealsWon * (250_000 + r.int(1_200_000))),
        events: sessions * 3 + leads + dealsWon,
      });
    }
    for (const [n, p] of PAGES.entries())
      pages.push({ ...o, day, path: p.path, title: p.title, pageviews: Math.max(1, Math.round(total / (n + 1.5))) });
  }
  await db.insert(analyticsDaily).values(daily);
  await db.insert(analyticsDailyPages).values(pages);

  const events = sampleEvents(atMs, leadIds, seed);
  await ensurePartitions(
    db,
    events.map((e) => e.receivedAt.getTime()),
  );
  // Written as already rolled up (ROLLED_UP_XID): the seeded rollups stand for them, so the job never adds
  // them a second time and the demo's figures stay as seeded.
  await db.insert(intakeEvents).values(events.map((e) => ({ ...o, ...e, xid: ROLLED_UP_XID })));
  return { dailyRows: daily.length, events: events.length };
}

type SampleEvent = Omit<typeof intakeEvents.$inferInsert, "tenantId" | "livemode" | "xid"> & { receivedAt: Date };

/** The live list's sample: 12 events of the hour before `atMs`, oldest first. */
function sampleEvents(atMs: number, leadIds: readonly string[], seed: number): SampleEvent[] {
  const at = (minutesAgo: number) => new Date(atMs - minutesAgo * MIN_MS);
  const view = (
    id: string,
    minutesAgo: number,
    source: string,
    kind: string,
    path: string,
    referrer: string | null,
  ) => ({
    receivedAt: at(minutesAgo),
    occurredAt: at(minutesAgo),
    eventId: id,
    status: "accepted",
    type: "page_view",
    source,
    kind,
    sessionStart: true,
    visitorKey: `anon-${seed.toString(36)}-${id}`,
    pageUrl: `https://demo-shop.example${path}`,
    pagePath: path,
    pageTitle: PAGES.find((p) => p.path === path)?.title ?? null,
    referrer,
  });
  const viewA = view("pv-1001", 58, "google", "search", "/blog/running-shoes-1", "https://www.google.com/");
  const viewB = view("pv-1002", 51, "chatgpt", "ai_assistant", "/catalog/trail", "https://chatgpt.com/");
  return [
    viewA,
    viewB,
    { ...viewA, receivedAt: at(50), status: "duplicate", sessionStart: false },
    view("pv-1003", 44, "yandex", "search", "/", "https://ya.ru/"),
    {
      receivedAt: at(37),
      occurredAt: at(37),
      eventId: "form-2001",
      status: "accepted",
      type: "form_submit",
      source: "google",
      kind: "search",
      pagePath: "/catalog/trail",
      pageUrl: "https://demo-shop.example/catalog/trail",
      leadId: leadIds[0] ?? null,
      leadEffect: "lead_created",
      properties: { form: "callback" },
    },
    view("pv-1004", 30, "direct", "direct", "/delivery", null),
    {
      receivedAt: at(26),
      eventId: "evt-bad-1",
      status: "rejected",
      type: "signup",
      errors: [{ field: "/events/0/occurred_at", code: "out_of_range", message: "must be within the last 7 days" }],
    },
    view("pv-1005", 21, "perplexity", "ai_assistant", "/blog/running-shoes-1", "https://www.perplexity.ai/"),
    {
      receivedAt: at(15),
      occurredAt: at(16),
      eventId: "order-3001",
      status: "accepted",
      type: "purchase",
      source: "direct",
      kind: "direct",
      orderId: "3001",
      valueMinor: 1_249_000n,
      currency: "RUB",
      leadId: leadIds[1] ?? null,
      leadEffect: "lead_won",
    },
    {
      receivedAt: at(9),
      eventId: "order-3001",
      status: "duplicate",
      type: "purchase",
      source: "direct",
      kind: "direct",
    },
    view("pv-1006", 4, "social", "social", "/", "https://vk.com/"),
    {
      receivedAt: at(2),
      eventId: null,
      status: "rejected",
      type: null,
      errors: [{ field: "/events/1/type", code: "invalid_value", message: "must be a known type or custom:<name>" }],
    },
  ];
}
