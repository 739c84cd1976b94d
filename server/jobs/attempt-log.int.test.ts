import { asc, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { webhookDeliveries, webhookDeliveryAttempts, webhookSubscriptions } from "@/db/schema";
import { runRetention } from "@/server/jobs/retention";
import { setClock } from "@/server/lib/clock";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { insertSubscription, queueDelivery } from "@/server/testing/webhook-fixture";
import { LOOPBACK_RECEIVER_ENV, startHttpsReceiver, type HttpsReceiver } from "@/server/testing/https-receiver";
import { openTestDatabase } from "@/server/testing/test-db";
import { createDeliveryClient, type DeliveryClient } from "@/server/webhook-transport/delivery-client";
import { attemptDelivery } from "./attempt-delivery";

// Issue 75 item 2: every HTTP attempt of a delivery leaves one row in the attempt log, written with the
// delivery's outcome by the attempt that wins the guard, holding only the allow-listed answer headers and
// the first 2 KB of the answer; a connection error logs its code with no answer.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let rx: HttpsReceiver;
let client: DeliveryClient;
let a: TenantFixture;

const MIN = 60_000;
const T0 = new Date(Date.now() + 1000);
const at = (m: number) => new Date(T0.getTime() + m * MIN);

async function queued(livemode = true): Promise<string> {
  const sub = await insertSubscription(db.db, a, { url: rx.url, livemode });
  return (await queueDelivery(db.db, a, sub.id, { livemode })).deliveryId;
}

const attemptsOf = (deliveryId: string) =>
  db.db
    .select()
    .from(webhookDeliveryAttempts)
    .where(eq(webhookDeliveryAttempts.deliveryId, deliveryId))
    .orderBy(asc(webhookDeliveryAttempts.attemptedAt));

beforeAll(async () => {
  db = await openTestDatabase({ ...LOOPBACK_RECEIVER_ENV });
  rx = await startHttpsReceiver();
  client = createDeliveryClient({ testCa: rx.certPem, timeoutMs: 2_000 });
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
  await db.drop();
});

describe("the attempt log", () => {
  it("logs each attempt with the allow-listed headers only and the body cut at 2 KB", async () => {
    const id = await queued();
    const body = "é" + "x".repeat(5000);
    rx.respond({
      kind: "answer",
      status: 503,
      headers: {
        "Content-Type": "text/plain; charset=utf-8",
        "Retry-After": "120",
        Server: "receiver/1.0",
        "Set-Cookie": "session=secret-cookie",
        "X-Internal-Token": "tok_do_not_keep",
        Authorization: "Bearer nope",
      },
      body,
    });
    expect(await attemptDelivery(db.db, id, T0, { client })).toMatchObject({ state: "failed" });
    rx.respond({ kind: "answer", status: 200, headers: { "Content-Type": "application/json" }, body: '{"ok":true}' });
    expect(await attemptDelivery(db.db, id, at(1), { client })).toMatchObject({ state: "delivered" });

    const rows = await attemptsOf(id);
    expect(rows).toHaveLength(2);
    const [first, second] = rows;
    expect(first).toMatchObject({
      tenantId: a.tenantId,
      livemode: true,
      attemptedAt: T0,
      responseStatus: 503,
      error: "http_503",
    });
    expect(Object.keys(first!.responseHeaders!).sort()).toEqual(["content-type", "date", "retry-after", "server"]);
    expect(first!.responseHeaders).toMatchObject({
      "content-type": "text/plain; charset=utf-8",
      "retry-after": "120",
      server: "receiver/1.0",
    });
    expect(new Date(first!.responseHeaders!.date!).getTime()).not.toBeNaN();
    // 2048 bytes: "é" is two of them, so 2046 x follow.
    expect(first!.responseBody).toBe("é" + "x".repeat(2046));
    expect(Buffer.byteLength(first!.responseBody!)).toBe(2048);
    expect(first!.durationMs).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(rows)).not.toMatch(/secret-cookie|tok_do_not_keep|Bearer nope/);

    expect(second).toMatchObject({ attemptedAt: at(1), responseStatus: 200, responseBody: '{"ok":true}', error: null });
    expect(second!.responseHeaders).toMatchObject({ "content-type": "application/json" });
    // The journal row keeps the last attempt's figures, as before.
    const [row] = await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
    expect(row).toMatchObject({ state: "delivered", attempt: 2, statusCode: 200, durationMs: second!.durationMs });
  });

  it("drops a multi-byte character cut at 2 KB and stores NUL as U+FFFD", async () => {
    const id = await queued();
    // 2047 bytes of "a", then a 3-byte character across the boundary; a NUL early on.
    rx.respond({ kind: "answer", status: 500, body: Buffer.from("\u0000" + "a".repeat(2046) + "€tail") });
    await attemptDelivery(db.db, id, T0, { client });
    const [row] = await attemptsOf(id);
    expect(row!.responseBody).toBe("\uFFFD" + "a".repeat(2046));
  });

  it("logs a connection error with its code and no answer", async () => {
    const id = await queued();
    rx.respond({ kind: "reset" });
    expect(await attemptDelivery(db.db, id, T0, { client })).toMatchObject({ state: "failed" });
    const rows = await attemptsOf(id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      responseStatus: null,
      responseHeaders: null,
      responseBody: null,
      error: "network_error",
    });
  });

  it("logs a timeout as such", async () => {
    const id = await queued();
    rx.respond({ kind: "hang" });
    await attemptDelivery(db.db, id, T0, { client });
    const rows = await attemptsOf(id);
    expect(rows.map((r) => [r.responseStatus, r.responseHeaders, r.error])).toEqual([[null, null, "timeout"]]);
    expect(rows[0]!.durationMs).toBeGreaterThanOrEqual(1_900);
  });

  it("logs an attempt of a sandbox delivery in the sandbox", async () => {
    const id = await queued(false);
    await attemptDelivery(db.db, id, T0, { client });
    const rows = await attemptsOf(id);
    expect(rows.map((r) => [r.tenantId, r.livemode, r.responseStatus])).toEqual([[a.tenantId, false, 200]]);
  });

  it("leaves no attempt row when the attempt lost its lease to another worker", async () => {
    const id = await queued();
    rx.respond({ kind: "slow", delayMs: 400, status: 200 });
    const lease = new Date(Date.now() + 60_000);
    await db.db.update(webhookDeliveries).set({ lockedUntil: lease }).where(eq(webhookDeliveries.id, id));
    const step = attemptDelivery(db.db, id, T0, { client, lease });
    // While the POST is out, the lease passes to another worker (it expired and was taken over).
    await new Promise((r) => setTimeout(r, 150));
    const other = new Date(Date.now() + 120_000);
    await db.db.update(webhookDeliveries).set({ lockedUntil: other }).where(eq(webhookDeliveries.id, id));
    expect(await step).toMatchObject({ state: "pending" });
    expect(rx.requests).toHaveLength(1);
    expect(await attemptsOf(id)).toEqual([]);
    const [row] = await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
    expect(row).toMatchObject({ state: "pending", attempt: 0 });
  });

  it("writes no attempt row for a deferral (paused subscription: no attempt spent)", async () => {
    const id = await queued();
    const [d] = await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
    await db.db
      .update(webhookSubscriptions)
      .set({ status: "paused" })
      .where(eq(webhookSubscriptions.id, d!.subscriptionId));
    await attemptDelivery(db.db, id, T0, { client });
    expect(rx.requests).toHaveLength(0);
    expect(await attemptsOf(id)).toEqual([]);
  });

  it("goes with its delivery when the retention removes the delivery", async () => {
    const id = await queued();
    await attemptDelivery(db.db, id, T0, { client });
    expect(await attemptsOf(id)).toHaveLength(1);
    setClock(() => T0.getTime() + 31 * 24 * 60 * MIN);
    const r = await runRetention(db.db);
    expect(r.webhookDeliveries).toBeGreaterThanOrEqual(1);
    expect(await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id))).toEqual([]);
    expect(await attemptsOf(id)).toEqual([]);
  });
});
