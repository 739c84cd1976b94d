import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operations } from "@/db/schema";
import { SCOPES } from "@/server/schemas/scopes";
import { createIntegration } from "@/server/services/integrations/integrations";
import { issueKey } from "@/server/services/keys/keys";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let other: TenantFixture;
let siblingKey: string;
const op: Record<string, string> = {};

const created = new Date("2026-11-01T10:00:00.000Z");
const done = new Date("2026-11-01T10:00:05.000Z");
const get = (id: string, key = t.key) => call("GET", `/operations/${id}`, { key });

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  other = await makeTenant(db.db);
  const i = await createIntegration(db.db, t.tenantId, {
    name: "Sibling",
    scopes: [...SCOPES],
    piiCountry: "RU",
    legalBasis: "contract",
  });
  siblingKey = (await issueKey(db.db, { integrationId: i.id, ipAllowlist: ["127.0.0.1"] })).key;
  const usage = { cost: { amount: "1.50", currency: "RUB" }, model: "seller-1" };
  const add = async (
    name: string,
    v: Partial<typeof operations.$inferInsert>,
    integrationId = t.integrationId,
    tenantId = t.tenantId,
  ) => {
    const [row] = await db.db
      .insert(operations)
      .values({ tenantId, integrationId, type: "conversation.ai_reply", createdAt: created, ...v })
      .returning({ id: operations.id });
    op[name] = row.id;
  };
  await add("queued", { status: "queued" });
  await add("running", {
    status: "running",
    type: "article.generation",
    resourceType: "generation_job",
    resourceId: "job-1",
  });
  await add("succeeded", {
    status: "succeeded",
    resourceType: "message",
    resourceId: "msg-1",
    usage,
    completedAt: done,
  });
  await add("failed", {
    status: "failed",
    error: { code: "upstream_unavailable", message: "The model did not answer" },
    usage,
    completedAt: done,
  });
  await add("canceled", { status: "canceled", type: "strategist.turn", completedAt: done });
  await add("sibling", { status: "queued" }, i.id);
  await add("foreign", { status: "queued" }, other.integrationId, other.tenantId);
});
afterAll(async () => db.drop());

describe("GET /operations/{id}", () => {
  it("answers a queued operation with only the required keys", async () => {
    const r = await get(op.queued);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      operation: { id: op.queued, type: "conversation.ai_reply", status: "queued", created_at: created.toISOString() },
    });
  });

  it("adds resource while running, but no completed_at, error or usage", async () => {
    const r = await get(op.running);
    expect(r.body).toEqual({
      operation: {
        id: op.running,
        type: "article.generation",
        status: "running",
        created_at: created.toISOString(),
        resource: { type: "generation_job", id: "job-1" },
      },
    });
  });

  it("answers a succeeded operation with completed_at, resource and usage, without error", async () => {
    const r = await get(op.succeeded);
    expect(r.body.operation).toEqual({
      id: op.succeeded,
      type: "conversation.ai_reply",
      status: "succeeded",
      created_at: created.toISOString(),
      completed_at: done.toISOString(),
      resource: { type: "message", id: "msg-1" },
      usage: { cost: { amount: "1.50", currency: "RUB" }, model: "seller-1" },
    });
  });

  it("answers a failed operation with its error and completed_at", async () => {
    const r = await get(op.failed);
    expect(r.body.operation).toEqual({
      id: op.failed,
      type: "conversation.ai_reply",
      status: "failed",
      created_at: created.toISOString(),
      completed_at: done.toISOString(),
      error: { code: "upstream_unavailable", message: "The model did not answer" },
      usage: { cost: { amount: "1.50", currency: "RUB" }, model: "seller-1" },
    });
  });

  it("answers a canceled operation with completed_at only", async () => {
    const r = await get(op.canceled);
    expect(r.body.operation).toEqual({
      id: op.canceled,
      type: "strategist.turn",
      status: "canceled",
      created_at: created.toISOString(),
      completed_at: done.toISOString(),
    });
    expect(r.text).not.toContain("null");
  });

  it("answers another integration's operation of the same tenant, and another tenant's, as missing", async () => {
    const missing = await get(crypto.randomUUID());
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("not_found");
    for (const id of [op.sibling, op.foreign]) {
      const r = await get(id);
      expect(r.status).toBe(404);
      expect(r.body.detail).toBe(missing.body.detail);
    }
    expect((await get(op.sibling, siblingKey)).status).toBe(200);
    expect((await get(op.queued, siblingKey)).status).toBe(404);
    expect((await get(op.foreign, other.key)).status).toBe(200);
    expect((await get("not-a-uuid")).status).toBe(404);
  });

  it("needs no scope of its own", async () => {
    const narrow = await makeTenant(db.db, { scopes: ["cards:read"] });
    const [row] = await db.db
      .insert(operations)
      .values({ tenantId: narrow.tenantId, integrationId: narrow.integrationId, type: "article.generation" })
      .returning({ id: operations.id });
    const r = await get(row.id, narrow.key);
    expect(r.status).toBe(200);
    expect(r.body.operation.status).toBe("queued");
  });
});
