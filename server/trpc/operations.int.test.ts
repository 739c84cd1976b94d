import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStaffMember } from "@/server/services/tenants/staff";
import { setPreview } from "@/server/services/tenants/previews";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { createCaller } from "./root";

// The console's Operations page procedures: the tenant's paid operations, spend limits, AI per channel
// and previews; changes need manage_integrations; another tenant's data is not found.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let a: TenantFixture;
let b: TenantFixture;
const manager = { id: "", email: "ops-manager@a.example", name: "M" };
const viewer = { id: "", email: "ops-viewer@a.example", name: "V" };
const other = { id: "", email: "ops-other@b.example", name: "B" };
const as = (s: { id: string; email: string; name: string }) => createCaller({ db: db.db, staff: s });

async function rejects(p: Promise<unknown>): Promise<TRPCError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TRPCError);
  return err as TRPCError;
}

beforeAll(async () => {
  db = await openTestDatabase();
  a = await makeTenant(db.db);
  b = await makeTenant(db.db);
  await setPreview(db.db, a.tenantId, "conversation-writes", true);
  const pw = "correct-horse-battery";
  manager.id = (
    await createStaffMember(db.db, {
      tenantId: a.tenantId,
      email: manager.email,
      password: pw,
      name: "M",
      role: "admin",
      rights: ["manage_integrations"],
    })
  ).staffUserId;
  viewer.id = (
    await createStaffMember(db.db, {
      tenantId: a.tenantId,
      email: viewer.email,
      password: pw,
      name: "V",
      role: "admin",
      rights: [],
    })
  ).staffUserId;
  other.id = (
    await createStaffMember(db.db, { tenantId: b.tenantId, email: other.email, password: pw, name: "B" })
  ).staffUserId;
});
afterAll(async () => db.drop());

describe("operations router", () => {
  it("lists the tenant's operations with status, hold and conversation", async () => {
    const P = { preview: "conversation-writes" as const };
    const c = await call("POST", "/conversations", { key: a.key, json: { external_customer_id: "console-1" }, ...P });
    const m = await call("POST", `/conversations/${c.body.id}/messages`, {
      key: a.key,
      json: { content: "socks?" },
      idempotencyKey: "console-k",
      ...P,
    });
    const page = await as(viewer).operations.list({ tenantId: a.tenantId });
    expect(page.operations).toEqual([
      expect.objectContaining({
        id: m.body.operation.id,
        type: "conversation.ai_reply",
        status: "queued",
        hold: "0.40",
        cost: null,
        conversationId: c.body.id,
        error: null,
      }),
    ]);
    expect((await rejects(as(other).operations.list({ tenantId: a.tenantId }))).code).toBe("NOT_FOUND");
  });

  it("shows and changes spend limits and a channel's AI settings with manage_integrations only", async () => {
    const s = await as(viewer).operations.settings({ tenantId: a.tenantId });
    expect(s).toMatchObject({
      limits: { daily_limit: null, max_operation_cost: { amount: "100.00" } },
      previews: { "conversation-writes": true },
      canEdit: false,
      channels: [expect.objectContaining({ integrationId: a.integrationId, aiDailyLimit: 200, aiEnabled: true })],
    });
    expect(
      (await rejects(as(viewer).operations.setLimits({ tenantId: a.tenantId, dailyLimit: "5", maxOperationCost: "1" })))
        .code,
    ).toBe("FORBIDDEN");
    expect(
      await as(manager).operations.setLimits({ tenantId: a.tenantId, dailyLimit: "500", maxOperationCost: "50.5" }),
    ).toEqual({
      daily_limit: { amount: "500.00", currency: "RUB" },
      max_operation_cost: { amount: "50.50", currency: "RUB" },
    });
    await as(manager).operations.setChannelAi({
      tenantId: a.tenantId,
      integrationId: a.integrationId,
      aiDailyLimit: 10,
      aiEnabled: false,
    });
    expect((await as(manager).operations.settings({ tenantId: a.tenantId })).channels[0]).toMatchObject({
      aiDailyLimit: 10,
      aiEnabled: false,
    });
    expect(
      (
        await rejects(
          as(manager).operations.setChannelAi({
            tenantId: a.tenantId,
            integrationId: b.integrationId,
            aiDailyLimit: 1,
            aiEnabled: true,
          }),
        )
      ).code,
    ).toBe("NOT_FOUND");
  });
});
