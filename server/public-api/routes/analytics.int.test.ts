import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/db/rows";
import { analyticsDaily, dashboardBlocks, intakeEvents } from "@/db/schema";
import { GET as serveDocument } from "@/app/api/public/v1/openapi.json/route";
import { setClock } from "@/server/lib/clock";
import { ensurePartitions } from "@/server/services/intake/partitions";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { setPreview } from "@/server/services/tenants/previews";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { sandboxKey } from "@/server/testing/sandbox-key";
import { rollUpAll } from "@/server/testing/intake-rollups";
import { openTestDatabase } from "@/server/testing/test-db";

// The analytics reads of the `event-intake` preview (issue 74 item 3) and the dashboard's blocks made from the
// same rollups: shapes checked against the preview's document by `call`, zero days, weekly buckets, the
// comparison with the previous period, several metrics as `items`, `no_source` metrics, validation, the
// Planned 404 without the preview, sandbox separation. Events are written as raw rows and rolled up by the
// job. A fixed clock: "yesterday" does not move under the test. PGlite, and PostgreSQL with DATABASE_URL.

const DAY = 86_400_000;
const T0 = Date.now();
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** The date `n` days before yesterday (the last full day). */
const Y = (n = 0) => dayOf(Math.floor(T0 / DAY) * DAY - (n + 1) * DAY);
const P = { preview: "event-intake" as const };

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let sandbox: string;

const get = (path: string, key = t.key) => call("GET", path, { key, ...P });

/** A raw accepted event of `x` that occurred at noon of `day`. */
function ev(x: TenantFixture, day: string, e: Partial<typeof intakeEvents.$inferInsert>) {
  return {
    receivedAt: new Date(T0),
    tenantId: x.tenantId,
    status: "accepted",
    type: "page_view",
    occurredAt: new Date(`${day}T12:00:00Z`),
    ...e,
  };
}
const view = (x: TenantFixture, day: string, source: string, kind: string, visitorKey: string, more = {}) =>
  ev(x, day, { source, kind, visitorKey, sessionStart: true, pagePath: "/a", pageTitle: "A", ...more });

beforeAll(async () => {
  setClock(() => T0);
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  await setPreview(db.db, t.tenantId, "event-intake", true);
  await setLimitOverride(db.db, { tenantId: t.tenantId }, { readPerMin: 100_000 });
  sandbox = await sandboxKey(db.db, t);
  await ensurePartitions(db.db, [T0]);
  await db.db.insert(intakeEvents).values([
    // Yesterday-1: three sessions (google, chatgpt, direct), a second google page view, a lead.
    view(t, Y(1), "google", "search", "v1"),
    view(t, Y(1), "google", "search", "v1", { sessionStart: false, pagePath: "/b", pageTitle: null }),
    view(t, Y(1), "chatgpt", "ai_assistant", "v2"),
    view(t, Y(1), "direct", "direct", "v3"),
    ev(t, Y(1), {
      type: "form_submit",
      source: "google",
      kind: "search",
      visitorKey: "v1",
      leadEffect: "lead_created",
    }),
    // Yesterday-4: a google session and a direct purchase of 123.45.
    view(t, Y(4), "google", "search", "v4"),
    ev(t, Y(4), { type: "purchase", source: "direct", kind: "direct", valueMinor: 12_345n, currency: "RUB" }),
    // The previous 7-day period: one session.
    view(t, Y(9), "google", "search", "v5"),
    // Not counted: a rejected event, and today's (after the last full day).
    ev(t, Y(1), { status: "rejected", source: "google", kind: "search", sessionStart: true }),
    view(t, dayOf(T0), "google", "search", "v9"),
    // The tenant's sandbox: five sessions of its own.
    ...Array.from({ length: 5 }, (_, i) => ({ ...view(t, Y(1), "yandex", "search", `s${i}`), livemode: false })),
  ]);
  await rollUpAll(db.db);
});
afterAll(async () => {
  setClock(undefined);
  await db.drop();
});

describe("without the preview", () => {
  it("answers the Planned 404 before authentication; only the preview's document has the routes", async () => {
    const off = await makeTenant(db.db);
    for (const key of [off.key, "pk_live_not_a_key"])
      for (const path of ["/analytics/timeseries?metric=sessions", "/analytics/traffic-sources", "/analytics/funnel"]) {
        const r = await call("GET", path, { key });
        expect([r.status, r.body.code], path).toEqual([404, "not_found"]);
      }
    type Doc = { paths: Record<string, Record<string, unknown>> };
    const doc = async (q: string) =>
      (await serveDocument(new Request(`https://api.example.ru/api/public/v1/openapi.json${q}`)).json()) as Doc;
    const [base, preview] = [await doc(""), await doc("?preview=event-intake")];
    for (const p of ["/analytics/timeseries", "/analytics/traffic-sources", "/analytics/funnel"]) {
      expect(base.paths[p], p).toBeUndefined();
      expect(preview.paths[p]?.get, p).toBeDefined();
    }
  });
});

describe("GET /analytics/timeseries", () => {
  const period = `from=${Y(6)}&to=${Y(0)}`;

  it("answers one metric as its item: every day, zeros between, the comparison and the summary", async () => {
    const r = await get(`/analytics/timeseries?metric=sessions&${period}`);
    expect(r.status).toBe(200);
    const item = r.body.data;
    expect(item).toMatchObject({
      metric: "sessions",
      from: Y(6),
      to: Y(0),
      granularity: "day",
      agg: "sum",
      engine: null,
      availability: "ok",
      reason: null,
      comparison: { current: 4, prev: 1, delta_pct: 300, data_through: Y(0) },
      summary: { total: 4, latest: 0, non_zero_days: 2 },
      cluster_applied: false,
      data_as_of: { intake: Y(0) },
      currency: null,
    });
    expect(item.series).toEqual(
      [6, 5, 4, 3, 2, 1, 0].map((n) => ({ date: Y(n), value: n === 1 ? 3 : n === 4 ? 1 : 0 })),
    );
  });

  it("answers several metrics as items in request order: counts, money as a decimal string, no_source", async () => {
    const r = await get(
      `/analytics/timeseries?metric=revenue,visitors,impressions,pageviews,ai_referrals,leads,deals_won,bounce_rate&${period}`,
    );
    expect(r.status).toBe(200);
    const items = r.body.data.items as { metric: string; [k: string]: unknown }[];
    expect(items.map((i) => i.metric)).toEqual([
      "revenue",
      "visitors",
      "impressions",
      "pageviews",
      "ai_referrals",
      "leads",
      "deals_won",
      "bounce_rate",
    ]);
    const [revenue, visitors, impressions, pageviews, ai, leads, won, bounce] = items;
    expect(revenue).toMatchObject({ currency: "RUB", summary: { total: "123.45", non_zero_days: 1 } });
    expect(revenue!.comparison).toMatchObject({ current: "123.45", prev: "0.00", delta_pct: null });
    expect((revenue!.series as { value: unknown }[]).every((p) => typeof p.value === "string")).toBe(true);
    expect(visitors!.summary).toMatchObject({ total: 4 });
    expect(pageviews!.summary).toMatchObject({ total: 5 });
    expect(ai!.summary).toMatchObject({ total: 1 });
    expect(leads!.summary).toMatchObject({ total: 1 });
    expect(won!.summary).toMatchObject({ total: 1 });
    for (const x of [impressions, bounce])
      expect(x).toMatchObject({
        availability: "no_source",
        series: [],
        comparison: { current: null, prev: null, delta_pct: null, data_through: null },
        summary: { total: null, latest: null, non_zero_days: 0 },
      });
    expect(impressions!.reason).toBe("no search console connected");
    expect(bounce!.reason).toEqual(expect.any(String));
  });

  it("buckets weeks on their Monday, averages a day, and trims `to` to the last full day", async () => {
    const from = Y(20);
    const weekly = (
      await get(`/analytics/timeseries?metric=pageviews&from=${from}&to=${dayOf(T0 + 5 * DAY)}&granularity=week`)
    ).body.data;
    expect(weekly.to).toBe(Y(0));
    const dates = (weekly.series as { date: string }[]).map((p) => p.date);
    expect(dates.every((d) => new Date(`${d}T00:00:00Z`).getUTCDay() === 1)).toBe(true);
    expect(dates[0]! <= from && dates.at(-1)! <= Y(0)).toBe(true);
    expect(new Set(dates).size).toBe(dates.length);
    expect((weekly.series as { value: number }[]).reduce((n, p) => n + p.value, 0)).toBe(6);
    expect(weekly.summary.total).toBe(6);
    const avg = (await get(`/analytics/timeseries?metric=sessions&${period}&agg=avg`)).body.data;
    expect(avg.comparison).toMatchObject({ current: 0.57, prev: 0.14, delta_pct: 300 });
  });

  it("refuses bad queries with 422 and the field's pointer", async () => {
    for (const [q, field] of [
      ["", "/metric"],
      ["metric=sessions,visits", "/metric"],
      ["metric=sessions&granularity=month", "/granularity"],
      ["metric=sessions&agg=median", "/agg"],
      ["metric=sessions&from=2026-02-30", "/from"],
      [`metric=sessions&from=${Y(0)}&to=${Y(3)}`, "/from"],
      [`metric=sessions&from=${Y(400)}&to=${Y(0)}`, "/from"],
      ["metric=sessions&engine=google", "/engine"],
    ] as const) {
      const r = await get(`/analytics/timeseries?${q}`);
      expect([r.status, r.body.code], q).toEqual([422, "validation_failed"]);
      expect(r.body.errors[0].field, q).toBe(field);
    }
  });

  it("keeps the sandbox apart: a test key reads its own events, the live key never them; no events is no_data", async () => {
    const q = `/analytics/timeseries?metric=sessions&from=${Y(1)}&to=${Y(1)}`;
    expect((await get(q)).body.data.summary.total).toBe(3);
    const test = await get(q, sandbox);
    // The sandbox's sessions that day: its five and the sample the first test request seeded (then rolled up).
    const [own] = rowsOf<{ n: number }>(
      await db.db.execute(sql`select coalesce(sum(sessions), 0)::int as n from ${analyticsDaily}
        where tenant_id = ${t.tenantId} and not livemode and day = ${Y(1)}::date`),
    );
    expect(test.body.data.summary.total).toBe(own!.n);
    expect(own!.n).toBeGreaterThanOrEqual(5);
    const empty = await makeTenant(db.db);
    await setPreview(db.db, empty.tenantId, "event-intake", true);
    const none = await get("/analytics/timeseries?metric=leads", empty.key);
    expect(none.body.data).toMatchObject({
      availability: "no_data",
      data_as_of: {},
      comparison: { data_through: null },
    });
    expect(none.body.data.series).toHaveLength(30);
  });
});

describe("GET /analytics/traffic-sources", () => {
  it("lists sources with more sessions first, with their visitors and leads, and daily series on request", async () => {
    const r = await get(`/analytics/traffic-sources?from=${Y(6)}&to=${Y(0)}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: [
        { source: "google", kind: "search", sessions: 2, visitors: 2, leads: 1 },
        { source: "chatgpt", kind: "ai_assistant", sessions: 1, visitors: 1, leads: 0 },
        { source: "direct", kind: "direct", sessions: 1, visitors: 1, leads: 0 },
      ],
      data_as_of: { intake: Y(0) },
    });
    const s = await get(`/analytics/traffic-sources?from=${Y(6)}&to=${Y(0)}&include=series`);
    const google = s.body.data[0];
    expect(google.series).toHaveLength(7);
    expect(google.series.filter((p: { value: number }) => p.value > 0)).toEqual([
      { date: Y(4), value: 1 },
      { date: Y(1), value: 1 },
    ]);
    expect((await get("/analytics/traffic-sources?include=everything")).status).toBe(422);
  });
});

describe("GET /analytics/funnel", () => {
  it("answers the steps in order, the unconnected ones no_source, and the splits by channel and engine", async () => {
    const r = await get(`/analytics/funnel?from=${Y(6)}&to=${Y(0)}`);
    expect(r.status).toBe(200);
    const f = r.body.data;
    expect(f).toMatchObject({
      engine: "both",
      from: Y(6),
      to: Y(0),
      by_product: [],
      crm: { availability: "ok" },
      currency: "RUB",
    });
    expect(r.body.data_as_of).toEqual({ intake: Y(0) });
    const steps = Object.fromEntries((f.steps as { key: string }[]).map((s) => [s.key, s]));
    expect(f.steps.map((s: { key: string }) => s.key)).toEqual([
      "impressions",
      "clicks",
      "sessions",
      "leads",
      "deals_created",
      "deals_won",
      "revenue",
    ]);
    for (const k of ["impressions", "clicks"])
      expect(steps[k]).toMatchObject({
        availability: "no_source",
        reason: "no search console connected",
        current: null,
      });
    expect(steps.deals_created).toMatchObject({ availability: "no_source" });
    expect(steps.sessions).toMatchObject({
      availability: "ok",
      sources: ["intake"],
      unit: "count",
      current: 4,
      prev: 1,
      delta_pct: 300,
      data_through: Y(0),
    });
    expect(steps.leads).toMatchObject({ current: 1, prev: 0, delta_pct: null });
    expect(steps.deals_won).toMatchObject({ unit: "count", current: 1 });
    expect(steps.revenue).toMatchObject({ unit: "money", current: "123.45", prev: "0.00", currency: "RUB" });
    expect(f.by_channel).toEqual([
      { kind: "search", sessions: 2, leads: 1, deals_won: 0, revenue: "0.00" },
      { kind: "ai_assistant", sessions: 1, leads: 0, deals_won: 0, revenue: "0.00" },
      { kind: "direct", sessions: 1, leads: 0, deals_won: 1, revenue: "123.45" },
    ]);
    expect(f.search_by_engine).toEqual([
      { engine: "google", sessions: 2, leads: 1, deals_won: 0, revenue: "0.00" },
      { engine: "yandex", sessions: 0, leads: 0, deals_won: 0, revenue: "0.00" },
      { engine: "bing", sessions: 0, leads: 0, deals_won: 0, revenue: "0.00" },
    ]);
    const before = await get(`/analytics/funnel?from=${Y(30)}&to=${Y(20)}`);
    expect(before.body.data.crm).toMatchObject({ availability: "no_data" });
    expect(before.body.data.steps[2]).toMatchObject({ key: "sessions", availability: "no_data", current: 0 });
  });
});

describe("GET /dashboards/overview", () => {
  const q = `/dashboards/overview?from=${Y(6)}&to=${Y(0)}&blocks=kpi,funnel,popular_pages,ads`;

  it("takes kpi, funnel and popular_pages from the rollups for a tenant with the preview", async () => {
    await db.db.insert(dashboardBlocks).values([
      {
        tenantId: t.tenantId,
        block: "kpi",
        availability: "ok",
        dataAsOf: { analytics: "2026-11-20" },
        payload: { sessions: 1200 },
      },
      { tenantId: t.tenantId, block: "ads", availability: "no_source", reason: "No ads account linked", dataAsOf: {} },
    ]);
    const r = await call("GET", q, { key: t.key });
    expect(r.status).toBe(200);
    const { kpi, funnel, popular_pages: pages, ads } = r.body.data.blocks;
    expect(kpi).toMatchObject({
      availability: "ok",
      data_as_of: { intake: Y(0) },
      sessions: 4,
      visitors: 4,
      pageviews: 5,
      leads: 1,
      deals_won: 1,
      revenue: { amount: "123.45", currency: "RUB" },
      previous: { sessions: 1 },
      delta_pct: { sessions: 300, leads: null },
    });
    expect(funnel).toMatchObject({ availability: "ok", sessions: 4, data_as_of: { intake: Y(0) } });
    expect(funnel.steps.map((s: { key: string }) => s.key)).toContain("revenue");
    expect(pages).toEqual({
      availability: "ok",
      data_as_of: { intake: Y(0) },
      pages: [
        { path: "/a", title: "A", pageviews: 4 },
        { path: "/b", title: null, pageviews: 1 },
      ],
    });
    expect(ads).toEqual({ availability: "no_source", reason: "No ads account linked", data_as_of: {} });
  });

  it("is unchanged for a tenant without the preview; no_data for one with it and no events", async () => {
    const off = await makeTenant(db.db);
    await db.db.insert(dashboardBlocks).values({
      tenantId: off.tenantId,
      block: "kpi",
      availability: "ok",
      dataAsOf: { analytics: "2026-11-20" },
      payload: { sessions: 1200 },
    });
    await db.db.insert(intakeEvents).values(view(off, Y(1), "google", "search", "v1"));
    await rollUpAll(db.db);
    const r = await call("GET", q, { key: off.key });
    expect(r.body.data.blocks).toMatchObject({
      kpi: { availability: "ok", sessions: 1200, data_as_of: { analytics: "2026-11-20" } },
      funnel: { availability: "not_connected", data_as_of: {} },
      popular_pages: { availability: "not_connected", data_as_of: {} },
    });
    const empty = await makeTenant(db.db);
    await setPreview(db.db, empty.tenantId, "event-intake", true);
    const e = await call("GET", q, { key: empty.key });
    for (const b of ["kpi", "funnel", "popular_pages"])
      expect(e.body.data.blocks[b], b).toMatchObject({ availability: "no_data", data_as_of: {} });
  });
});
