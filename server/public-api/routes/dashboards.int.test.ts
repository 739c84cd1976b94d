import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboardBlocks } from "@/db/schema";
import { DASHBOARD_BLOCKS } from "@/server/schemas/dashboards";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let failing: TenantFixture;

const DAY = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** The last full day (UTC) and its neighbours, computed the way a client would. */
const today = () => day(Date.now());
const yesterday = () => day(Date.now() - DAY);
const get = (q = "", key = t.key) => call("GET", `/dashboards/overview${q ? `?${q}` : ""}`, { key });

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  failing = await makeTenant(db.db);
  await db.db.insert(dashboardBlocks).values([
    {
      tenantId: t.tenantId,
      block: "kpi",
      availability: "ok",
      dataAsOf: { analytics: "2026-11-20", crm: "2026-11-19" },
      payload: { sessions: 1200, leads: 14, availability: "spoofed" },
    },
    { tenantId: t.tenantId, block: "ads", availability: "no_source", reason: "No ads account linked", dataAsOf: {} },
    { tenantId: t.tenantId, block: "funnel", availability: "no_data", dataAsOf: {}, payload: null },
    {
      tenantId: failing.tenantId,
      block: "kpi",
      availability: "ok",
      dataAsOf: { analytics: "2026-11-20" },
      payload: { sessions: 1 },
    },
    { tenantId: failing.tenantId, block: "ads", availability: "ok", dataAsOf: {}, sourceError: "ads API timed out" },
  ]);
});
afterAll(async () => db.drop());

describe("GET /dashboards/overview", () => {
  it("answers all eleven blocks for the last 30 full days by default", async () => {
    const r = await get();
    expect(r.status).toBe(200);
    expect(r.body.data.to).toBe(yesterday());
    expect(r.body.data.from).toBe(day(Date.parse(`${yesterday()}T00:00:00Z`) - 29 * DAY));
    expect(Object.keys(r.body.data.blocks)).toEqual([...DASHBOARD_BLOCKS]);
    expect(r.body.data.blocks.kpi).toEqual({
      availability: "ok",
      data_as_of: { analytics: "2026-11-20", crm: "2026-11-19" },
      sessions: 1200,
      leads: 14,
    });
    expect(r.body.data.blocks.ads).toEqual({
      availability: "no_source",
      reason: "No ads account linked",
      data_as_of: {},
    });
    expect(r.body.data.blocks.funnel).toEqual({ availability: "no_data", data_as_of: {} });
    expect(r.body.data.blocks.strategist).toEqual({ availability: "not_connected", data_as_of: {} });
    expect(r.body.data.blocks.status).toEqual({ availability: "not_connected", data_as_of: {} });
  });

  it("answers only the requested blocks, in the spec's order", async () => {
    const r = await get("blocks=status,kpi,kpi");
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.data.blocks)).toEqual(["kpi", "status"]);
  });

  it.each([
    ["today", () => today()],
    ["a future date", () => "2999-12-31"],
  ])("trims to = %s to the last full day and answers the trimmed value", async (_n, to) => {
    const r = await get(`to=${to()}&from=2026-01-01`);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ from: "2026-01-01", to: yesterday() });
  });

  it("keeps a past period as asked and defaults from to 29 days before to", async () => {
    expect((await get("from=2026-02-01&to=2026-02-28")).body.data).toMatchObject({
      from: "2026-02-01",
      to: "2026-02-28",
    });
    expect((await get("to=2026-03-30")).body.data).toMatchObject({ from: "2026-03-01", to: "2026-03-30" });
    expect((await get("from=2026-03-05&to=2026-03-05")).body.data).toMatchObject({
      from: "2026-03-05",
      to: "2026-03-05",
    });
  });

  it.each([
    ["from=2026-03-10&to=2026-03-09", "/from"],
    [`from=${"2999-01-01"}`, "/from"], // after the trimmed default to
    ["from=2026-02-30", "/from"],
    ["from=2026-3-1", "/from"],
    ["to=2026-13-01", "/to"],
    ["to=yesterday", "/to"],
    ["blocks=kpi,weather", "/blocks"],
    ["blocks=", "/blocks"],
    ["period=30d", "/period"],
  ])("answers %s with 422 on %s", async (q, field) => {
    const r = await get(q);
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("validation_failed");
    expect(r.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it("answers 503 with Retry-After when a requested block's source is failing, never an empty block", async () => {
    const all = await get("", failing.key);
    expect(all.status).toBe(503);
    expect(all.body.code).toBe("service_unavailable");
    expect(Number(all.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(all.text).not.toContain("ads API timed out");
    expect((await get("blocks=ads", failing.key)).status).toBe(503);
  });

  it("serves the other blocks of that tenant when the failing one is not asked for", async () => {
    const r = await get("blocks=kpi,funnel", failing.key);
    expect(r.status).toBe(200);
    expect(r.body.data.blocks).toEqual({
      kpi: { availability: "ok", data_as_of: { analytics: "2026-11-20" }, sessions: 1 },
      funnel: { availability: "not_connected", data_as_of: {} },
    });
  });

  it("needs dashboards:read", async () => {
    const narrow = await makeTenant(db.db, { scopes: ["cards:read"] });
    const r = await get("", narrow.key);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("scope_missing");
  });
});
