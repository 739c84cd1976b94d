import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  articles,
  contacts,
  conversations,
  events,
  leads,
  messages,
  operations,
  strategistReports,
  webhookDeliveries,
  webhookSubscriptions,
} from "@/db/schema";
import { EVENT_DATA, eventEnvelope } from "@/server/schemas/event-payloads";
import { TestEventSchema } from "@/server/schemas/test-helper-events";
import { issueKey } from "@/server/services/keys/keys";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { setPreview } from "@/server/services/tenants/previews";
import { call } from "@/server/testing/api-client";
import { makeEmptySandboxTenant, type SandboxTenantFixture } from "@/server/testing/empty-sandbox";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { sandboxKey } from "@/server/testing/sandbox-key";
import { openTestDatabase } from "@/server/testing/test-db";
import { EVENT_TYPES } from "@/server/webhook-transport/event-catalog";
import { newSigningSecret, sealSecret } from "@/server/webhook-transport/secret-box";

// POST /test-helpers/events (issue 69 item 4): a sample event of any catalog type, emitted in the sandbox of
// a tenant with the preview `test-mode`, to the sandbox's subscriptions only. What a receiver gets of it is
// proven in webhooks-test-mode.int.test.ts; here: the answer, the ids it names, the 422 and 404 rules.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
/** A tenant with the preview and rows in both worlds; `test` is its test key. */
let t: SandboxTenantFixture;
let test: string;
let n = 0;
const P = { preview: "test-mode" as const };
const emit = (key: string, json: unknown, idempotencyKey?: string) =>
  call("POST", "/test-helpers/events", { key, json, idempotencyKey, ...P });

/** Ids of the rows of one world of tenant `tenantId` that a sample event may name. */
interface World {
  conversation: string;
  message: string;
  contact: string;
  lead: string;
  article: string;
  report: string;
  operation: string;
  subscription: string;
}

/** One row of every kind a sample event names, in the given mode of `f`'s tenant. */
async function world(f: TenantFixture, livemode: boolean): Promise<World> {
  const owner = { tenantId: f.tenantId, livemode };
  const [contact] = await db.db
    .insert(contacts)
    .values({ ...owner, firstName: "Ann" })
    .returning();
  const [conversation] = await db.db
    .insert(conversations)
    .values({ ...owner, contactId: contact!.id, channelId: f.channelId, externalCustomerId: `c-${++n}` })
    .returning();
  const [message] = await db.db
    .insert(messages)
    .values({ ...owner, conversationId: conversation!.id, sender: "customer", content: "Hi", aiReplyStatus: "replied" })
    .returning();
  const [lead] = await db.db
    .insert(leads)
    .values({ ...owner, contactId: contact!.id, conversationId: conversation!.id, status: "proposal", version: 4 })
    .returning();
  const [article] = await db.db
    .insert(articles)
    .values({ ...owner, title: "Wool socks in winter", slug: `wool-socks-${n}`, status: "published" })
    .returning();
  const [report] = await db.db
    .insert(strategistReports)
    .values({
      ...owner,
      reportDate: "2026-11-01",
      reportType: "daily",
      dataAsOf: {},
      highlights: [],
      concerns: [],
      actions: [],
      evidence: {},
    })
    .returning();
  const [operation] = await db.db
    .insert(operations)
    .values({
      ...owner,
      integrationId: f.integrationId,
      type: "conversation.ai_reply",
      status: "succeeded",
      resourceType: "message",
      resourceId: message!.id,
      completedAt: new Date(),
    })
    .returning();
  const [subscription] = await db.db
    .insert(webhookSubscriptions)
    .values({
      ...owner,
      integrationId: f.integrationId,
      url: "https://hooks.example.com/in",
      events: ["webhook.test"],
      secretEnc: sealSecret(newSigningSecret()),
    })
    .returning();
  return {
    conversation: conversation!.id,
    message: message!.id,
    contact: contact!.id,
    lead: lead!.id,
    article: article!.id,
    report: report!.id,
    operation: operation!.id,
    subscription: subscription!.id,
  };
}

/** Every string found anywhere in `v`. */
function stringsIn(v: unknown): string[] {
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.flatMap(stringsIn);
  if (v && typeof v === "object") return Object.values(v).flatMap(stringsIn);
  return [];
}

let live: World;
let sandbox: World;

beforeAll(async () => {
  db = await openTestDatabase();
  // A sandbox without the seeded sample data: the rows a sample names are exactly those made below.
  t = await makeEmptySandboxTenant(db.db);
  test = t.testKey;
  await setLimitOverride(db.db, { tenantId: t.tenantId }, { writePerMin: 100_000, readPerMin: 100_000 });
  live = await world(t, true);
  sandbox = await world(t, false);
});
afterAll(async () => db.drop());

describe("POST /test-helpers/events", () => {
  it.each(EVENT_TYPES)(
    "emits %s: 202 with the event as delivered, livemode false, data valid for its type, ids of the sandbox only",
    async (type) => {
      const r = await emit(test, { type });
      expect(r.status, r.text).toBe(202);
      expect(TestEventSchema.safeParse(r.body).success).toBe(true);
      expect(eventEnvelope(type, EVENT_DATA[type]!).strict().parse(r.body)).toEqual(r.body);
      expect(r.body).toMatchObject({ type, api_version: "2026-10-01", livemode: false });
      const [row] = await db.db.select().from(events).where(eq(events.id, r.body.id));
      expect(row).toMatchObject({ tenantId: t.tenantId, type, livemode: false, data: r.body.data });
      expect(row!.createdAt.toISOString()).toBe(r.body.created_at);
      // Never a live row's id: a receiver of the sandbox fetches what the event names with its test key.
      const named = stringsIn(r.body.data);
      for (const id of Object.values(live)) expect(named, `${type} names a live row`).not.toContain(id);
    },
  );

  it("names the sandbox's own rows where the type names a resource", async () => {
    const data = async (type: string) => (await emit(test, { type })).body.data;
    expect(await data("conversation.created")).toEqual({ conversation_id: sandbox.conversation });
    expect(await data("message.created")).toEqual({
      conversation_id: sandbox.conversation,
      message_id: sandbox.message,
      sender: "customer",
      ai_reply: { status: "replied" },
    });
    expect(await data("conversation.handoff_requested")).toEqual({
      conversation_id: sandbox.conversation,
      lead_id: sandbox.lead,
    });
    expect(await data("lead.created")).toEqual({
      lead_id: sandbox.lead,
      contact_id: sandbox.contact,
      conversation_id: sandbox.conversation,
      version: 4,
    });
    expect(await data("lead.status_changed")).toMatchObject({ lead_id: sandbox.lead, version: 4, to: "proposal" });
    expect(await data("contact.merged")).toMatchObject({ contact_id: sandbox.contact });
    expect(await data("article.ready")).toEqual({ type: "article", article_id: sandbox.article });
    expect(await data("article.published")).toMatchObject({ type: "article", article_id: sandbox.article });
    expect(await data("strategist.report.ready")).toEqual({ type: "strategist_report", report_id: sandbox.report });
    expect(await data("operation.completed")).toMatchObject({
      id: sandbox.operation,
      type: "conversation.ai_reply",
      status: "succeeded",
      resource: { type: "message", id: sandbox.message },
    });
    expect(await data("webhook.test")).toEqual({ webhook_id: sandbox.subscription });
    const me = (await call("GET", "/me", { key: test })).body;
    expect(await data("api_key.expiring")).toMatchObject({
      key_id: me.key.key_id,
      integration_id: t.integrationId,
      expires_at: me.key.expires_at,
    });
  });

  it("uses fresh ids where the sandbox has no such row, never the tenant's live ones", async () => {
    const bare = await makeEmptySandboxTenant(db.db);
    const key = bare.testKey;
    const liveRows = await world(bare, true);
    for (const type of ["conversation.created", "lead.created", "article.ready", "strategist.report.ready"]) {
      const r = await emit(key, { type });
      expect(r.status).toBe(202);
      const ids = stringsIn(r.body.data).filter((s) => /^[0-9a-f-]{36}$/.test(s));
      expect(ids.length, type).toBeGreaterThan(0);
      for (const id of ids) expect(Object.values(liveRows)).not.toContain(id);
    }
  });

  it("names rows of the seeded sandbox a test key can read", async () => {
    const seeded = await makeTenant(db.db);
    const key = await sandboxKey(db.db, seeded);
    await world(seeded, true);
    // The first use of the test key seeds the sandbox with its sample data (server/services/sandbox).
    expect((await call("GET", "/me", { key })).status).toBe(200);
    const reads: [string, string, (d: Record<string, string>) => string][] = [
      ["conversation.created", "conversation_id", (d) => `/conversations/${d.conversation_id}`],
      ["message.created", "conversation_id", (d) => `/conversations/${d.conversation_id}/messages`],
      ["lead.created", "lead_id", (d) => `/leads/${d.lead_id}`],
      ["article.ready", "article_id", (d) => `/articles/${d.article_id}`],
      ["strategist.report.ready", "report_id", (d) => `/strategist/reports/${d.report_id}`],
    ];
    for (const [type, field, path] of reads) {
      const r = await emit(key, { type });
      expect(r.status).toBe(202);
      const read = await call("GET", path(r.body.data), { key });
      expect(read.status, `${type}: GET ${path(r.body.data)} with the test key`).toBe(200);
      expect(await call("GET", path(r.body.data), { key: seeded.key }), `${type} ${field} is not live`).toMatchObject({
        status: 404,
      });
    }
  });

  it("queues the event to the sandbox's matching subscriptions only", async () => {
    const r = await emit(test, { type: "webhook.test" });
    const ds = await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, r.body.id));
    expect(ds.map((d) => [d.subscriptionId, d.livemode, d.state])).toEqual([[sandbox.subscription, false, "pending"]]);
  });

  it("replays the same event for the same Idempotency-Key, and refuses another body under it", async () => {
    const key = `emit-${++n}`;
    const first = await emit(test, { type: "task.created" }, key);
    const again = await emit(test, { type: "task.created" }, key);
    expect([again.status, again.body]).toEqual([202, first.body]);
    expect(await db.db.select().from(events).where(eq(events.id, first.body.id))).toHaveLength(1);
    const other = await emit(test, { type: "task.completed" }, key);
    expect([other.status, other.body.code]).toEqual([409, "idempotency_conflict"]);
  });

  it("422 validation_failed on /type for a type outside the catalog, a missing type and an unknown field", async () => {
    for (const json of [{ type: "lead.deleted" }, { type: "lead.*" }, { type: 7 }, {}]) {
      const r = await emit(test, json);
      expect([r.status, r.body.code], JSON.stringify(json)).toEqual([422, "validation_failed"]);
      expect(r.body.errors.map((e: { field: string }) => e.field)).toEqual(["/type"]);
    }
    const extra = await emit(test, { type: "lead.created", livemode: true });
    expect([extra.status, extra.body.errors[0].field, extra.body.errors[0].code]).toEqual([
      422,
      "/livemode",
      "unknown_field",
    ]);
  });

  it("is 404 not_found for a live key, and for any key of a tenant without the preview", async () => {
    const before = (await db.db.select().from(events).where(eq(events.tenantId, t.tenantId))).length;
    const liveKey = await emit(t.key, { type: "lead.created" });
    expect([liveKey.status, liveKey.body.code]).toEqual([404, "not_found"]);
    expect(liveKey.body.detail).toContain("test key");

    const plain = await makeTenant(db.db);
    const plainTest = (
      await issueKey(db.db, { integrationId: plain.integrationId, mode: "test", ipAllowlist: ["127.0.0.1"] })
    ).key;
    for (const key of [plainTest, plain.key, "sk_test_not_a_key"]) {
      const r = await call("POST", "/test-helpers/events", { key, json: { type: "lead.created" } });
      // The Planned answer, given before the key is looked at: it tells no valid key apart.
      expect([r.status, r.body.code, r.body.detail]).toEqual([
        404,
        "not_found",
        "No route POST /test-helpers/events exists in this API version.",
      ]);
    }
    expect((await db.db.select().from(events).where(eq(events.tenantId, t.tenantId))).length).toBe(before);
    expect(await db.db.select().from(events).where(eq(events.tenantId, plain.tenantId))).toHaveLength(0);
  });

  it("needs webhooks:manage", async () => {
    const narrow = await makeTenant(db.db, { scopes: ["leads:read"] });
    await setPreview(db.db, narrow.tenantId, "test-mode", true);
    const key = (
      await issueKey(db.db, { integrationId: narrow.integrationId, mode: "test", ipAllowlist: ["127.0.0.1"] })
    ).key;
    const r = await emit(key, { type: "lead.created" });
    expect([r.status, r.body.code]).toEqual([403, "scope_missing"]);
  });
});
