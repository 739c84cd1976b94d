import { InngestTestEngine } from "@inngest/test";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { recordEventWithDeliveries } from "@/server/services/events/outbox";
import { setWalletBlocked } from "@/server/services/wallet/wallet-ledger";
import { newSigningSecret, sealSecret } from "@/server/webhook-transport/secret-box";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { DELIVERY_SCHEDULED, EXCHANGE_RESUMED } from "../events";
import { deliverWebhook } from "./deliver-webhook";
import { resumeDeliveries } from "./resume-deliveries";
import { sweepDeliveries } from "./sweep-deliveries";

// The Inngest door (JOBS_DRIVER=inngest) tested with @inngest/test, since the Inngest dev server cannot
// run here: each function's steps run for real against the database where that is the point, and are
// mocked where a step would leave the process (sending events) or wait (sleeps).

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;

/** A `lead.created` event with one pending delivery to a subscription of `t`; returns the delivery id. */
async function queuedDelivery(): Promise<string> {
  const [sub] = await db.db
    .insert(webhookSubscriptions)
    .values({
      tenantId: t.tenantId,
      integrationId: t.integrationId,
      url: "https://hooks.example.com/in",
      events: ["lead.*"],
      secretEnc: sealSecret(newSigningSecret()),
    })
    .returning();
  const r = await recordEventWithDeliveries(
    db.db,
    { tenantId: t.tenantId, livemode: true, type: "lead.created", data: { lead_id: crypto.randomUUID(), version: 1 } },
    { onlySubscriptionId: sub.id },
  );
  return r.deliveryIds[0];
}

const row = async (id: string) => (await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)))[0];

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
});
afterAll(async () => db.drop());

describe("deliver-webhook", () => {
  it("runs attempts as steps and sleeps until each next_attempt_at, ending on a final outcome", async () => {
    const next = "2026-11-23T10:01:00.000Z";
    const engine = new InngestTestEngine({ function: deliverWebhook });
    const { result, ctx } = await engine.execute({
      events: [{ name: DELIVERY_SCHEDULED, data: { deliveryId: crypto.randomUUID() } }],
      steps: [
        { id: "attempt-0", handler: () => ({ final: false, state: "failed", nextAttemptAt: next }) },
        { id: "wait-0", handler: () => null },
        { id: "attempt-1", handler: () => ({ final: true, state: "delivered", nextAttemptAt: null }) },
      ],
    });
    expect(result).toEqual({ final: true, state: "delivered", nextAttemptAt: null });
    expect(ctx.step.sleepUntil).toHaveBeenCalledWith("wait-0", next);
    expect(ctx.step.sleepUntil).toHaveBeenCalledTimes(1);
  });

  it("defers for real while the wallet is suspended: no attempt spent, next attempt in 15 minutes", async () => {
    const id = await queuedDelivery();
    await setWalletBlocked(db.db, { tenantId: t.tenantId }, true, "system");
    try {
      const engine = new InngestTestEngine({ function: deliverWebhook });
      const { result } = await engine.executeStep("attempt-0", {
        events: [{ name: DELIVERY_SCHEDULED, data: { deliveryId: id } }],
      });
      const r = result as { final: boolean; state: string; nextAttemptAt: string };
      expect(r.final).toBe(false);
      expect(Date.parse(r.nextAttemptAt) - Date.now()).toBeGreaterThan(14 * 60_000);
      const d = await row(id);
      expect(d).toMatchObject({ state: "pending", attempt: 0, error: "wallet_suspended" });
    } finally {
      await setWalletBlocked(db.db, { tenantId: t.tenantId }, false, "system");
    }
  });

  it("treats a delivery that no longer exists as final", async () => {
    const engine = new InngestTestEngine({ function: deliverWebhook });
    const { result } = await engine.execute({
      events: [{ name: DELIVERY_SCHEDULED, data: { deliveryId: crypto.randomUUID() } }],
    });
    expect((result as { final: boolean }).final).toBe(true);
  });
});

describe("resume-deliveries", () => {
  it("makes the tenant's wallet-deferred deliveries due now and schedules a run for each", async () => {
    const id = await queuedDelivery();
    await db.db
      .update(webhookDeliveries)
      .set({ nextAttemptAt: new Date(Date.now() + 15 * 60_000), error: "wallet_suspended" })
      .where(eq(webhookDeliveries.id, id));
    const engine = new InngestTestEngine({ function: resumeDeliveries });
    const { result, ctx } = await engine.execute({
      events: [{ name: EXCHANGE_RESUMED, data: { tenantId: t.tenantId } }],
      steps: [{ id: "schedule", handler: () => ({ ids: [] }) }],
    });
    expect((result as { resumed: number }).resumed).toBeGreaterThanOrEqual(1);
    expect((await row(id)).nextAttemptAt!.getTime()).toBeLessThanOrEqual(Date.now());
    const sent = (
      ctx.step.sendEvent as unknown as { mock: { calls: [string, { name: string; data: { deliveryId: string } }[]][] } }
    ).mock.calls[0][1];
    expect(sent).toContainEqual({ name: DELIVERY_SCHEDULED, data: { deliveryId: id } });
  });
});

describe("sweep-deliveries", () => {
  it("schedules due deliveries that no worker holds, and not leased or future ones", async () => {
    const due = await queuedDelivery();
    const leased = await queuedDelivery();
    const future = await queuedDelivery();
    await db.db
      .update(webhookDeliveries)
      .set({ nextAttemptAt: new Date(Date.now() - 1000) })
      .where(eq(webhookDeliveries.id, due));
    await db.db
      .update(webhookDeliveries)
      .set({ lockedUntil: new Date(Date.now() + 60_000) })
      .where(eq(webhookDeliveries.id, leased));
    await db.db
      .update(webhookDeliveries)
      .set({ nextAttemptAt: new Date(Date.now() + 60_000) })
      .where(eq(webhookDeliveries.id, future));
    const engine = new InngestTestEngine({ function: sweepDeliveries });
    const { ctx } = await engine.execute({ steps: [{ id: "schedule", handler: () => ({ ids: [] }) }] });
    const sent = (
      ctx.step.sendEvent as unknown as { mock: { calls: [string, { data: { deliveryId: string } }[]][] } }
    ).mock.calls[0][1].map((e) => e.data.deliveryId);
    expect(sent).toContain(due);
    expect(sent).not.toContain(leased);
    expect(sent).not.toContain(future);
  });
});
