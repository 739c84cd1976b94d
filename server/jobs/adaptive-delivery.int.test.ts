import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { setClock } from "@/server/lib/clock";
import { recordEventWithDeliveries } from "@/server/services/events/outbox";
import { registerWorkListener } from "@/server/services/events/work-notifier";
import { call } from "@/server/testing/api-client";
import { makeStaff, makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { insertSubscription, queueDelivery } from "@/server/testing/webhook-fixture";
import { LOOPBACK_RECEIVER_ENV, startHttpsReceiver, type HttpsReceiver } from "@/server/testing/https-receiver";
import { startSmtpCatcher, type SmtpCatcher } from "@/server/testing/smtp-catcher";
import { openTestDatabase } from "@/server/testing/test-db";
import { createDeliveryClient, type DeliveryClient } from "@/server/webhook-transport/delivery-client";
import { attemptDelivery } from "./attempt-delivery";

// Issue 75 item 4, adaptive delivery: the receiver's Retry-After on 429/503, and the pause of a
// subscription whose attempts all failed for 3 days, its email, and its resume (API PATCH).

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let rx: HttpsReceiver;
let smtp: SmtpCatcher;
let client: DeliveryClient;
let a: TenantFixture;

const SEC = 1000;
const MIN = 60 * SEC;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
// A whole second, so an HTTP-date (second precision) names an exact offset from it.
const T0 = new Date(Math.ceil((Date.now() + SEC) / SEC) * SEC);
const at = (ms: number) => new Date(T0.getTime() + ms);

const subscribe = async (t: TenantFixture) => (await insertSubscription(db.db, t, { url: rx.url })).id;
const queue = async (t: TenantFixture, subscriptionId: string) =>
  (await queueDelivery(db.db, t, subscriptionId)).deliveryId;

const delivery = async (id: string) =>
  (await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)))[0]!;
const subscription = async (id: string) =>
  (await db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, id)))[0]!;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  db = await openTestDatabase({ ...LOOPBACK_RECEIVER_ENV, SMTP_URL: smtp.url });
  rx = await startHttpsReceiver();
  client = createDeliveryClient({ testCa: rx.certPem, timeoutMs: 3_000 });
  a = await makeTenant(db.db);
});
afterEach(() => {
  rx.respond({ kind: "status", status: 200 });
  rx.requests.length = 0;
  setClock(undefined);
});
afterAll(async () => {
  await client.close();
  await rx.stop();
  await smtp.close();
  await db.drop();
});

describe("Retry-After on 429 and 503", () => {
  it.each([
    ["429, Retry-After: 120", 429, "120", 120 * SEC],
    ["429, Retry-After shorter than the schedule's 1 min", 429, "10", MIN],
    ["503, an HTTP-date 2 h ahead", 503, at(2 * HOUR).toUTCString(), 2 * HOUR],
    ["503, an HTTP-date in the past", 503, at(-HOUR).toUTCString(), MIN],
    ["429, a week: capped at 24 h", 429, String(7 * 24 * 3600), DAY],
    ["429, garbage", 429, "in a while", MIN],
    ["500 ignores Retry-After", 500, "600", MIN],
  ])("%s → the next attempt waits accordingly", async (_name, status, retryAfter, pause) => {
    rx.respond({ kind: "status", status, headers: { "Retry-After": retryAfter } });
    const deliveryId = await queue(a, await subscribe(a));
    const out = await attemptDelivery(db.db, deliveryId, T0, { client });
    expect(out).toEqual({ final: false, state: "failed", nextAttemptAt: at(pause) });
    const r = await delivery(deliveryId);
    expect(r).toMatchObject({ state: "failed", attempt: 1, statusCode: status, error: `http_${status}` });
    expect(r.nextAttemptAt?.getTime()).toBe(T0.getTime() + pause);
    expect(rx.requests).toHaveLength(1);
  });

  it("later attempts keep the schedule as their minimum (the 4th pause is 1 h)", async () => {
    rx.respond({ kind: "status", status: 429, headers: { "Retry-After": "120" } });
    const deliveryId = await queue(a, await subscribe(a));
    await db.db
      .update(webhookDeliveries)
      .set({ attempt: 3, state: "failed" })
      .where(eq(webhookDeliveries.id, deliveryId));
    expect((await attemptDelivery(db.db, deliveryId, T0, { client })).nextAttemptAt).toEqual(at(HOUR));
  });
});

describe("a subscription failing for 3 days", () => {
  it("is paused with paused_reason failing, its staff are mailed once, and its deliveries wait without attempts until PATCH status active sends them at once", async () => {
    const t = await makeTenant(db.db);
    const manager = await makeStaff(db.db, t.tenantId, ["manage_webhooks"]);
    const other = await makeStaff(db.db, t.tenantId, ["topup_wallet"]);
    const subId = await subscribe(t);
    rx.respond({ kind: "status", status: 500 });

    // Day 0: the first failure opens the run.
    const first = await queue(t, subId);
    await attemptDelivery(db.db, first, T0, { client });
    expect(await subscription(subId)).toMatchObject({ status: "active", pausedReason: null, failingSince: T0 });

    // Day 2 and just short of day 3: still failing, still active; the run keeps its start.
    const second = await queue(t, subId);
    await attemptDelivery(db.db, second, at(2 * DAY), { client });
    await attemptDelivery(db.db, first, at(3 * DAY - MIN), { client });
    expect(await subscription(subId)).toMatchObject({ status: "active", pausedReason: null, failingSince: T0 });

    // A delivery queued before the pause that has not had its first attempt yet.
    const third = await queue(t, subId);

    // Day 3: the failure that completes three days pauses it, in the outcome's write.
    const out = await attemptDelivery(db.db, second, at(3 * DAY), { client });
    expect(out.state).toBe("failed");
    expect(await subscription(subId)).toMatchObject({ status: "paused", pausedReason: "failing", failingSince: T0 });
    expect((await delivery(second)).attempt).toBe(2);

    const mail = await smtp.waitFor(`${manager}@example.com`);
    expect(mail.subject).toBe("Webhook to 127.0.0.1:" + rx.port + " paused: its deliveries failed for 3 days");
    expect(mail.text).toContain(subId);
    expect(mail.text).toContain("/console/webhooks");
    expect(mail.text).not.toContain("/hook");
    expect(smtp.to(`${other}@example.com`)).toHaveLength(0);

    // The API shows why.
    setClock(() => at(3 * DAY + MIN).getTime());
    const read = await call("GET", `/webhooks/${subId}`, { key: t.key });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: subId, status: "paused", paused_reason: "failing" });

    // While paused, no waiting delivery spends an attempt or reaches the receiver (and no new event is
    // queued for it: fan-out skips paused subscriptions, so no backlog builds up).
    expect(
      (
        await recordEventWithDeliveries(
          db.db,
          { tenantId: t.tenantId, livemode: true, type: "lead.created", data: { lead_id: crypto.randomUUID() } },
          { onlySubscriptionId: subId },
        )
      ).deliveryIds,
    ).toEqual([]);
    rx.requests.length = 0;
    for (const id of [first, second, third]) {
      const before = (await delivery(id)).attempt;
      const waited = await attemptDelivery(db.db, id, at(3 * DAY + MIN), { client });
      expect(waited).toMatchObject({ final: false, nextAttemptAt: at(3 * DAY + 16 * MIN) });
      expect((await delivery(id)).attempt).toBe(before);
    }
    expect(rx.requests).toHaveLength(0);
    // Already paused: a later failure (a request in flight at the pause) mails nobody again.
    expect(smtp.to(`${manager}@example.com`)).toHaveLength(1);

    // Resume through the API: reason and run cleared, the waiting deliveries due now and announced.
    const announced: string[] = [];
    const stop = registerWorkListener({
      deliveriesDue: (ids) => void announced.push(...ids),
      exchangeResumed: () => {},
    });
    rx.respond({ kind: "status", status: 200 });
    const resumed = await call("PATCH", `/webhooks/${subId}`, { key: t.key, json: { status: "active" } }).finally(stop);
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ status: "active", paused_reason: null });
    expect(await subscription(subId)).toMatchObject({ status: "active", pausedReason: null, failingSince: null });
    expect(announced.sort()).toEqual([first, second, third].sort());
    for (const id of [first, second, third])
      expect((await delivery(id)).nextAttemptAt?.getTime()).toBe(at(3 * DAY + MIN).getTime());
    expect((await call("GET", `/webhooks/${subId}`, { key: t.key })).body.paused_reason).toBeNull();

    for (const id of [first, second, third])
      expect((await attemptDelivery(db.db, id, at(3 * DAY + MIN), { client })).state).toBe("delivered");
    expect(rx.requests).toHaveLength(3);
    expect(smtp.to(`${manager}@example.com`)).toHaveLength(1);
  });

  it("a success in between ends the run, so failures around it do not add up to 3 days", async () => {
    const t = await makeTenant(db.db);
    const subId = await subscribe(t);
    rx.respond({ kind: "status", status: 503 });
    await attemptDelivery(db.db, await queue(t, subId), T0, { client });
    expect((await subscription(subId)).failingSince).toEqual(T0);

    rx.respond({ kind: "status", status: 200 });
    await attemptDelivery(db.db, await queue(t, subId), at(2 * DAY), { client });
    expect((await subscription(subId)).failingSince).toBeNull();

    rx.respond({ kind: "status", status: 503 });
    await attemptDelivery(db.db, await queue(t, subId), at(2 * DAY + HOUR), { client });
    await attemptDelivery(db.db, await queue(t, subId), at(4 * DAY), { client });
    expect(await subscription(subId)).toMatchObject({
      status: "active",
      pausedReason: null,
      failingSince: at(2 * DAY + HOUR),
    });
  });

  it("a subscription paused by its owner keeps paused_reason null, and resuming it still sends what waited", async () => {
    const t = await makeTenant(db.db);
    const subId = await subscribe(t);
    const waiting = await queue(t, subId);
    const paused = await call("PATCH", `/webhooks/${subId}`, { key: t.key, json: { status: "paused" } });
    expect(paused.body).toMatchObject({ status: "paused", paused_reason: null });
    setClock(() => at(HOUR).getTime());
    await attemptDelivery(db.db, waiting, at(HOUR), { client });
    expect((await delivery(waiting)).nextAttemptAt).toEqual(at(HOUR + 15 * MIN));
    await call("PATCH", `/webhooks/${subId}`, { key: t.key, json: { status: "active" } });
    expect((await delivery(waiting)).nextAttemptAt).toEqual(at(HOUR));
    expect((await attemptDelivery(db.db, waiting, at(HOUR), { client })).state).toBe("delivered");
  });
});
