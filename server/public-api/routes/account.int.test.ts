import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { integrationDailySpend, integrations } from "@/db/schema";
import { eq } from "drizzle-orm";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
});
afterAll(async () => db.drop());

describe("GET /me", () => {
  it("answers the key, tenant, scopes, limits and wallet", async () => {
    const r = await call("GET", "/me", { key: t.key });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{32}$/);
    expect(r.body.tenant.id).toBe(t.tenantId);
    expect(r.body.key.key_id).toBe(t.keyId);
    expect(r.body.base_url).toBe("https://api.example.ru/api/public/v1");
  });

  it("answers the integration's api channel and today's spend against its limit", async () => {
    const today = new Date().toISOString().slice(0, 10);
    await db.db
      .insert(integrationDailySpend)
      .values({ integrationId: t.integrationId, day: today, usedMinor: 12_345n });
    await db.db
      .insert(integrationDailySpend)
      .values({ integrationId: t.integrationId, day: "2020-01-01", usedMinor: 99_999n });
    await db.db.update(integrations).set({ dailySpendLimitMinor: 50_000n }).where(eq(integrations.id, t.integrationId));
    const me = await call("GET", "/me", { key: t.key });
    expect(me.body.channel_id).toBe(t.channelId);
    expect(me.body.wallet.daily_spend).toEqual({
      limit: { amount: "500.00", currency: "RUB" },
      used: { amount: "123.45", currency: "RUB" },
    });
    const wallet = await call("GET", "/wallet", { key: t.key });
    expect(wallet.body.daily_spend).toEqual(me.body.wallet.daily_spend);
  });
});
