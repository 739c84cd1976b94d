import { TRPCError } from "@trpc/server";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys, webhookSubscriptions } from "@/db/schema";
import { ApiError } from "@/server/errors";
import { createStaffMember } from "@/server/services/tenants/staff";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { setHostResolver } from "@/server/webhook-transport/url-check";
import { createCaller } from "./root";

// Rights inside one tenant (SECURITY.md "Rights"): what a staff member may do is bounded by their rights,
// also where a procedure would hand the power on (a key, a webhook that carries personal data).

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
type Staff = { id: string; email: string; name: string };
const PASSWORD = "correct-horse-battery";
const staff: Record<"integrations" | "hooks" | "full", Staff> = {
  integrations: { id: "", email: "integrations@r.example", name: "I" },
  hooks: { id: "", email: "hooks@r.example", name: "H" },
  full: { id: "", email: "full@r.example", name: "F" },
};
const as = (s: Staff) => createCaller({ db: db.db, staff: s });
const URL_OK = "https://hooks.example.com/in";
const URL_ELSEWHERE = "https://other.example.com/in";

async function rejects(p: Promise<unknown>): Promise<TRPCError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TRPCError);
  return err as TRPCError;
}
const catalogCode = (e: TRPCError) => (e.cause instanceof ApiError ? e.cause.code : null);

beforeAll(async () => {
  db = await openTestDatabase();
  setHostResolver(async (host) => {
    if (host === "hooks.example.com" || host === "other.example.com") return [{ address: "93.184.216.34", family: 4 }];
    throw new Error("ENOTFOUND");
  });
  // The integration is the owner's, with every scope, and meets the RU transfer rule (narrow allowlist).
  t = await makeTenant(db.db, { integration: { ipAllowlist: ["203.0.113.10"] } });
  staff.integrations.id = (
    await createStaffMember(db.db, {
      tenantId: t.tenantId,
      email: staff.integrations.email,
      password: PASSWORD,
      name: "I",
      role: "admin",
      rights: ["manage_integrations"],
    })
  ).staffUserId;
  staff.hooks.id = (
    await createStaffMember(db.db, {
      tenantId: t.tenantId,
      email: staff.hooks.email,
      password: PASSWORD,
      name: "H",
      role: "admin",
      rights: ["manage_webhooks"],
    })
  ).staffUserId;
  staff.full.id = (
    await createStaffMember(db.db, { tenantId: t.tenantId, email: staff.full.email, password: PASSWORD, name: "F" })
  ).staffUserId;
});
afterAll(async () => {
  setHostResolver(undefined);
  await db.drop();
});

describe("issuing a key", () => {
  it("is refused to a member whose rights do not cover the integration's personal-data and webhook scopes", async () => {
    const before = await db.db.select().from(apiKeys).where(eq(apiKeys.integrationId, t.integrationId));
    const err = await rejects(
      as(staff.integrations).integrations.issueKey({
        tenantId: t.tenantId,
        integrationId: t.integrationId,
        mode: "live",
        expiresAt: null,
        ipAllowlist: ["203.0.113.10"],
      }),
    );
    expect([err.code, catalogCode(err)]).toEqual(["FORBIDDEN", "scope_missing"]);
    expect(err.message).toContain("view_personal_data");
    expect(err.message).toContain("manage_webhooks");
    expect(await db.db.select().from(apiKeys).where(eq(apiKeys.integrationId, t.integrationId))).toHaveLength(
      before.length,
    );
  });

  it("is allowed to a member whose rights cover every effective scope", async () => {
    const k = await as(staff.full).integrations.issueKey({
      tenantId: t.tenantId,
      integrationId: t.integrationId,
      mode: "live",
      expiresAt: null,
      ipAllowlist: ["203.0.113.10"],
    });
    expect(k.key).toMatch(/^sk_live_ru_/);
  });

  it("is allowed to a member without the personal-data right for an integration without personal-data scopes", async () => {
    const { id } = await as(staff.integrations).integrations.create({
      tenantId: t.tenantId,
      name: "Catalog sync",
      role: "content",
      scopes: ["cards:read", "cards:write", "articles:read"],
      piiCountry: null,
      legalBasis: null,
      ipAllowlist: null,
    });
    const k = await as(staff.integrations).integrations.issueKey({
      tenantId: t.tenantId,
      integrationId: id,
      mode: "live",
      expiresAt: null,
      ipAllowlist: null,
    });
    expect(k.key).toMatch(/^sk_live_ru_/);
  });
});

describe("webhooks that carry personal data", () => {
  it("refuses include_pii on create to a member without view_personal_data, and writes nothing", async () => {
    const err = await rejects(
      as(staff.hooks).webhooks.create({
        tenantId: t.tenantId,
        integrationId: t.integrationId,
        url: URL_OK,
        events: ["lead.*"],
        include_pii: true,
      }),
    );
    expect([err.code, catalogCode(err)]).toEqual(["FORBIDDEN", "scope_missing"]);
    expect(err.message).toContain("view_personal_data");
    expect(
      await db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.integrationId, t.integrationId)),
    ).toEqual([]);
  });

  it("refuses turning include_pii on, and moving a subscription that has it, to a member without view_personal_data", async () => {
    const thin = await as(staff.hooks).webhooks.create({
      tenantId: t.tenantId,
      integrationId: t.integrationId,
      url: URL_OK,
      events: ["lead.*"],
    });
    const on = await rejects(
      as(staff.hooks).webhooks.update({ tenantId: t.tenantId, subscriptionId: thin.webhook.id, include_pii: true }),
    );
    expect(catalogCode(on)).toBe("scope_missing");

    const pii = await as(staff.full).webhooks.create({
      tenantId: t.tenantId,
      integrationId: t.integrationId,
      url: URL_OK,
      events: ["lead.*"],
      include_pii: true,
    });
    const moved = await rejects(
      as(staff.hooks).webhooks.update({ tenantId: t.tenantId, subscriptionId: pii.webhook.id, url: URL_ELSEWHERE }),
    );
    expect(catalogCode(moved)).toBe("scope_missing");
    const [row] = await db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, pii.webhook.id));
    expect(row).toMatchObject({ url: URL_OK, includePii: true });
  });

  it("still lets that member manage what carries no personal data: describe, pause, turn include_pii off", async () => {
    const pii = await as(staff.full).webhooks.create({
      tenantId: t.tenantId,
      integrationId: t.integrationId,
      url: URL_OK,
      events: ["lead.*"],
      include_pii: true,
    });
    await as(staff.hooks).webhooks.update({ tenantId: t.tenantId, subscriptionId: pii.webhook.id, description: "CRM" });
    await as(staff.hooks).webhooks.setStatus({
      tenantId: t.tenantId,
      subscriptionId: pii.webhook.id,
      status: "paused",
    });
    const off = await as(staff.hooks).webhooks.update({
      tenantId: t.tenantId,
      subscriptionId: pii.webhook.id,
      include_pii: false,
      url: URL_ELSEWHERE,
    });
    expect(off).toMatchObject({ include_pii: false, url: URL_ELSEWHERE, status: "paused", description: "CRM" });
  });

  it("lets a member with view_personal_data set include_pii and move the subscription", async () => {
    const pii = await as(staff.full).webhooks.create({
      tenantId: t.tenantId,
      integrationId: t.integrationId,
      url: URL_OK,
      events: ["lead.*"],
      include_pii: true,
    });
    const moved = await as(staff.full).webhooks.update({
      tenantId: t.tenantId,
      subscriptionId: pii.webhook.id,
      url: URL_ELSEWHERE,
    });
    expect(moved).toMatchObject({ include_pii: true, url: URL_ELSEWHERE });
  });
});
