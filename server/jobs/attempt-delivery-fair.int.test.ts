import { inArray } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { recordEventWithDeliveries } from "@/server/services/events/outbox";
import { claimDueDeliveries } from "@/server/services/webhooks/delivery-queue";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { LOOPBACK_RECEIVER_ENV, startHttpsReceiver, type HttpsReceiver } from "@/server/testing/https-receiver";
import { openTestDatabase } from "@/server/testing/test-db";
import { createDeliveryClient, type DeliveryClient } from "@/server/webhook-transport/delivery-client";
import { newSigningSecret, sealSecret } from "@/server/webhook-transport/secret-box";
import { attemptDelivery } from "./attempt-delivery";

// Issue 75 item 5 on the Inngest driver's path: an attempt that was not claimed takes its lease itself,
// and finds its subscription's 4 attempts in flight as a claim would.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let rx: HttpsReceiver;
let client: DeliveryClient;

async function subscriptionWith(t: TenantFixture, n: number): Promise<string[]> {
  const [sub] = await db.db
    .insert(webhookSubscriptions)
    .values({
      tenantId: t.tenantId,
      integrationId: t.integrationId,
      url: rx.url,
      events: ["lead.*"],
      secretEnc: sealSecret(newSigningSecret()),
    })
    .returning({ id: webhookSubscriptions.id });
  const ids: string[] = [];
  for (let i = 0; i < n; i++)
    ids.push(
      ...(
        await recordEventWithDeliveries(
          db.db,
          { tenantId: t.tenantId, livemode: true, type: "lead.created", data: { lead_id: String(i), version: 1 } },
          { onlySubscriptionId: sub!.id },
        )
      ).deliveryIds,
    );
  return ids;
}

const rowsOf = (ids: string[]) => db.db.select().from(webhookDeliveries).where(inArray(webhookDeliveries.id, ids));

beforeAll(async () => {
  db = await openTestDatabase({ ...LOOPBACK_RECEIVER_ENV });
  rx = await startHttpsReceiver();
  client = createDeliveryClient({ testCa: rx.certPem, timeoutMs: 3_000 });
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

describe("an attempt that takes its own lease (issue 75 item 5)", () => {
  it("waits a few seconds, sending nothing and spending no attempt, while its subscription has 4 in flight", async () => {
    const t = await makeTenant(db.db);
    const ids = await subscriptionWith(t, 5);
    const leased = (await claimDueDeliveries(db.db, { limit: 10, leaseMs: 60_000 })).map((c) => c.id);
    expect(leased).toHaveLength(4);
    const waiting = ids.find((id) => !leased.includes(id))!;

    const now = new Date();
    const out = await attemptDelivery(db.db, waiting, now, { client });
    expect(out.final).toBe(false);
    expect(out.state).toBe("pending");
    expect(out.nextAttemptAt!.getTime() - now.getTime()).toBeGreaterThanOrEqual(5_000);
    expect(out.nextAttemptAt!.getTime() - now.getTime()).toBeLessThanOrEqual(30_000);
    expect(rx.requests).toHaveLength(0);
    expect((await rowsOf([waiting]))[0]).toMatchObject({ state: "pending", attempt: 0, lockedUntil: null });

    // One attempt ends (its lease cleared, as attemptDelivery records it): the waiting one goes.
    await attemptDelivery(db.db, leased[0]!, new Date(), {
      client,
      lease: (await rowsOf([leased[0]!]))[0]!.lockedUntil!,
    });
    expect(await attemptDelivery(db.db, waiting, new Date(), { client })).toMatchObject({ state: "delivered" });
    expect(rx.requests).toHaveLength(2);
  });

  it("of a subscription's deliveries attempted all at once, 4 are sent and the rest wait", async () => {
    const t = await makeTenant(db.db);
    const ids = await subscriptionWith(t, 10);
    rx.respond({ kind: "slow", delayMs: 300, status: 200 });
    const outs = await Promise.all(ids.map((id) => attemptDelivery(db.db, id, new Date(), { client })));
    expect(outs.filter((o) => o.state === "delivered")).toHaveLength(4);
    expect(outs.filter((o) => o.state === "pending" && !o.final)).toHaveLength(6);
    expect(rx.requests).toHaveLength(4);
    const rows = await rowsOf(ids);
    expect(rows.filter((r) => r.state === "delivered")).toHaveLength(4);
    expect(rows.every((r) => r.lockedUntil === null)).toBe(true);
  });
});
