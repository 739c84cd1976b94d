import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import {
  articles,
  conversations,
  dashboardBlocks,
  events,
  leads,
  products,
  strategistReports,
  strategistTopics,
  tenants,
} from "@/db/schema";
import { ApiError } from "@/server/errors";
import { setClock } from "@/server/lib/clock";
import { makeTenant } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { strategistReportCommand } from "@/scripts/admin-strategist-commands";
import { UsageError } from "@/scripts/admin-args";
import { toReport } from "./reports";
import { runStrategistReports, writeReport } from "./report-writer";
import { readStrategistFigures } from "./tenant-figures";

// The strategist's regular reports on a real database: written once per tenant, mode, type and date with
// their event, only for tenants with the preview, and from the tenant's own figures only.

const DAY = 86_400_000;
// A Monday, 10:00 UTC.
const MONDAY = new Date("2026-12-07T10:00:00Z");
const T0 = MONDAY.getTime();

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let a: string;
let b: string;

/** A tenant's world named after `word`, so another tenant's figures can be told apart by it. */
async function seedWorld(d: Db, tenantId: string, word: string, competitor: string) {
  const o = { tenantId, livemode: true };
  const [conv] = await d
    .insert(conversations)
    .values({ ...o, status: "handoff_pending" })
    .returning();
  await d.insert(leads).values([
    { ...o, source: `${word}-site`, createdAt: new Date(T0 - DAY), conversationId: conv!.id },
    { ...o, source: `${word}-site`, createdAt: new Date(T0 - 2 * DAY) },
    { ...o, source: `${word}-mail`, status: "won", createdAt: new Date(T0 - 9 * DAY), wonAt: new Date(T0 - DAY) },
  ]);
  await d.insert(articles).values({ ...o, title: `${word} article`, keyword: `${word} boots`, status: "published" });
  await d.insert(products).values({ ...o, name: `${word} card`, code: `${word}-1` });
  await d.insert(strategistTopics).values([
    { ...o, title: `Beat ${competitor} on ${word}`, source: "competitors", competitorDomain: competitor },
    { ...o, title: `How to choose ${word} boots`, source: "planner", status: "approved" },
  ]);
  await d.insert(strategistReports).values({
    ...o,
    reportDate: "2026-11-01",
    reportType: "daily",
    runKind: "creative",
    summaryText: "x",
    dataAsOf: {},
    highlights: [],
    concerns: [],
    actions: [],
    evidence: {},
    competitorNames: [`${word}Rival`],
  });
  await d.insert(dashboardBlocks).values({
    ...o,
    block: "kpi",
    availability: "ok",
    dataAsOf: { analytics: "2026-12-06" },
    payload: { sessions: 500, note: `${word}Rival is ahead` },
  });
}

beforeAll(async () => {
  db = await openTestDatabase();
  setClock(() => T0);
  a = (await makeTenant(db.db)).tenantId;
  b = (await makeTenant(db.db)).tenantId;
  await seedWorld(db.db, a, "alpha", "alpha-rival.example");
  await seedWorld(db.db, b, "bravo", "bravo-rival.example");
});
afterAll(async () => {
  setClock(undefined);
  await db.drop();
});

const setPreviews = (tenantId: string, previews: string[]) =>
  db.db.update(tenants).set({ previews }).where(eq(tenants.id, tenantId));

describe("the tenant's figures", () => {
  it("hold only the tenant's own data, competitors masked", async () => {
    const f = await readStrategistFigures(db.db, { tenantId: a });
    expect(f.leads.created.week).toEqual({ current: 2, previous: 1 });
    expect(f.leads.won.week).toEqual({ current: 1, previous: 0 });
    expect(f.leads.bySource.map((s) => s.source)).toEqual(["alpha-site", "alpha-mail"]);
    expect(f.conversations).toMatchObject({ total: 1, withLead: 1, byStatus: { handoff_pending: 1 } });
    expect(f.keywords).toEqual([{ keyword: "alpha boots", articles: 1 }]);
    expect(f.cards).toEqual([{ code: "alpha-1", name: "alpha card", priceText: null }]);
    expect(f.funnel).toEqual({ sessions: 500, leads: 3, won: 1 });
    expect(f.topics.map((t) => t.title).sort()).toEqual(["Beat a competitor on alpha", "How to choose alpha boots"]);
    expect(f.dataAsOf).toMatchObject({ analytics: "2026-12-06", leads: "2026-12-07" });
    const text = JSON.stringify(f);
    expect(text).not.toMatch(/bravo|alpha-rival|alphaRival/i);
    // The sandbox of the same tenant is another world: empty.
    expect((await readStrategistFigures(db.db, { tenantId: a, livemode: false })).leads.total).toBe(0);
  });
});

describe("writeReport", () => {
  it("writes a report once per type and date with its event, even when two runs race", async () => {
    const opts = { type: "daily" as const, date: "2026-12-01" };
    const [x, y] = await Promise.all([
      writeReport(db.db, { tenantId: a }, opts),
      writeReport(db.db, { tenantId: a }, opts),
    ]);
    expect(x.id).toBe(y.id);
    expect([x.created, y.created].sort()).toEqual([false, true]);
    const [row] = await db.db.select().from(strategistReports).where(eq(strategistReports.id, x.id));
    expect(row).toMatchObject({ runKind: "regular", model: "offline-analyst-1", costMinor: 0n, livemode: true });
    expect(row!.deliveredAt?.getTime()).toBe(T0);
    const report = toReport(row!);
    expect(report.data_as_of).toMatchObject({ snapshot: "2026-12-07", analytics: "2026-12-06" });
    expect(report.actions.length).toBeGreaterThan(0);
    expect(JSON.stringify(row, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v))).not.toMatch(
      /bravo|alpha-rival|alphaRival/i,
    );
    const evs = await db.db
      .select()
      .from(events)
      .where(and(eq(events.tenantId, a), eq(events.type, "strategist.report.ready")));
    expect(evs.map((e) => [e.data, e.livemode])).toEqual([[{ type: "strategist_report", report_id: x.id }, true]]);
  });
});

describe("runStrategistReports", () => {
  it("writes daily and, on Mondays, weekly reports for preview tenants only, sandbox with test-mode; once", async () => {
    await setPreviews(a, ["strategist", "test-mode"]);
    await setPreviews(b, ["article-generation"]);
    expect(await runStrategistReports(db.db, MONDAY)).toEqual({ reports: 4 });
    expect(await runStrategistReports(db.db, new Date(T0 + 3_600_000))).toEqual({ reports: 0 });
    const rows = await db.db
      .select({ t: strategistReports.tenantId, type: strategistReports.reportType, live: strategistReports.livemode })
      .from(strategistReports)
      .where(and(eq(strategistReports.reportDate, "2026-12-07"), eq(strategistReports.runKind, "regular")));
    expect(rows.map((r) => `${r.t === a ? "a" : "b"} ${r.type} ${r.live}`).sort()).toEqual([
      "a daily false",
      "a daily true",
      "a weekly false",
      "a weekly true",
    ]);
    // A Tuesday: the daily ones only (live and sandbox).
    expect(await runStrategistReports(db.db, new Date(T0 + DAY))).toEqual({ reports: 2 });
  });
});

describe("npm run admin -- strategist:report", () => {
  it("writes one now and answers what it wrote; refuses a bad type, date or tenant", async () => {
    const o = { tenant: b, type: "weekly", date: "2026-11-30", test: true };
    expect(await strategistReportCommand(db.db, o)).toMatchObject({
      created: true,
      tenant_id: b,
      report_type: "weekly",
      report_date: "2026-11-30",
      livemode: false,
    });
    expect(await strategistReportCommand(db.db, o)).toMatchObject({ created: false });
    await expect(strategistReportCommand(db.db, { tenant: b, type: "monthly" })).rejects.toThrow(UsageError);
    await expect(strategistReportCommand(db.db, { tenant: b, date: "2026-02-30" })).rejects.toThrow(UsageError);
    await expect(strategistReportCommand(db.db, { tenant: crypto.randomUUID() })).rejects.toThrow(ApiError);
  });
});
