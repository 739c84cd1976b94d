import { eq, inArray } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { recordEventWithDeliveries } from "@/server/services/events/outbox";
import { changeBalance, setWalletBlocked } from "@/server/services/wallet/wallet-ledger";
import { makeStaff, makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { handlePaymentNotification } from "@/server/services/payments/payment-settle";
import { startPayment } from "@/server/services/payments/payments";
import { decideSandboxCheckout, SANDBOX_SIGNATURE_HEADER } from "@/server/services/payments/sandbox-provider";
import { LOOPBACK_RECEIVER_ENV, startHttpsReceiver, type HttpsReceiver } from "@/server/testing/https-receiver";
import { openTestDatabase } from "@/server/testing/test-db";
import { createDeliveryClient, type DeliveryClient } from "@/server/webhook-transport/delivery-client";
import { newSigningSecret, sealSecret } from "@/server/webhook-transport/secret-box";
import { verifySignature } from "@/server/webhook-transport/signature";
import { startLocalDriver, type LocalDriver } from "./local-driver";

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let rx: HttpsReceiver;
let client: DeliveryClient;
let driver: LocalDriver | null = null;

async function subscribe(t: TenantFixture, secret: string): Promise<string> {
  const [row] = await db.db
    .insert(webhookSubscriptions)
    .values({
      tenantId: t.tenantId,
      integrationId: t.integrationId,
      url: rx.url,
      events: ["task.*"],
      secretEnc: sealSecret(secret),
    })
    .returning({ id: webhookSubscriptions.id });
  return row.id;
}

async function queue(t: TenantFixture, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++)
    ids.push(
      ...(
        await recordEventWithDeliveries(db.db, {
          tenantId: t.tenantId,
          livemode: true,
          type: "task.created",
          data: { task_id: String(i) },
        })
      ).deliveryIds,
    );
  return ids;
}

const rowsOf = (ids: string[]) => db.db.select().from(webhookDeliveries).where(inArray(webhookDeliveries.id, ids));

/** Polls until `check` holds or `ms` passed. */
async function waitFor(check: () => Promise<boolean>, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  db = await openTestDatabase({ ...LOOPBACK_RECEIVER_ENV });
  rx = await startHttpsReceiver();
  client = createDeliveryClient({ testCa: rx.certPem, timeoutMs: 3_000 });
});
afterEach(async () => {
  await driver?.stop();
  driver = null;
  rx.respond({ kind: "status", status: 200 });
  rx.requests.length = 0;
});
afterAll(async () => {
  await client.close();
  await rx.stop();
  await db.drop();
});

describe("the local driver", () => {
  it("delivers queued events with bounded concurrency, each signed and each once", async () => {
    const t = await makeTenant(db.db);
    const secret = newSigningSecret();
    await subscribe(t, secret);
    rx.respond({ kind: "slow", delayMs: 100, status: 200 });
    driver = startLocalDriver(db.db, { client, concurrency: 4, pollMs: 50 });
    const ids = await queue(t, 10);
    await waitFor(async () => (await rowsOf(ids)).every((r) => r.state === "delivered"), 10_000);
    expect(rx.requests).toHaveLength(10);
    for (const r of rx.requests) expect(verifySignature(r.headers["service-signature"], r.body, [secret])).toBe(true);
    expect(new Set(rx.requests.map((r) => r.headers["service-event-id"])).size).toBe(10);
    // With 4 slots and 100 ms answers, 10 deliveries need at least three rounds.
    const span = rx.requests.at(-1)!.receivedAt.getTime() - rx.requests[0]!.receivedAt.getTime();
    expect(span).toBeGreaterThanOrEqual(150);
  });

  it("keeps a slow subscription to 4 attempts in flight across two workers, and another tenant's delivery goes first (issue 75 item 5)", async () => {
    const slow = await makeTenant(db.db);
    const other = await makeTenant(db.db);
    await subscribe(slow, newSigningSecret());
    await subscribe(other, newSigningSecret());
    const delayMs = 300;
    rx.respond({ kind: "slow", delayMs, status: 200 });
    const ids = await queue(slow, 50);
    const second = startLocalDriver(db.db, { client, concurrency: 16, pollMs: 50 });
    driver = startLocalDriver(db.db, { client, concurrency: 16, pollMs: 50 });
    try {
      await waitFor(async () => rx.requests.length >= 4, 5_000);
      const queued = Date.now();
      const [late] = await queue(other, 1);
      await waitFor(async () => (await rowsOf([late!]))[0]!.state === "delivered", 5_000);
      // Behind at most one round of the slow receiver's answers, not behind its backlog (50 × 300 ms / 4).
      expect(Date.now() - queued).toBeLessThan(2_000);
      expect((await rowsOf(ids)).filter((r) => r.state === "delivered").length).toBeLessThan(45);
      await waitFor(async () => (await rowsOf(ids)).every((r) => r.state === "delivered"), 30_000);
    } finally {
      await second.stop();
    }
    expect(rx.requests).toHaveLength(51);
    const slowEvents = new Set((await rowsOf(ids)).map((r) => r.eventId));
    const times = rx.requests
      .filter((r) => slowEvents.has(r.headers["service-event-id"]!))
      .map((r) => r.receivedAt.getTime())
      .sort((x, y) => x - y);
    expect(times).toHaveLength(50);
    // Requests that arrived within one answer's time of each other were at the receiver together.
    const together = times.map((t) => times.filter((u) => u >= t && u < t + delayMs - 20).length);
    expect(Math.max(...together)).toBeLessThanOrEqual(4);
    expect(Math.max(...together)).toBeGreaterThanOrEqual(3);
  });

  it("stop() waits for the attempts in flight and records them", async () => {
    const t = await makeTenant(db.db);
    await subscribe(t, newSigningSecret());
    rx.respond({ kind: "slow", delayMs: 400, status: 200 });
    driver = startLocalDriver(db.db, { client, pollMs: 20 });
    const [id] = await queue(t, 1);
    await waitFor(async () => rx.requests.length === 1, 5_000);
    await driver.stop();
    driver = null;
    expect((await rowsOf([id!]))[0]).toMatchObject({ state: "delivered", attempt: 1, lockedUntil: null });
  });

  it("schedules a retry after a failure instead of hammering the receiver", async () => {
    const t = await makeTenant(db.db);
    await subscribe(t, newSigningSecret());
    rx.respond({ kind: "status", status: 500 });
    driver = startLocalDriver(db.db, { client, pollMs: 20 });
    const [id] = await queue(t, 1);
    await waitFor(async () => (await rowsOf([id!]))[0]!.state === "failed", 5_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(rx.requests).toHaveLength(1);
    const r = (await rowsOf([id!]))[0]!;
    expect(r).toMatchObject({ attempt: 1, error: "http_500" });
    expect(Math.abs(r.nextAttemptAt!.getTime() - Date.now() - 60_000)).toBeLessThan(5_000);
  });

  it("defers deliveries while the wallet is negative and delivers them within seconds of a top-up", async () => {
    const t = await makeTenant(db.db, { balanceMinor: 0n });
    await subscribe(t, newSigningSecret());
    await changeBalance(db.db, { tenantId: t.tenantId, amountMinor: -1_000n, kind: "charge", actor: "system" });
    driver = startLocalDriver(db.db, { client, pollMs: 50 });
    const ids = await queue(t, 2);
    await waitFor(async () => (await rowsOf(ids)).every((r) => r.error === "wallet_suspended"), 5_000);
    for (const r of await rowsOf(ids)) {
      expect(r).toMatchObject({ state: "pending", attempt: 0 });
      expect(r.nextAttemptAt!.getTime() - Date.now()).toBeGreaterThan(14 * 60_000);
    }
    expect(rx.requests).toHaveLength(0);

    // A top-up that leaves the balance still negative resumes nothing.
    await changeBalance(db.db, { tenantId: t.tenantId, amountMinor: 500n, kind: "topup", actor: "system" });
    await new Promise((r) => setTimeout(r, 200));
    expect(rx.requests).toHaveLength(0);

    const toppedUp = Date.now();
    await changeBalance(db.db, { tenantId: t.tenantId, amountMinor: 10_000n, kind: "topup", actor: "system" });
    await waitFor(async () => (await rowsOf(ids)).every((r) => r.state === "delivered"), 5_000);
    expect(Date.now() - toppedUp).toBeLessThan(5_000);
    expect(rx.requests).toHaveLength(2);
    for (const r of await rowsOf(ids)) expect(r).toMatchObject({ attempt: 1, error: null, statusCode: 200 });
  });

  it("is woken by new deliveries and by a top-up, without waiting for its poll", async () => {
    const t = await makeTenant(db.db, { balanceMinor: 0n });
    await subscribe(t, newSigningSecret());
    await changeBalance(db.db, { tenantId: t.tenantId, amountMinor: -100n, kind: "charge", actor: "system" });
    // A poll far beyond the test: only wake-ups can make it work in time.
    driver = startLocalDriver(db.db, { client, pollMs: 60_000 });
    await new Promise((r) => setTimeout(r, 100));
    const ids = await queue(t, 1);
    await waitFor(async () => (await rowsOf(ids))[0]!.error === "wallet_suspended", 3_000);
    await changeBalance(db.db, { tenantId: t.tenantId, amountMinor: 1_000n, kind: "topup", actor: "system" });
    await waitFor(async () => (await rowsOf(ids))[0]!.state === "delivered", 3_000);
    expect(rx.requests).toHaveLength(1);
  });

  it("a paid top-up (sandbox Pay → verified notification) resumes deferred deliveries within seconds", async () => {
    const t = await makeTenant(db.db, { balanceMinor: 0n });
    await subscribe(t, newSigningSecret());
    await changeBalance(db.db, { tenantId: t.tenantId, amountMinor: -1_000n, kind: "charge", actor: "system" });
    // A poll far beyond the test: only the resume announcement after the payment's commit can deliver in time.
    driver = startLocalDriver(db.db, { client, pollMs: 60_000 });
    await new Promise((r) => setTimeout(r, 100));
    const ids = await queue(t, 1);
    await waitFor(async () => (await rowsOf(ids))[0]!.error === "wallet_suspended", 3_000);
    const staffUserId = await makeStaff(db.db, t.tenantId, ["topup_wallet"]);
    const p = await startPayment(
      db.db,
      { via: "console", tenantId: t.tenantId, staffUserId, rights: ["topup_wallet"] },
      { amountMinor: 10_000n },
    );
    expect(rx.requests).toHaveLength(0);
    const paid = Date.now();
    const { notification } = await decideSandboxCheckout(db.db, p.id, "pay");
    const outcome = await handlePaymentNotification(
      db.db,
      "sandbox",
      notification.body,
      new Headers({ [SANDBOX_SIGNATURE_HEADER]: notification.signature }),
    );
    expect(outcome).toBe("credited");
    await waitFor(async () => (await rowsOf(ids))[0]!.state === "delivered", 5_000);
    expect(Date.now() - paid).toBeLessThan(5_000);
    expect(rx.requests).toHaveLength(1);
  });

  it("an unblocked wallet resumes its deferred deliveries too", async () => {
    const t = await makeTenant(db.db);
    await subscribe(t, newSigningSecret());
    await setWalletBlocked(db.db, { tenantId: t.tenantId }, true, "operator");
    driver = startLocalDriver(db.db, { client, pollMs: 50 });
    const [id] = await queue(t, 1);
    await waitFor(async () => (await rowsOf([id!]))[0]!.error === "wallet_suspended", 5_000);
    await setWalletBlocked(db.db, { tenantId: t.tenantId }, false, "operator");
    await waitFor(async () => (await rowsOf([id!]))[0]!.state === "delivered", 5_000);
    expect((await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id!)))[0]!.attempt).toBe(1);
  });
});
