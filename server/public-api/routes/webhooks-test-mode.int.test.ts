import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { events, tenants, webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { startLocalDriver, type LocalDriver } from "@/server/jobs/local-driver";
import { EVENT_DATA, eventEnvelope } from "@/server/schemas/event-payloads";
import type { StaffActor } from "@/server/services/actor";
import { issueKey } from "@/server/services/keys/keys";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { setPreview } from "@/server/services/tenants/previews";
import { resolveWebhookOwner } from "@/server/services/webhooks/owner";
import { resendDelivery } from "@/server/services/webhooks/resend";
import { listSubscriptions } from "@/server/services/webhooks/subscriptions";
import { call } from "@/server/testing/api-client";
import { makeEmptySandboxTenant } from "@/server/testing/empty-sandbox";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { LOOPBACK_RECEIVER_ENV, startHttpsReceiver, type HttpsReceiver } from "@/server/testing/https-receiver";
import { openTestDatabase } from "@/server/testing/test-db";
import { createDeliveryClient, type DeliveryClient } from "@/server/webhook-transport/delivery-client";
import { EVENT_FAMILIES, EVENT_TYPES } from "@/server/webhook-transport/event-catalog";
import { verifySignature } from "@/server/webhook-transport/signature";

// Issue 69 item 5: a subscription made with a test key (of a tenant with the preview `test-mode`) is a test
// subscription. It receives sample events and the sandbox's own events, all `livemode: false`; a live
// subscription never receives a sandbox event; `webhook.test` says `livemode: false` to both. The journal,
// the subscriptions and the idempotency keys of one mode are invisible from the other.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let rx: HttpsReceiver;
let client: DeliveryClient;
let driver: LocalDriver | null = null;
let t: TenantFixture;
let testKey: string;
let n = 0;
const idem = () => `tm-${++n}-${Date.now()}`;
const ALL = [...EVENT_FAMILIES].map((f) => `${f}.*`);

/** A subscription to every family, made through the API with `key`, delivering to the receiver at `?to=<name>`. */
async function subscribe(key: string, name: string): Promise<{ id: string; secret: string }> {
  const r = await call("POST", "/webhooks", {
    key,
    json: { url: `${rx.url}?to=${name}`, events: ALL },
    idempotencyKey: idem(),
  });
  expect(r.status, r.text).toBe(201);
  return { id: r.body.id, secret: r.body.secret };
}

/** What the receiver got at `?to=<name>`: the parsed bodies, after checking each signature with `secret`. */
function received(name: string, secret: string): { id: string; type: string; livemode: boolean }[] {
  return rx.requests
    .filter((r) => r.path === `/hook?to=${name}`)
    .map((r) => {
      expect(verifySignature(r.headers["service-signature"], r.body, [secret])).toBe(true);
      return JSON.parse(r.body) as { id: string; type: string; livemode: boolean };
    });
}

/** Runs the local driver until no delivery of the tenant is pending or failed. */
async function deliverAll(tenantId: string): Promise<void> {
  driver ??= startLocalDriver(db.db, { client, pollMs: 20 });
  const until = Date.now() + 20_000;
  for (;;) {
    const rows = await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.tenantId, tenantId));
    if (rows.every((d) => d.state === "delivered")) return;
    if (Date.now() > until) throw new Error(`not delivered: ${JSON.stringify(rows.map((d) => d.state))}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  db = await openTestDatabase({ ...LOOPBACK_RECEIVER_ENV });
  rx = await startHttpsReceiver();
  client = createDeliveryClient({ testCa: rx.certPem, timeoutMs: 5_000 });
  // Sandboxes without the seeded sample data, so that every subscription and delivery is one the test made.
  const e = await makeEmptySandboxTenant(db.db);
  t = e;
  testKey = e.testKey;
  await setPreview(db.db, t.tenantId, "conversation-writes", true);
  await setLimitOverride(db.db, { tenantId: t.tenantId }, { writePerMin: 100_000, readPerMin: 100_000 });
});
afterEach(async () => {
  await driver?.stop();
  driver = null;
  rx.requests.length = 0;
});
afterAll(async () => {
  await client.close();
  await rx.stop();
  await db.drop();
});

describe("deliveries by mode", () => {
  it("a test subscription gets sample and sandbox events only; a live subscription never gets a sandbox event", async () => {
    const live = await subscribe(t.key, "live");
    const test = await subscribe(testKey, "test");
    const [row] = await db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, test.id));
    expect(row!.livemode).toBe(false);

    const sample = await call("POST", "/test-helpers/events", {
      key: testKey,
      json: { type: "lead.created" },
      preview: "test-mode",
    });
    expect(sample.status).toBe(202);
    const conversation = (key: string) =>
      call("POST", "/conversations", {
        key,
        json: { external_customer_id: `customer-${++n}` },
        preview: "conversation-writes",
      });
    expect((await conversation(testKey)).status).toBe(201);
    expect((await conversation(t.key)).status).toBe(201);
    await deliverAll(t.tenantId);

    const toTest = received("test", test.secret);
    const toLive = received("live", live.secret);
    expect(toTest.map((e) => [e.type, e.livemode]).sort()).toEqual([
      ["conversation.created", false],
      ["lead.created", false],
    ]);
    expect(toTest.map((e) => e.id)).toContain(sample.body.id);
    expect(toLive.map((e) => [e.type, e.livemode])).toEqual([["conversation.created", true]]);
    const sandboxEvents = (
      await db.db
        .select({ id: events.id })
        .from(events)
        .where(and(eq(events.tenantId, t.tenantId), eq(events.livemode, false)))
    ).map((e) => e.id);
    expect(sandboxEvents.length).toBeGreaterThanOrEqual(2);
    for (const e of toLive) expect(sandboxEvents).not.toContain(e.id);
  });

  it("webhook.test says livemode false to a live and to a test subscription", async () => {
    const live = await subscribe(t.key, "live-ping");
    const test = await subscribe(testKey, "test-ping");
    for (const [key, sub] of [
      [t.key, live],
      [testKey, test],
    ] as const) {
      const r = await call("POST", `/webhooks/${sub.id}/test`, { key, idempotencyKey: idem() });
      expect(r.status).toBe(202);
    }
    await deliverAll(t.tenantId);
    expect(received("live-ping", live.secret).map((e) => [e.type, e.livemode])).toEqual([["webhook.test", false]]);
    expect(received("test-ping", test.secret).map((e) => [e.type, e.livemode])).toEqual([["webhook.test", false]]);
  });
});

describe("sample events at a receiver", () => {
  it("every catalog type emitted in the sandbox reaches a test subscription of every family, valid for its type", async () => {
    const x = await makeEmptySandboxTenant(db.db);
    const xTest = x.testKey;
    const live = await subscribe(x.key, "every-live");
    const test = await subscribe(xTest, "every-test");
    const emitted: string[] = [];
    for (const type of EVENT_TYPES) {
      const r = await call("POST", "/test-helpers/events", { key: xTest, json: { type }, preview: "test-mode" });
      expect(r.status, type).toBe(202);
      emitted.push(r.body.id);
    }
    await deliverAll(x.tenantId);
    const got = received("every-test", test.secret);
    expect(got.map((e) => e.id).sort()).toEqual([...emitted].sort());
    for (const e of got) {
      const parsed = eventEnvelope(e.type, EVENT_DATA[e.type]!).safeParse(e);
      expect(parsed.success, `${e.type}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
      expect(e.livemode).toBe(false);
    }
    expect(received("every-live", live.secret)).toEqual([]);
  });
});

describe("subscriptions and their journal by mode", () => {
  it("a test key sees only test subscriptions and their journal, a live key only live ones", async () => {
    const x = await makeEmptySandboxTenant(db.db);
    const xTest = x.testKey;
    const live = await subscribe(x.key, "x-live");
    const test = await subscribe(xTest, "x-test");
    const ids = async (key: string) =>
      (await call("GET", "/webhooks", { key })).body.data.map((w: { id: string }) => w.id);
    expect(await ids(x.key)).toEqual([live.id]);
    expect(await ids(xTest)).toEqual([test.id]);
    for (const [key, other] of [
      [x.key, test.id],
      [xTest, live.id],
    ] as const) {
      for (const [method, path, json] of [
        ["GET", `/webhooks/${other}`, undefined],
        ["GET", `/webhooks/${other}/deliveries`, undefined],
        ["PATCH", `/webhooks/${other}`, { description: "taken" }],
        ["POST", `/webhooks/${other}/rotate-secret`, undefined],
        ["POST", `/webhooks/${other}/test`, undefined],
        ["DELETE", `/webhooks/${other}`, undefined],
      ] as const) {
        const r = await call(method, path, { key, json, idempotencyKey: method === "POST" ? idem() : undefined });
        expect([r.status, r.body.code], `${method} ${path}`).toEqual([404, "not_found"]);
      }
    }
    // The journal of the test subscription holds its sample event, and is the sandbox's only.
    const sample = await call("POST", "/test-helpers/events", {
      key: xTest,
      json: { type: "task.created" },
      preview: "test-mode",
    });
    const journal = await call("GET", `/webhooks/${test.id}/deliveries`, { key: xTest });
    expect(journal.body.data.map((d: { event_id: string }) => d.event_id)).toEqual([sample.body.id]);
    expect((await call("GET", `/webhooks/${live.id}/deliveries`, { key: x.key })).body.data).toEqual([]);
  });

  it("the console in Test mode manages the test subscriptions, and cannot resend a live delivery", async () => {
    const x = await makeEmptySandboxTenant(db.db);
    const xTest = x.testKey;
    const live = await subscribe(x.key, "c-live");
    const test = await subscribe(xTest, "c-test");
    const staff = (livemode: boolean): StaffActor => ({
      via: "console",
      tenantId: x.tenantId,
      staffUserId: "staff-1",
      rights: ["manage_webhooks"],
      livemode,
    });
    const listed = async (livemode: boolean) =>
      (
        await listSubscriptions(db.db, await resolveWebhookOwner(db.db, staff(livemode), x.integrationId), {
          limit: 10,
        })
      ).webhooks.map((w) => w.id);
    expect(await listed(false)).toEqual([test.id]);
    expect(await listed(true)).toEqual([live.id]);

    const ping = await call("POST", `/webhooks/${live.id}/test`, { key: x.key, idempotencyKey: idem() });
    const [d] = await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, ping.body.event_id));
    await db.db.update(webhookDeliveries).set({ state: "dead" }).where(eq(webhookDeliveries.id, d!.id));
    await expect(resendDelivery(db.db, staff(false), d!.id)).rejects.toMatchObject({ code: "not_found" });
    expect(await resendDelivery(db.db, staff(true), d!.id)).toMatchObject({ id: d!.id, state: "pending" });
  });
});

describe("idempotency keys by mode", () => {
  it("a key used in live data never replays in the sandbox, nor the other way round", async () => {
    const x = await makeTenant(db.db);
    const xTest = (await issueKey(db.db, { integrationId: x.integrationId, mode: "test", ipAllowlist: ["127.0.0.1"] }))
      .key;
    // No sample data when the preview goes on: the subscriptions below are all the tenant has.
    await db.db.update(tenants).set({ sandboxSeededAt: new Date() }).where(eq(tenants.id, x.tenantId));
    const key = idem();
    const json = { url: `${rx.url}?to=idem`, events: ["lead.*"] };
    // Without the preview the test key works in live data: a live subscription.
    const first = await call("POST", "/webhooks", { key: xTest, json, idempotencyKey: key });
    expect(first.status).toBe(201);
    await setPreview(db.db, x.tenantId, "test-mode", true);
    const sandbox = await call("POST", "/webhooks", { key: xTest, json, idempotencyKey: key });
    expect(sandbox.status).toBe(201);
    expect(sandbox.body.id).not.toBe(first.body.id);
    expect(sandbox.body.secret).toMatch(/^whsec_/);
    const modes = await db.db
      .select({ id: webhookSubscriptions.id, livemode: webhookSubscriptions.livemode })
      .from(webhookSubscriptions)
      .where(eq(webhookSubscriptions.tenantId, x.tenantId));
    expect(modes.sort((a, b) => Number(b.livemode) - Number(a.livemode))).toEqual([
      { id: first.body.id, livemode: true },
      { id: sandbox.body.id, livemode: false },
    ]);
    // Each mode replays its own.
    const again = await call("POST", "/webhooks", { key: xTest, json, idempotencyKey: key });
    expect([again.status, again.body.id, again.body.secret]).toEqual([201, sandbox.body.id, null]);
    await setPreview(db.db, x.tenantId, "test-mode", false);
    const back = await call("POST", "/webhooks", { key: xTest, json, idempotencyKey: key });
    expect([back.status, back.body.id, back.body.secret]).toEqual([201, first.body.id, null]);
  });
});
