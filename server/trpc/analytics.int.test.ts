import { TRPCError } from "@trpc/server";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyticsDaily, intakeEvents, tenants } from "@/db/schema";
import { setClock } from "@/server/lib/clock";
import { analyticsOverview, liveEvents } from "@/server/services/analytics/analytics-console";
import { seedSampleAnalytics } from "@/server/services/analytics/sample-analytics";
import { ensurePartitions } from "@/server/services/intake/partitions";
import { setPreview } from "@/server/services/tenants/previews";
import { makeStaff, makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { createCaller } from "./root";

// The console's Analytics page (issue 74 item 7), as a member with no right: 30 UTC days of sessions, leads
// and revenue (RUB text) and the traffic sources from the daily rollups; the live list of the last 50
// events intake received, newest first, with a rejected event's first error. Only the tenant's rows of the
// console's mode count: the sandbox's in Test mode, never another tenant's. The demo's sample analytics
// (sample-analytics.ts) fit the tables and read back. Runs on PGlite and PostgreSQL.

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 11, 6, 12, 0, 0);
const day = (daysAgo: number) => new Date(NOW - daysAgo * DAY).toISOString().slice(0, 10);

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let other: TenantFixture;
let member: { id: string; email: string; name: string };
let outsider: { id: string; email: string; name: string };
const as = (s: typeof member, testMode = false) => createCaller({ db: db.db, staff: s, testMode });

/** An `analytics_daily` row as the rollup job writes one. */
const rollup = (
  tenantId: string,
  livemode: boolean,
  daysAgo: number,
  source: string,
  kind: string,
  n: { sessions: number; visitors?: number; leads?: number; revenueMinor?: bigint },
) => ({
  tenantId,
  livemode,
  day: day(daysAgo),
  source,
  kind,
  sessions: n.sessions,
  visitors: n.visitors ?? n.sessions,
  leads: n.leads ?? 0,
  revenueMinor: n.revenueMinor ?? 0n,
});

/** An `intake_events` row received `secondsAgo` before NOW. */
const received = (
  tenantId: string,
  livemode: boolean,
  secondsAgo: number,
  eventId: string | null,
  extra: Partial<typeof intakeEvents.$inferInsert> = {},
) => ({
  tenantId,
  livemode,
  receivedAt: new Date(NOW - secondsAgo * 1000),
  eventId,
  status: "accepted",
  type: "page_view",
  source: "google",
  kind: "search",
  pagePath: "/",
  ...extra,
});

beforeAll(async () => {
  setClock(() => NOW);
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  other = await makeTenant(db.db);
  member = { id: await makeStaff(db.db, t.tenantId, []), email: "m@x.example", name: "M" };
  outsider = { id: await makeStaff(db.db, other.tenantId, []), email: "o@x.example", name: "O" };
  // Test mode without its sample data: the sandbox holds only this file's rows.
  await setPreview(db.db, t.tenantId, "test-mode", true);
  await db.db
    .update(tenants)
    .set({ sandboxSeededAt: new Date(NOW) })
    .where(eq(tenants.id, t.tenantId));

  await db.db.insert(analyticsDaily).values([
    rollup(t.tenantId, true, 0, "google", "search", { sessions: 10, visitors: 8, leads: 2, revenueMinor: 123_456n }),
    rollup(t.tenantId, true, 0, "chatgpt", "ai_assistant", { sessions: 4, leads: 1 }),
    rollup(t.tenantId, true, 2, "google", "search", { sessions: 5, visitors: 5, revenueMinor: 50n }),
    rollup(t.tenantId, true, 29, "direct", "direct", { sessions: 4, leads: 1 }),
    // Outside the window, the sandbox, another tenant: never counted.
    rollup(t.tenantId, true, 30, "yandex", "search", { sessions: 1000 }),
    rollup(t.tenantId, false, 0, "google", "search", { sessions: 7, leads: 3, revenueMinor: 900n }),
    rollup(other.tenantId, true, 0, "google", "search", { sessions: 99, leads: 9 }),
  ]);
  await ensurePartitions(db.db, [NOW, NOW - DAY]);
  await db.db.insert(intakeEvents).values([
    // 52 older page views, then the newest three; one batch of two shares its received_at.
    ...Array.from({ length: 52 }, (_, i) => received(t.tenantId, true, 3600 + i, `pv-${i}`)),
    received(t.tenantId, true, 30, "order-1", { type: "purchase", leadEffect: "lead_won", source: "direct" }),
    received(t.tenantId, true, 20, "pv-0", { status: "duplicate" }),
    received(t.tenantId, true, 20, null, {
      status: "rejected",
      type: null,
      source: null,
      pagePath: null,
      errors: [
        { field: "/events/1/type", code: "invalid_value", message: "must be a known type" },
        { field: "/events/1/occurred_at", code: "required", message: "is required" },
      ],
    }),
    received(t.tenantId, false, 10, "sandbox-1", { type: "form_submit", leadEffect: "lead_created" }),
    received(other.tenantId, true, 5, "theirs-1"),
  ]);
});
afterAll(async () => {
  setClock(undefined);
  await db.drop();
});

describe("analytics in the console", () => {
  it("charts 30 days of sessions, leads, revenue and sources from the rollups, live only", async () => {
    const o = await as(member).analytics.overview({ tenantId: t.tenantId });
    expect([o.from, o.to]).toEqual([day(29), day(0)]);
    expect(o.days).toHaveLength(30);
    expect(o.days.at(-1)).toEqual({
      day: day(0),
      sessions: 14,
      leads: 3,
      revenueMinor: "123456",
      revenueRub: "1234.56",
    });
    expect(o.days[27]).toEqual({ day: day(2), sessions: 5, leads: 0, revenueMinor: "50", revenueRub: "0.50" });
    expect(o.days[0]).toMatchObject({ day: day(29), sessions: 4, leads: 1, revenueRub: "0.00" });
    expect(o.days[1]).toMatchObject({ sessions: 0, leads: 0, revenueRub: "0.00" });
    expect(o.totals).toEqual({ sessions: 23, leads: 4, revenueMinor: "123506", revenueRub: "1235.06" });
    expect(o.sources).toEqual([
      { source: "google", kind: "search", sessions: 15, visitors: 13, leads: 2, dealsWon: 0, revenueMinor: 123506 },
      { source: "chatgpt", kind: "ai_assistant", sessions: 4, visitors: 4, leads: 1, dealsWon: 0, revenueMinor: 0 },
      { source: "direct", kind: "direct", sessions: 4, visitors: 4, leads: 1, dealsWon: 0, revenueMinor: 0 },
    ]);
    expect(o.intakePreview).toBe(false);
    await setPreview(db.db, t.tenantId, "event-intake", true);
    expect((await as(member).analytics.overview({ tenantId: t.tenantId })).intakePreview).toBe(true);
  });

  it("lists the last 50 received events newest first, with a rejected event's first error", async () => {
    const live = await as(member).analytics.live({ tenantId: t.tenantId });
    expect(live).toHaveLength(50);
    // Events of one batch share their received_at: by event_id then, one without an id last.
    expect(live.slice(0, 4)).toEqual([
      expect.objectContaining({ eventId: "pv-0", status: "duplicate", error: null }),
      {
        receivedAt: new Date(NOW - 20_000).toISOString(),
        eventId: null,
        type: null,
        status: "rejected",
        source: null,
        pagePath: null,
        leadEffect: null,
        error: { field: "/events/1/type", code: "invalid_value", message: "must be a known type" },
      },
      expect.objectContaining({ eventId: "order-1", type: "purchase", status: "accepted", leadEffect: "lead_won" }),
      expect.objectContaining({ eventId: "pv-0", status: "accepted", source: "google", pagePath: "/" }),
    ]);
    const times = live.map((e) => Date.parse(e.receivedAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(live.at(-1)!.eventId).toBe("pv-46");
    expect(JSON.stringify(live)).not.toMatch(/sandbox-1|theirs-1/);
  });

  it("shows the sandbox's rows only in Test mode, and never another tenant's", async () => {
    const o = await as(member, true).analytics.overview({ tenantId: t.tenantId });
    expect(o.totals).toEqual({ sessions: 7, leads: 3, revenueMinor: "900", revenueRub: "9.00" });
    expect(o.sources.map((s) => s.source)).toEqual(["google"]);
    const live = await as(member, true).analytics.live({ tenantId: t.tenantId });
    expect(live.map((e) => [e.eventId, e.leadEffect])).toEqual([["sandbox-1", "lead_created"]]);

    const theirs = await as(outsider).analytics.overview({ tenantId: other.tenantId });
    expect(theirs.totals).toMatchObject({ sessions: 99, leads: 9 });
    expect((await as(outsider).analytics.live({ tenantId: other.tenantId })).map((e) => e.eventId)).toEqual([
      "theirs-1",
    ]);
    const refused = await as(outsider)
      .analytics.live({ tenantId: t.tenantId })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TRPCError);
    expect((refused as TRPCError).code).toBe("NOT_FOUND");
  });

  it("the demo's sample analytics read back: 30 days, 7 sources, 12 events of every status", async () => {
    // Into the other tenant's sandbox (empty so far), read by the services as the console would in Test mode.
    const owner = { tenantId: other.tenantId, livemode: false };
    expect(await seedSampleAnalytics(db.db, owner, NOW)).toEqual({ dailyRows: 210, events: 12 });
    const actor = { via: "console" as const, staffUserId: outsider.id, rights: [], ...owner };
    const o = await analyticsOverview(db.db, actor);
    expect(o.sources.map((s) => s.source)).toHaveLength(7);
    expect(o.days.every((d) => d.sessions > 0)).toBe(true);
    expect(BigInt(o.totals.revenueMinor)).toBeGreaterThan(0n);
    const live = await liveEvents(db.db, actor);
    expect(live).toHaveLength(12);
    expect(new Set(live.map((e) => e.status))).toEqual(new Set(["accepted", "duplicate", "rejected"]));
    expect(live[0]).toMatchObject({ status: "rejected", error: { code: "invalid_value" } });
    // The live tenant's figures did not move.
    expect((await as(outsider).analytics.overview({ tenantId: other.tenantId })).totals.sessions).toBe(99);
  });
});
