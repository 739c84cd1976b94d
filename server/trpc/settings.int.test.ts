import { TRPCError } from "@trpc/server";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { channels, tenants, wallets } from "@/db/schema";
import { ApiError } from "@/server/errors";
import { createTenant } from "@/server/services/tenants/tenants";
import { call } from "@/server/testing/api-client";
import { makeStaff, makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { createCaller } from "./root";

// The console's Settings (issue 19 item 4): main domain (expands card page_url), each channel's AI daily
// limit and on/off, spend limits, CRM mode shown; changes need manage_integrations, checked on the server.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
const staff = (id: string) => ({ id, email: `${id}@x.example`, name: "S" });
let admin: ReturnType<typeof staff>;
let viewer: ReturnType<typeof staff>;
const as = (s: ReturnType<typeof staff>) => createCaller({ db: db.db, staff: s });

async function failure(p: Promise<unknown>): Promise<TRPCError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TRPCError);
  return err as TRPCError;
}
const fields = (e: TRPCError) =>
  e.cause instanceof ApiError ? e.cause.extras.errors?.map((f) => [f.field, f.code]) : null;
const domainOf = async (tenantId: string) =>
  (await db.db.select({ d: tenants.mainDomain }).from(tenants).where(eq(tenants.id, tenantId)))[0]!.d;

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  admin = staff(await makeStaff(db.db, t.tenantId, ["manage_integrations"]));
  viewer = staff(await makeStaff(db.db, t.tenantId, ["topup_wallet", "view_personal_data"]));
  await db.db.insert(channels).values({ tenantId: t.tenantId, type: "telegram", name: "Shop bot" });
});
afterAll(async () => db.drop());

describe("settings.get", () => {
  it("shows the main domain, every channel, spend limits, CRM mode, and whether the member may edit", async () => {
    const s = await as(viewer).settings.get({ tenantId: t.tenantId });
    expect(s).toMatchObject({
      mainDomain: "shop.example.ru",
      crmMode: "internal",
      limits: { max_operation_cost: { currency: "RUB" } },
      canEdit: false,
    });
    expect(s.channels.map((c) => [c.type, c.integrationId])).toEqual([
      ["api", t.integrationId],
      ["telegram", null],
    ]);
    expect((await as(admin).settings.get({ tenantId: t.tenantId })).canEdit).toBe(true);
  });
});

describe("main domain", () => {
  it("is stored as a host name and expands the cards' site paths from the next request", async () => {
    const created = await call("POST", "/cards", {
      key: t.key,
      idempotencyKey: crypto.randomUUID(),
      json: { code: "socks", name: "Socks", page_url: "/catalog/socks" },
    });
    expect(created.body.page_url).toBe("https://shop.example.ru/catalog/socks");
    const r = await as(admin).settings.setMainDomain({ tenantId: t.tenantId, mainDomain: "  Store.Example.COM. " });
    expect(r).toEqual({ mainDomain: "store.example.com" });
    const card = await call("GET", "/cards/socks", { key: t.key });
    expect(card.body.page_url).toBe("https://store.example.com/catalog/socks");
    await as(admin).settings.setMainDomain({ tenantId: t.tenantId, mainDomain: "магазин.рф" });
    expect(await domainOf(t.tenantId)).toBe("xn--80aairftm.xn--p1ai");
  });

  it("refuses what is not a host name, beside the field, and keeps the domain", async () => {
    await as(admin).settings.setMainDomain({ tenantId: t.tenantId, mainDomain: "shop.example.ru" });
    for (const bad of [
      "https://shop.example.ru/",
      "shop.example.ru:8443",
      "localhost",
      "203.0.113.7",
      "a..b.ru",
      "-x.ru",
    ]) {
      const e = await failure(as(admin).settings.setMainDomain({ tenantId: t.tenantId, mainDomain: bad }));
      expect([e.code, fields(e)], bad).toEqual(["BAD_REQUEST", [["/main_domain", "invalid_format"]]]);
    }
    expect(await domainOf(t.tenantId)).toBe("shop.example.ru");
    // The CLI's tenant:create shares the rule.
    await expect(createTenant(db.db, { name: "X", mainDomain: "https://x.ru" })).rejects.toMatchObject({
      code: "validation_failed",
    });
  });

  it("cannot be cleared while cards use site paths; can once none do", async () => {
    const e = await failure(as(admin).settings.setMainDomain({ tenantId: t.tenantId, mainDomain: null }));
    expect(fields(e)).toEqual([["/main_domain", "main_domain_in_use"]]);
    expect(await domainOf(t.tenantId)).toBe("shop.example.ru");
    const patched = await call("PATCH", "/cards/socks", {
      key: t.key,
      json: { page_url: "https://shop.example.ru/catalog/socks" },
    });
    expect(patched.status).toBe(200);
    expect(await as(admin).settings.setMainDomain({ tenantId: t.tenantId, mainDomain: "" })).toEqual({
      mainDomain: null,
    });
    await as(admin).settings.setMainDomain({ tenantId: t.tenantId, mainDomain: "shop.example.ru" });
  });
});

describe("channel AI", () => {
  it("changes one channel's daily limit and on/off; out of range is a field error and changes nothing", async () => {
    const s = await as(admin).settings.get({ tenantId: t.tenantId });
    const bot = s.channels.find((c) => c.type === "telegram")!;
    expect(
      await as(admin).settings.setChannelAi({
        tenantId: t.tenantId,
        channelId: bot.id,
        aiDailyLimit: 0,
        aiEnabled: false,
      }),
    ).toEqual({ channel_id: bot.id, ai_daily_limit: 0, ai_enabled: false });
    for (const n of [10_001, -1, 2.5]) {
      const e = await failure(
        as(admin).settings.setChannelAi({ tenantId: t.tenantId, channelId: bot.id, aiDailyLimit: n, aiEnabled: true }),
      );
      expect(fields(e), String(n)).toEqual([["/ai_daily_limit", "out_of_range"]]);
    }
    const after = (await as(admin).settings.get({ tenantId: t.tenantId })).channels.find((c) => c.id === bot.id);
    expect(after).toMatchObject({ aiDailyLimit: 0, aiEnabled: false });
    const api = s.channels.find((c) => c.type === "api")!;
    await as(admin).settings.setChannelAi({
      tenantId: t.tenantId,
      channelId: api.id,
      aiDailyLimit: 10_000,
      aiEnabled: true,
    });
    const [row] = await db.db.select().from(channels).where(eq(channels.id, api.id));
    expect([row!.aiDailyLimit, row!.aiEnabled]).toEqual([10_000, true]);
  });

  it("reads another tenant's channel as not found", async () => {
    const other = await makeTenant(db.db);
    const e = await failure(
      as(admin).settings.setChannelAi({
        tenantId: t.tenantId,
        channelId: other.channelId,
        aiDailyLimit: 1,
        aiEnabled: false,
      }),
    );
    expect(e.code).toBe("NOT_FOUND");
    const [row] = await db.db.select().from(channels).where(eq(channels.id, other.channelId));
    expect([row!.aiDailyLimit, row!.aiEnabled]).toEqual([200, true]);
  });
});

describe("spend limits", () => {
  it("saved through operations.setLimits show in settings; a bad amount names its field", async () => {
    await as(admin).operations.setLimits({ tenantId: t.tenantId, dailyLimit: "1500.50", maxOperationCost: "25" });
    const s = await as(viewer).settings.get({ tenantId: t.tenantId });
    expect(s.limits).toEqual({
      daily_limit: { amount: "1500.50", currency: "RUB" },
      max_operation_cost: { amount: "25.00", currency: "RUB" },
    });
    const e = await failure(
      as(admin).operations.setLimits({ tenantId: t.tenantId, dailyLimit: "lots", maxOperationCost: "0" }),
    );
    expect(fields(e)).toEqual([["/dailyLimit", "invalid_format"]]);
    const zero = await failure(
      as(admin).operations.setLimits({ tenantId: t.tenantId, dailyLimit: null, maxOperationCost: "0" }),
    );
    expect(fields(zero)).toEqual([["/max_operation_cost", "out_of_range"]]);
  });
});

describe("rights", () => {
  it("without manage_integrations every change is refused on the server and nothing changes", async () => {
    const s = await as(viewer).settings.get({ tenantId: t.tenantId });
    // Called one at a time: a call made before the previous one is awaited would reject unobserved.
    const refusals = [
      () => as(viewer).settings.setMainDomain({ tenantId: t.tenantId, mainDomain: "evil.example" }),
      () =>
        as(viewer).settings.setChannelAi({
          tenantId: t.tenantId,
          channelId: s.channels[0]!.id,
          aiDailyLimit: 5,
          aiEnabled: false,
        }),
      () => as(viewer).operations.setLimits({ tenantId: t.tenantId, dailyLimit: "1", maxOperationCost: "1" }),
    ];
    for (const call of refusals) {
      const e = await failure(call());
      expect([e.code, e.message]).toEqual(["FORBIDDEN", 'This needs the "manage_integrations" right in this tenant.']);
    }
    const after = await as(viewer).settings.get({ tenantId: t.tenantId });
    expect(after).toEqual(s);
    const [w] = await db.db.select().from(wallets).where(eq(wallets.tenantId, t.tenantId));
    expect(w!.maxOperationCostMinor).toBe(2500n);
  });

  it("a non-member reads another tenant's settings as not found", async () => {
    const other = await makeTenant(db.db);
    const e = await failure(as(admin).settings.get({ tenantId: other.tenantId }));
    expect(e.code).toBe("NOT_FOUND");
  });
});
