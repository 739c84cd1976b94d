import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { wallets, webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { changeBalance } from "@/server/services/wallet/wallet-ledger";
import { resumeDeferredDeliveries } from "@/server/services/webhooks/delivery-queue";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { insertSubscription, queueDelivery } from "@/server/testing/webhook-fixture";
import { LOOPBACK_RECEIVER_ENV, startHttpsReceiver, type HttpsReceiver } from "@/server/testing/https-receiver";
import { openTestDatabase } from "@/server/testing/test-db";
import { createDeliveryClient, type DeliveryClient } from "@/server/webhook-transport/delivery-client";
import { newSigningSecret } from "@/server/webhook-transport/secret-box";
import { verifySignature } from "@/server/webhook-transport/signature";
import { setHostResolver } from "@/server/webhook-transport/url-check";
import { attemptDelivery, RETRY_SCHEDULE_MS } from "./attempt-delivery";

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let rx: HttpsReceiver;
let client: DeliveryClient;
let a: TenantFixture;

const MIN = 60_000;
const T0 = new Date(Date.now() + 1000);

type SubscribeOpts = Omit<Parameters<typeof insertSubscription>[2], "url"> & { url?: string };
const subscribe = (t: TenantFixture, opts: SubscribeOpts = {}) =>
  insertSubscription(db.db, t, { ...opts, url: opts.url ?? rx.url });

/** One event queued for one subscription; returns the event and its delivery id. */
const queue = (
  t: TenantFixture,
  subscriptionId: string,
  data: Record<string, unknown> = { lead_id: "4b8f3c1e-0000-4000-8000-000000000001", version: 3 },
  livemode = true,
) => queueDelivery(db.db, t, subscriptionId, { data, livemode });

const row = async (id: string) =>
  (await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)))[0]!;

beforeAll(async () => {
  db = await openTestDatabase({ ...LOOPBACK_RECEIVER_ENV });
  rx = await startHttpsReceiver();
  client = createDeliveryClient({ testCa: rx.certPem, timeoutMs: 3_000 });
  a = await makeTenant(db.db);
});
afterEach(() => {
  rx.respond({ kind: "status", status: 200 });
  rx.requests.length = 0;
  setHostResolver(undefined);
});
afterAll(async () => {
  await client.close();
  await rx.stop();
  await db.drop();
});

describe("a delivery attempt", () => {
  it("POSTs the exact envelope with the contract's headers and a signature that verifies; 2xx → delivered", async () => {
    const sub = await subscribe(a);
    const { eventId, deliveryId } = await queue(a, sub.id);
    const out = await attemptDelivery(db.db, deliveryId, T0, { client });
    expect(out).toEqual({ final: true, state: "delivered", nextAttemptAt: null });

    expect(rx.requests).toHaveLength(1);
    const req = rx.requests[0]!;
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/hook");
    const body = JSON.parse(req.body);
    expect(Object.keys(body)).toEqual(["id", "type", "api_version", "created_at", "livemode", "data"]);
    expect(body).toMatchObject({
      id: eventId,
      type: "lead.created",
      api_version: "2026-10-01",
      livemode: true,
      data: { lead_id: "4b8f3c1e-0000-4000-8000-000000000001", version: 3 },
    });
    expect(body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.headers["service-event-id"]).toBe(eventId);
    expect(req.headers["service-event-type"]).toBe("lead.created");
    expect(req.headers["user-agent"]).toMatch(/^ServiceWebhooks\//);
    const sig = req.headers["service-signature"]!;
    expect(sig).toMatch(new RegExp(`^t=${Math.floor(T0.getTime() / 1000)},v1=[0-9a-f]{64}$`));
    expect(verifySignature(sig, req.body, [sub.secret], { now: T0 })).toBe(true);
    expect(verifySignature(sig, req.body, [newSigningSecret()], { now: T0 })).toBe(false);

    const r = await row(deliveryId);
    expect(r).toMatchObject({
      state: "delivered",
      attempt: 1,
      statusCode: 200,
      error: null,
      nextAttemptAt: null,
      lockedUntil: null,
    });
    expect(r.deliveredAt?.getTime()).toBe(T0.getTime());
    expect(r.durationMs).toBeGreaterThanOrEqual(0);

    // Delivered is final: another step sends nothing and changes nothing.
    expect(await attemptDelivery(db.db, deliveryId, new Date(T0.getTime() + MIN), { client })).toEqual({
      final: true,
      state: "delivered",
      nextAttemptAt: null,
    });
    expect(rx.requests).toHaveLength(1);
    expect((await row(deliveryId)).attempt).toBe(1);
  });

  it("signs with both secrets while the rotation window is open and with the new one only afterwards", async () => {
    const old = newSigningSecret();
    const open = await subscribe(a, { previous: { secret: old, expiresAt: new Date(T0.getTime() + 24 * 60 * MIN) } });
    await attemptDelivery(db.db, (await queue(a, open.id)).deliveryId, T0, { client });
    const closed = await subscribe(a, { previous: { secret: old, expiresAt: new Date(T0.getTime() - 1000) } });
    await attemptDelivery(db.db, (await queue(a, closed.id)).deliveryId, T0, { client });

    const [during, after] = rx.requests;
    expect(during!.headers["service-signature"]!.match(/v1=/g)).toHaveLength(2);
    expect(verifySignature(during!.headers["service-signature"], during!.body, [open.secret], { now: T0 })).toBe(true);
    expect(verifySignature(during!.headers["service-signature"], during!.body, [old], { now: T0 })).toBe(true);
    expect(after!.headers["service-signature"]!.match(/v1=/g)).toHaveLength(1);
    expect(verifySignature(after!.headers["service-signature"], after!.body, [closed.secret], { now: T0 })).toBe(true);
    expect(verifySignature(after!.headers["service-signature"], after!.body, [old], { now: T0 })).toBe(false);
  });

  it("500 → failed with http_500 and a retry after 1 min; retries follow the schedule, t is recomputed, and the 9th failure is dead", async () => {
    rx.respond({ kind: "status", status: 500 });
    const sub = await subscribe(a);
    const { eventId, deliveryId } = await queue(a, sub.id);
    let now = T0;
    for (let attempt = 1; attempt <= 8; attempt++) {
      const out = await attemptDelivery(db.db, deliveryId, now, { client });
      const expected = new Date(now.getTime() + RETRY_SCHEDULE_MS[attempt - 1]!);
      expect(out).toEqual({ final: false, state: "failed", nextAttemptAt: expected });
      const r = await row(deliveryId);
      expect(r).toMatchObject({
        state: "failed",
        attempt,
        statusCode: 500,
        error: "http_500",
        deliveredAt: null,
        lockedUntil: null,
      });
      expect(r.nextAttemptAt?.getTime()).toBe(expected.getTime());
      now = expected;
    }
    expect(RETRY_SCHEDULE_MS.map((m) => m / MIN)).toEqual([1, 5, 15, 60, 180, 360, 720, 1440]);
    const last = await attemptDelivery(db.db, deliveryId, now, { client });
    expect(last).toEqual({ final: true, state: "dead", nextAttemptAt: null });
    expect(await row(deliveryId)).toMatchObject({
      state: "dead",
      attempt: 9,
      statusCode: 500,
      error: "http_500",
      nextAttemptAt: null,
    });

    // Nine POSTs of the same body and event id, each signed with its own t.
    expect(rx.requests).toHaveLength(9);
    expect(new Set(rx.requests.map((r) => r.body)).size).toBe(1);
    expect(rx.requests.every((r) => r.headers["service-event-id"] === eventId)).toBe(true);
    const ts = rx.requests.map((r) => /^t=(\d+),/.exec(r.headers["service-signature"]!)![1]);
    expect(new Set(ts).size).toBe(9);
    // Dead is final: no tenth POST.
    expect((await attemptDelivery(db.db, deliveryId, new Date(now.getTime() + 48 * 60 * MIN), { client })).final).toBe(
      true,
    );
    expect(rx.requests).toHaveLength(9);
  });

  it("a failed delivery that then gets 2xx is delivered", async () => {
    rx.respond({ kind: "status", status: 503 });
    const sub = await subscribe(a);
    const { deliveryId } = await queue(a, sub.id);
    await attemptDelivery(db.db, deliveryId, T0, { client });
    expect(await row(deliveryId)).toMatchObject({ state: "failed", error: "http_503", statusCode: 503 });
    rx.respond({ kind: "status", status: 204 });
    expect((await attemptDelivery(db.db, deliveryId, new Date(T0.getTime() + MIN), { client })).state).toBe(
      "delivered",
    );
    expect(await row(deliveryId)).toMatchObject({ state: "delivered", attempt: 2, statusCode: 204, error: null });
  });

  it.each([
    [{ kind: "status", status: 302 } as const, 302, "redirect_not_followed"],
    [{ kind: "status", status: 404 } as const, 404, "http_404"],
    [{ kind: "reset" } as const, null, "network_error"],
  ])("receiver %j → failed with status %s and %s, nothing followed", async (behaviour, status, error) => {
    rx.respond(behaviour);
    const sub = await subscribe(a);
    const { deliveryId } = await queue(a, sub.id);
    const out = await attemptDelivery(db.db, deliveryId, T0, { client });
    expect(out.state).toBe("failed");
    expect(await row(deliveryId)).toMatchObject({ state: "failed", attempt: 1, statusCode: status, error });
    // The redirect target (another port) was not asked: only our receiver saw one request.
    expect(rx.requests).toHaveLength(1);
  });

  it("a receiver that never answers fails with timeout after the client's deadline", async () => {
    rx.respond({ kind: "hang" });
    const quick = createDeliveryClient({ testCa: rx.certPem, timeoutMs: 300 });
    try {
      const sub = await subscribe(a);
      const { deliveryId } = await queue(a, sub.id);
      const started = Date.now();
      await attemptDelivery(db.db, deliveryId, T0, { client: quick });
      expect(Date.now() - started).toBeLessThan(2_500);
      const r = await row(deliveryId);
      expect(r).toMatchObject({ state: "failed", attempt: 1, statusCode: null, error: "timeout" });
      expect(r.durationMs).toBeGreaterThanOrEqual(290);
      expect(r.nextAttemptAt?.getTime()).toBe(T0.getTime() + MIN);
    } finally {
      await quick.close();
    }
  });

  it("a slow answer inside the deadline still counts", async () => {
    rx.respond({ kind: "slow", delayMs: 150, status: 200 });
    const sub = await subscribe(a);
    const { deliveryId } = await queue(a, sub.id);
    await attemptDelivery(db.db, deliveryId, T0, { client });
    const r = await row(deliveryId);
    expect(r.state).toBe("delivered");
    expect(r.durationMs).toBeGreaterThanOrEqual(140);
  });

  it("a 2xx with a 10 MB body is delivered without downloading the body", async () => {
    rx.respond({ kind: "huge" });
    const sub = await subscribe(a);
    const { deliveryId } = await queue(a, sub.id);
    await attemptDelivery(db.db, deliveryId, T0, { client });
    expect(await row(deliveryId)).toMatchObject({ state: "delivered", statusCode: 200, error: null });
    // The client hung up early: the receiver never got to finish writing its 10 MB.
    await new Promise((r) => setTimeout(r, 100));
    expect(rx.hugeWrites.at(-1)!.finished).toBe(false);
    expect(rx.hugeWrites.at(-1)!.written).toBeLessThan(10 * 1024 * 1024);
  });

  it("refuses a host that resolves to a private address at connect time, even if it looked public when checked", async () => {
    const sub = await subscribe(a, { url: `https://localhost:${rx.port}/hook` });
    // Control: through the guarded lookup, localhost → 127.0.0.1 (allowed by the test setting) is delivered.
    setHostResolver(async () => [{ address: "127.0.0.1", family: 4 }]);
    const ok = await queue(a, sub.id);
    expect((await attemptDelivery(db.db, ok.deliveryId, T0, { client })).state).toBe("delivered");
    expect(rx.requests).toHaveLength(1);

    // DNS rebinding: the URL check sees 127.0.0.1, the connection's lookup then gets 10.0.0.1. A fresh
    // client, because a kept-alive connection to the address checked before would be reused (rightly).
    let calls = 0;
    setHostResolver(async () => [{ address: ++calls === 1 ? "127.0.0.1" : "10.0.0.1", family: 4 }]);
    const bad = await queue(a, sub.id);
    const fresh = createDeliveryClient({ testCa: rx.certPem, timeoutMs: 3_000 });
    await attemptDelivery(db.db, bad.deliveryId, T0, { client: fresh }).finally(() => fresh.close());
    expect(calls).toBe(2);
    expect(await row(bad.deliveryId)).toMatchObject({
      state: "failed",
      attempt: 1,
      statusCode: null,
      error: "private_address",
    });
    expect(rx.requests).toHaveLength(1);

    // Resolving to a private address from the start is refused by the per-attempt URL check.
    setHostResolver(async () => [{ address: "192.168.1.10", family: 4 }]);
    const early = await queue(a, sub.id);
    await attemptDelivery(db.db, early.deliveryId, T0, { client });
    expect(await row(early.deliveryId)).toMatchObject({ state: "failed", error: "private_address" });

    setHostResolver(async () => []);
    const nowhere = await queue(a, sub.id);
    await attemptDelivery(db.db, nowhere.deliveryId, T0, { client });
    expect(await row(nowhere.deliveryId)).toMatchObject({ state: "failed", error: "network_error" });
    expect(rx.requests).toHaveLength(1);
  });

  it("an http:// address fails with https_only and sends nothing", async () => {
    const sub = await subscribe(a, { url: `http://127.0.0.1:${rx.port}/hook` });
    const { deliveryId } = await queue(a, sub.id);
    await attemptDelivery(db.db, deliveryId, T0, { client });
    expect(await row(deliveryId)).toMatchObject({ state: "failed", attempt: 1, statusCode: null, error: "https_only" });
    expect(rx.requests).toHaveLength(0);
  });

  it("a paused subscription defers 15 minutes without spending an attempt", async () => {
    const sub = await subscribe(a);
    const { deliveryId } = await queue(a, sub.id);
    await db.db.update(webhookSubscriptions).set({ status: "paused" }).where(eq(webhookSubscriptions.id, sub.id));
    const out = await attemptDelivery(db.db, deliveryId, T0, { client });
    expect(out).toEqual({ final: false, state: "pending", nextAttemptAt: new Date(T0.getTime() + 15 * MIN) });
    expect(await row(deliveryId)).toMatchObject({ state: "pending", attempt: 0, error: null });
    expect(rx.requests).toHaveLength(0);
  });

  it("a paused subscription's delivery older than the 30-day retention becomes dead with subscription_paused", async () => {
    const sub = await subscribe(a);
    const { deliveryId } = await queue(a, sub.id);
    await db.db.update(webhookSubscriptions).set({ status: "paused" }).where(eq(webhookSubscriptions.id, sub.id));
    const later = new Date(Date.now() + 30 * 24 * 60 * MIN + MIN);
    expect(await attemptDelivery(db.db, deliveryId, later, { client })).toEqual({
      final: true,
      state: "dead",
      nextAttemptAt: null,
    });
    expect(await row(deliveryId)).toMatchObject({
      state: "dead",
      attempt: 0,
      error: "subscription_paused",
      nextAttemptAt: null,
    });
    expect(rx.requests).toHaveLength(0);
  });

  it("a worker whose lease was taken over neither sends nor records; one that loses it mid-request does not record", async () => {
    const sub = await subscribe(a);
    const { deliveryId } = await queue(a, sub.id);
    const d = webhookDeliveries;
    const current = new Date(Date.now() + 60_000);
    await db.db.update(d).set({ lockedUntil: current }).where(eq(d.id, deliveryId));
    const stale = await attemptDelivery(db.db, deliveryId, T0, { client, lease: new Date(current.getTime() - 30_000) });
    expect(stale).toMatchObject({ final: false, state: "pending" });
    expect(rx.requests).toHaveLength(0);
    // Without a lease, a step does nothing while another worker's lease is live.
    expect(await attemptDelivery(db.db, deliveryId, T0, { client })).toEqual({
      final: false,
      state: "pending",
      nextAttemptAt: current,
    });
    expect(rx.requests).toHaveLength(0);

    // Lease taken over while the receiver is answering: the POST went out, the outcome is not written.
    rx.respond({ kind: "slow", delayMs: 300, status: 200 });
    const running = attemptDelivery(db.db, deliveryId, T0, { client, lease: current });
    await new Promise((r) => setTimeout(r, 100));
    await db.db
      .update(d)
      .set({ lockedUntil: new Date(current.getTime() + 1000) })
      .where(eq(d.id, deliveryId));
    expect((await running).state).toBe("pending");
    expect(rx.requests).toHaveLength(1);
    expect(await row(deliveryId)).toMatchObject({ state: "pending", attempt: 0, statusCode: null, deliveredAt: null });
  });
});

describe("while the tenant's exchange is suspended", () => {
  let poor: TenantFixture;
  beforeAll(async () => {
    poor = await makeTenant(db.db, { balanceMinor: 0n });
    await changeBalance(db.db, { tenantId: poor.tenantId, amountMinor: -500n, kind: "charge", actor: "system" });
  });

  it("defers 15 minutes without an attempt, marked wallet_suspended", async () => {
    const sub = await subscribe(poor);
    const { deliveryId } = await queue(poor, sub.id);
    const out = await attemptDelivery(db.db, deliveryId, T0, { client });
    expect(out).toEqual({ final: false, state: "pending", nextAttemptAt: new Date(T0.getTime() + 15 * MIN) });
    const r = await row(deliveryId);
    expect(r).toMatchObject({
      state: "pending",
      attempt: 0,
      statusCode: null,
      error: "wallet_suspended",
      lockedUntil: null,
    });
    expect(r.nextAttemptAt?.getTime()).toBe(T0.getTime() + 15 * MIN);
    expect(rx.requests).toHaveLength(0);
  });

  it("a failed delivery keeps its attempt count while deferred", async () => {
    const sub = await subscribe(poor);
    const { deliveryId } = await queue(poor, sub.id);
    await db.db
      .update(webhookDeliveries)
      .set({ state: "failed", attempt: 3, error: "http_500" })
      .where(eq(webhookDeliveries.id, deliveryId));
    const out = await attemptDelivery(db.db, deliveryId, T0, { client });
    expect(out.state).toBe("failed");
    expect(await row(deliveryId)).toMatchObject({ state: "failed", attempt: 3, error: "wallet_suspended" });
  });

  it("an event older than the 30-day retention becomes dead with wallet_suspended", async () => {
    const sub = await subscribe(poor);
    const { deliveryId } = await queue(poor, sub.id);
    const later = new Date(Date.now() + 30 * 24 * 60 * MIN + MIN);
    expect(await attemptDelivery(db.db, deliveryId, later, { client })).toEqual({
      final: true,
      state: "dead",
      nextAttemptAt: null,
    });
    expect(await row(deliveryId)).toMatchObject({
      state: "dead",
      attempt: 0,
      error: "wallet_suspended",
      nextAttemptAt: null,
    });
    expect(rx.requests).toHaveLength(0);
  });
});

describe("each mode's deliveries wait on that mode's wallet (issue 69)", () => {
  const LEAD = { lead_id: "4b8f3c1e-0000-4000-8000-000000000002", version: 1 };

  it("a sandbox delivery goes out while the live wallet is negative, and the other way round", async () => {
    const t = await makeTenant(db.db, { balanceMinor: 0n });
    await changeBalance(db.db, { tenantId: t.tenantId, amountMinor: -500n, kind: "charge", actor: "system" });
    const liveSub = await subscribe(t);
    const testSub = await subscribe(t, { livemode: false });
    // No sandbox wallet yet (not seeded): its state is unknown, and exchange stays active (spec).
    const sandbox = await queue(t, testSub.id, LEAD, false);
    expect(await attemptDelivery(db.db, sandbox.deliveryId, T0, { client })).toMatchObject({ state: "delivered" });
    const live = await queue(t, liveSub.id, LEAD);
    expect(await attemptDelivery(db.db, live.deliveryId, T0, { client })).toMatchObject({ state: "pending" });
    expect(await row(live.deliveryId)).toMatchObject({ error: "wallet_suspended", attempt: 0 });
    expect(rx.requests.map((r) => JSON.parse(r.body).id)).toEqual([sandbox.eventId]);
    expect(JSON.parse(rx.requests[0]!.body).livemode).toBe(false);

    // A blocked sandbox wallet defers only the sandbox's deliveries; the live ones go once the live wallet is topped up.
    await db.db
      .insert(wallets)
      .values({ tenantId: t.tenantId, livemode: false, balanceMinor: 100_000n, blocked: true });
    await db.db
      .update(wallets)
      .set({ balanceMinor: 100_000n })
      .where(and(eq(wallets.tenantId, t.tenantId), eq(wallets.livemode, true)));
    const later = new Date(T0.getTime() + 15 * MIN);
    const blocked = await queue(t, testSub.id, LEAD, false);
    expect(await attemptDelivery(db.db, blocked.deliveryId, later, { client })).toMatchObject({ state: "pending" });
    expect(await row(blocked.deliveryId)).toMatchObject({ error: "wallet_suspended" });
    expect(await attemptDelivery(db.db, live.deliveryId, later, { client })).toMatchObject({ state: "delivered" });
  });

  it("a resumed wallet makes only its own mode's deferred deliveries due", async () => {
    const t = await makeTenant(db.db);
    const liveSub = await subscribe(t);
    const testSub = await subscribe(t, { livemode: false });
    const live = await queue(t, liveSub.id, LEAD);
    const sandbox = await queue(t, testSub.id, LEAD, false);
    const future = new Date(Date.now() + 15 * MIN);
    for (const id of [live.deliveryId, sandbox.deliveryId])
      await db.db
        .update(webhookDeliveries)
        .set({ error: "wallet_suspended", nextAttemptAt: future })
        .where(eq(webhookDeliveries.id, id));
    expect(await resumeDeferredDeliveries(db.db, { tenantId: t.tenantId, livemode: false })).toBe(1);
    expect((await row(sandbox.deliveryId)).nextAttemptAt!.getTime()).toBeLessThanOrEqual(Date.now());
    expect((await row(live.deliveryId)).nextAttemptAt!.getTime()).toBe(future.getTime());
    expect(await resumeDeferredDeliveries(db.db, { tenantId: t.tenantId, livemode: true })).toBe(1);
    expect((await row(live.deliveryId)).nextAttemptAt!.getTime()).toBeLessThanOrEqual(Date.now());
  });
});
