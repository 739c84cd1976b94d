import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { webhookDeliveries, webhookDeliveryAttempts } from "@/db/schema";
import { attemptDelivery } from "@/server/jobs/attempt-delivery";
import { dueDeliveryIds } from "@/server/jobs/due-deliveries";
import { openApiDocument } from "@/server/openapi/document";
import { registerWorkListener } from "@/server/services/events/work-notifier";
import { createIntegration } from "@/server/services/integrations/integrations";
import { issueKey } from "@/server/services/keys/keys";
import { setPreview } from "@/server/services/tenants/previews";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { LOOPBACK_RECEIVER_ENV, startHttpsReceiver, type HttpsReceiver } from "@/server/testing/https-receiver";
import { openTestDatabase } from "@/server/testing/test-db";
import { createDeliveryClient, type DeliveryClient } from "@/server/webhook-transport/delivery-client";

// Issue 75 items 2 and 3 through the API: `GET /webhooks/{id}/deliveries/{delivery_id}` (the attempt log)
// and `POST /webhooks/{id}/deliveries/{delivery_id}/resend`, against real deliveries to a local HTTPS
// receiver. Every answer is checked against the OpenAPI document by `call`.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let rx: HttpsReceiver;
let client: DeliveryClient;
let t: TenantFixture;
let n = 0;
const idem = () => `resend-${++n}-${Date.now()}`;

const DELIVERY_KEYS = [
  "attempt",
  "created_at",
  "delivered_at",
  "duration_ms",
  "error",
  "event_id",
  "id",
  "next_attempt_at",
  "state",
  "status_code",
];
const ATTEMPT_KEYS = ["attempted_at", "duration_ms", "error", "response_body", "response_headers", "response_status"];

beforeAll(async () => {
  db = await openTestDatabase({ ...LOOPBACK_RECEIVER_ENV });
  rx = await startHttpsReceiver();
  client = createDeliveryClient({ testCa: rx.certPem, timeoutMs: 2_000 });
});
// A fresh tenant per test: its due deliveries are the test's own, and the 10-subscription limit never fills.
beforeEach(async () => {
  t = await makeTenant(db.db);
});
afterEach(() => {
  rx.respond({ kind: "status", status: 200 });
  rx.requests.length = 0;
});
afterAll(async () => {
  await client.close();
  await rx.stop();
  await db.drop();
});

/** A subscription to the receiver made through the API with `key`; returns its id. */
async function subscribe(key = t.key): Promise<string> {
  const r = await call("POST", "/webhooks", { key, json: { url: rx.url, events: ["lead.*"] }, idempotencyKey: idem() });
  expect(r.status).toBe(201);
  return r.body.id;
}

/** A `webhook.test` delivery of the subscription (through the API); returns its id. */
async function queue(subId: string, key = t.key): Promise<string> {
  const r = await call("POST", `/webhooks/${subId}/test`, { key, idempotencyKey: idem() });
  expect(r.status).toBe(202);
  const [d] = await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, r.body.event_id));
  return d!.id;
}

/** Runs the delivery step for every due delivery of the tenant, as a driver would; returns how many ran. */
async function runDue(tenantId = t.tenantId): Promise<number> {
  const ids = await dueDeliveryIds(db.db, { limit: 100, tenantId });
  for (const id of ids) await attemptDelivery(db.db, id, new Date(), { client });
  return ids.length;
}

/** A delivery made `dead` by a last failed attempt (the eighth retry): attempt 9, the receiver answered 500. */
async function deadDelivery(subId: string): Promise<string> {
  const id = await queue(subId);
  await db.db.update(webhookDeliveries).set({ state: "failed", attempt: 8 }).where(eq(webhookDeliveries.id, id));
  rx.respond({ kind: "answer", status: 500, headers: { "Content-Type": "text/plain" }, body: "receiver down" });
  expect(await attemptDelivery(db.db, id, new Date(), { client })).toMatchObject({ state: "dead" });
  rx.respond({ kind: "status", status: 200 });
  return id;
}

/** POST .../resend with a fresh Idempotency-Key, the given one, or none (`null`). */
const resend = (subId: string, id: string, idempotencyKey: string | null = idem(), key = t.key) =>
  call("POST", `/webhooks/${subId}/deliveries/${id}/resend`, { key, idempotencyKey: idempotencyKey ?? undefined });

describe("GET /webhooks/{id}/deliveries/{delivery_id}", () => {
  it("answers the delivery with every attempt, oldest first, headers of the allow list only", async () => {
    const sub = await subscribe();
    const id = await queue(sub);
    rx.respond({
      kind: "answer",
      status: 429,
      headers: { "Retry-After": "30", "Content-Type": "text/plain", "Set-Cookie": "s=1", "X-Trace": "abc" },
      body: "slow down ".repeat(400),
    });
    const t1 = new Date();
    await attemptDelivery(db.db, id, t1, { client });
    rx.respond({ kind: "status", status: 200 });
    const t2 = new Date(t1.getTime() + 60_000);
    await attemptDelivery(db.db, id, t2, { client });

    const r = await call("GET", `/webhooks/${sub}/deliveries/${id}`, { key: t.key });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual([...DELIVERY_KEYS, "attempts"].sort());
    expect(r.body).toMatchObject({ id, state: "delivered", attempt: 2, status_code: 200, error: null });
    // The same row as the journal lists.
    const list = await call("GET", `/webhooks/${sub}/deliveries`, { key: t.key });
    const { attempts, ...delivery } = r.body;
    expect(list.body.data).toContainEqual(delivery);

    expect(attempts).toHaveLength(2);
    for (const at of attempts) expect(Object.keys(at).sort()).toEqual(ATTEMPT_KEYS);
    expect(attempts[0]).toMatchObject({
      attempted_at: t1.toISOString(),
      response_status: 429,
      error: "http_429",
      response_headers: { "retry-after": "30", "content-type": "text/plain", date: expect.any(String) },
    });
    expect(Object.keys(attempts[0].response_headers).sort()).toEqual(["content-type", "date", "retry-after"]);
    expect(attempts[0].response_body).toBe("slow down ".repeat(400).slice(0, 2048));
    expect(attempts[1]).toMatchObject({
      attempted_at: t2.toISOString(),
      response_status: 200,
      response_body: "answer",
      error: null,
    });
    expect(attempts[1].duration_ms).toBe(r.body.duration_ms);
  });

  it("shows a network error attempt with no answer, and a delivery not yet attempted with none", async () => {
    const sub = await subscribe();
    const fresh = await queue(sub);
    const none = await call("GET", `/webhooks/${sub}/deliveries/${fresh}`, { key: t.key });
    expect([none.status, none.body.state, none.body.attempts]).toEqual([200, "pending", []]);

    rx.respond({ kind: "reset" });
    await attemptDelivery(db.db, fresh, new Date(), { client });
    const r = await call("GET", `/webhooks/${sub}/deliveries/${fresh}`, { key: t.key });
    expect(r.body).toMatchObject({ state: "failed", error: "network_error", status_code: null });
    expect(r.body.attempts).toEqual([
      {
        attempted_at: expect.any(String),
        duration_ms: expect.any(Number),
        response_status: null,
        response_headers: null,
        response_body: null,
        error: "network_error",
      },
    ]);
  });

  it("answers 404 for another subscription's, integration's, tenant's or mode's delivery, and one older than 30 days", async () => {
    const sub = await subscribe();
    const id = await queue(sub);
    const otherSub = await subscribe();
    const integration = await createIntegration(db.db, t.tenantId, { name: "Second", scopes: ["webhooks:manage"] });
    const secondKey = (await issueKey(db.db, { integrationId: integration.id, ipAllowlist: ["127.0.0.1"] })).key;
    const stranger = await makeTenant(db.db);
    await setPreview(db.db, t.tenantId, "test-mode", true);
    const testKey = (
      await issueKey(db.db, { integrationId: t.integrationId, mode: "test", ipAllowlist: ["127.0.0.1"] })
    ).key;
    const missing = await call("GET", `/webhooks/${sub}/deliveries/${crypto.randomUUID()}`, { key: t.key });
    expect([missing.status, missing.body.code]).toEqual([404, "not_found"]);
    for (const [path, key] of [
      [`/webhooks/${otherSub}/deliveries/${id}`, t.key],
      [`/webhooks/${sub}/deliveries/${id}`, secondKey],
      [`/webhooks/${sub}/deliveries/${id}`, stranger.key],
      [`/webhooks/${sub}/deliveries/${id}`, testKey],
    ] as const) {
      const r = await call("GET", path, { key });
      expect([r.status, r.body.code], path).toEqual([404, "not_found"]);
    }
    const old = new Date(Date.now() - 31 * 24 * 3_600_000);
    await db.db.update(webhookDeliveries).set({ createdAt: old }).where(eq(webhookDeliveries.id, id));
    const r = await call("GET", `/webhooks/${sub}/deliveries/${id}`, { key: t.key });
    expect([r.status, r.body.code]).toEqual([404, "not_found"]);
    const re = await resend(sub, id);
    expect([re.status, re.body.code]).toEqual([404, "not_found"]);
  });

  it("is in the OpenAPI document with its named schemas", () => {
    const doc = openApiDocument();
    expect(doc.paths?.["/webhooks/{id}/deliveries/{delivery_id}"]?.get?.operationId).toBe("getWebhookDelivery");
    const post = doc.paths?.["/webhooks/{id}/deliveries/{delivery_id}/resend"]?.post;
    expect(post?.operationId).toBe("resendWebhookDelivery");
    expect(Object.keys(post?.responses ?? {})).toEqual(expect.arrayContaining(["202", "400", "404", "409"]));
    expect(post?.description).toContain(
      "`Idempotency-Key` is required; a replayed answer carries `Idempotent-Replayed: true`.",
    );
    expect((post as { "x-problem-codes"?: string[] })["x-problem-codes"]).toEqual(
      expect.arrayContaining(["idempotency_key_required", "invalid_state", "not_found"]),
    );
    expect(Object.keys(doc.components?.schemas ?? {})).toEqual(
      expect.arrayContaining(["WebhookDeliveryAttempt", "WebhookDeliveryWithAttempts"]),
    );
  });
});

describe("POST /webhooks/{id}/deliveries/{delivery_id}/resend", () => {
  it("starts a new cycle for a dead delivery: 202 pending, due now; the receiver gets it exactly once more", async () => {
    const sub = await subscribe();
    const id = await deadDelivery(sub);
    expect(rx.requests).toHaveLength(1);
    let woken = 0;
    const off = registerWorkListener({ deliveriesDue: () => void woken++, exchangeResumed: () => {} });
    let r;
    try {
      r = await resend(sub, id);
    } finally {
      off();
    }
    expect(r.status).toBe(202);
    expect(Object.keys(r.body).sort()).toEqual(DELIVERY_KEYS);
    expect(r.body).toMatchObject({ id, state: "pending", attempt: 0, status_code: null, error: null });
    expect(Date.parse(r.body.next_attempt_at)).toBeLessThanOrEqual(Date.now());
    expect(woken).toBe(1);

    expect(await runDue()).toBe(1);
    expect(await runDue()).toBe(0);
    expect(rx.requests).toHaveLength(2);
    expect(rx.requests[1]!.headers["service-event-id"]).toBe(rx.requests[0]!.headers["service-event-id"]);
    const after = await call("GET", `/webhooks/${sub}/deliveries/${id}`, { key: t.key });
    expect(after.body).toMatchObject({ state: "delivered", attempt: 1, status_code: 200 });
    // The old cycle's attempt stays in the log, before the new one.
    expect(after.body.attempts.map((a: { response_status: number }) => a.response_status)).toEqual([500, 200]);
  });

  it("resends a failed delivery with a full retry schedule ahead", async () => {
    const sub = await subscribe();
    const id = await queue(sub);
    rx.respond({ kind: "status", status: 500 });
    await attemptDelivery(db.db, id, new Date(), { client });
    const r = await resend(sub, id);
    expect([r.status, r.body.state, r.body.attempt]).toEqual([202, "pending", 0]);
    const [row] = await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
    expect(row).toMatchObject({ state: "pending", attempt: 0, lockedUntil: null });
  });

  it.each(["pending", "delivered"])(
    "answers 409 invalid_state for a %s delivery and changes nothing",
    async (state) => {
      const sub = await subscribe();
      const id = await queue(sub);
      if (state === "delivered") await attemptDelivery(db.db, id, new Date(), { client });
      const [before] = await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
      expect(before!.state).toBe(state);
      const r = await resend(sub, id);
      expect([r.status, r.body.code]).toEqual([409, "invalid_state"]);
      expect((await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)))[0]).toEqual(before);
    },
  );

  it("answers 409 invalid_state while an attempt of a failed delivery is under way", async () => {
    const sub = await subscribe();
    const id = await queue(sub);
    await db.db
      .update(webhookDeliveries)
      .set({ state: "failed", attempt: 1, lockedUntil: new Date(Date.now() + 60_000) })
      .where(eq(webhookDeliveries.id, id));
    const r = await resend(sub, id);
    expect([r.status, r.body.code]).toEqual([409, "invalid_state"]);
    expect(r.body.detail).toMatch(/under way/);
  });

  it("needs an Idempotency-Key, and answers a replay with the delivery as it is now without resending again", async () => {
    const sub = await subscribe();
    const id = await deadDelivery(sub);
    const noKey = await resend(sub, id, null);
    expect([noKey.status, noKey.body.code]).toEqual([400, "idempotency_key_required"]);
    expect((await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)))[0]!.state).toBe("dead");

    const key = idem();
    const first = await resend(sub, id, key);
    expect([first.status, first.body.state]).toEqual([202, "pending"]);
    await runDue();
    expect(rx.requests).toHaveLength(2);
    const replay = await resend(sub, id, key);
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({ id, state: "delivered", attempt: 1 });
    // Nothing was queued again by the replay.
    expect(await runDue()).toBe(0);
    expect(rx.requests).toHaveLength(2);
    const attempts = await db.db
      .select()
      .from(webhookDeliveryAttempts)
      .where(eq(webhookDeliveryAttempts.deliveryId, id));
    expect(attempts).toHaveLength(2);

    // The same key for another delivery is a conflict, not a replay.
    const other = await deadDelivery(sub);
    const conflict = await resend(sub, other, key);
    expect([conflict.status, conflict.body.code]).toEqual([409, "idempotency_conflict"]);
  });

  it("answers 404 for a delivery of another integration or tenant and leaves it dead", async () => {
    const sub = await subscribe();
    const id = await deadDelivery(sub);
    const stranger = await makeTenant(db.db);
    const strangerSub = await subscribe(stranger.key);
    for (const [path, key] of [
      [`/webhooks/${sub}/deliveries/${id}/resend`, stranger.key],
      [`/webhooks/${strangerSub}/deliveries/${id}/resend`, stranger.key],
    ] as const) {
      const r = await call("POST", path, { key, idempotencyKey: idem() });
      expect([r.status, r.body.code], path).toEqual([404, "not_found"]);
    }
    expect((await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)))[0]!.state).toBe("dead");
  });
});
