import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, isApiError, type PlatformClient } from "@platform/sdk";
import { intakeEvents } from "@/db/schema";
import { ensurePartitions } from "@/server/services/intake/partitions";
import { setPreview } from "@/server/services/tenants/previews";
import { inProcessFetch, TEST_ORIGIN } from "@/server/testing/api-client";
import { makeTenant } from "@/server/testing/fixtures";
import { rollUpAll } from "@/server/testing/intake-rollups";
import { openTestDatabase } from "@/server/testing/test-db";

// The SDK's `analytics` (preview `event-intake`, issue 74) against the app (in-process API, every answer
// checked against the preview's document): several metrics in one call, traffic sources, the funnel; a tenant
// without the preview is told the routes do not exist.

const DAY = 86_400_000;
let db: Awaited<ReturnType<typeof openTestDatabase>>;
let client: PlatformClient;
let off: PlatformClient;
const yesterday = new Date(Date.now() - DAY).toISOString().slice(0, 10);

beforeAll(async () => {
  db = await openTestDatabase();
  const t = await makeTenant(db.db);
  await setPreview(db.db, t.tenantId, "event-intake", true);
  await ensurePartitions(db.db, [Date.now()]);
  const at = new Date(`${yesterday}T10:00:00Z`);
  await db.db.insert(intakeEvents).values([
    {
      receivedAt: new Date(),
      tenantId: t.tenantId,
      status: "accepted",
      type: "page_view",
      occurredAt: at,
      source: "perplexity",
      kind: "ai_assistant",
      sessionStart: true,
      visitorKey: "v1",
      pagePath: "/",
    },
    {
      receivedAt: new Date(),
      tenantId: t.tenantId,
      status: "accepted",
      type: "purchase",
      occurredAt: at,
      source: "perplexity",
      kind: "ai_assistant",
      valueMinor: 99_900n,
    },
  ]);
  await rollUpAll(db.db);
  const o = await makeTenant(db.db);
  const baseUrl = `${TEST_ORIGIN}/api/public/v1`;
  client = createClient({ baseUrl, apiKey: t.key, fetch: inProcessFetch({ preview: "event-intake" }) });
  off = createClient({ baseUrl, apiKey: o.key, fetch: inProcessFetch() });
});
afterAll(async () => db.drop());

describe("client.analytics", () => {
  it("reads several metrics in one call, one metric as a list of one, traffic sources and the funnel", async () => {
    const [sessions, revenue, clicks] = await client.analytics.timeseries(["sessions", "revenue", "clicks"], {
      from: yesterday,
      to: yesterday,
    });
    expect(sessions).toMatchObject({
      metric: "sessions",
      summary: { total: 1 },
      series: [{ date: yesterday, value: 1 }],
    });
    expect(revenue).toMatchObject({ metric: "revenue", currency: "RUB", summary: { total: "999.00" } });
    expect(clicks).toMatchObject({ availability: "no_source" });
    const one = await client.analytics.timeseries("ai_referrals", { granularity: "week" });
    expect(one).toHaveLength(1);
    expect(one[0]!.summary.total).toBe(1);
    const sources = await client.analytics.trafficSources({ include: "series" });
    expect(sources.data[0]).toMatchObject({ source: "perplexity", kind: "ai_assistant", sessions: 1, visitors: 1 });
    expect(sources.data[0]!.series).toHaveLength(30);
    const funnel = await client.analytics.funnel();
    expect(funnel.data.steps.find((s) => s.key === "revenue")).toMatchObject({ current: "999.00", unit: "money" });
  });

  it("answers a tenant without the preview with not_found", async () => {
    const err = await off.analytics.funnel().catch((e: unknown) => e);
    expect(isApiError(err, "not_found")).toBe(true);
  });
});
