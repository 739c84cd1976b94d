import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { recordEventWithDeliveries } from "@/server/services/events/outbox";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { newSigningSecret, sealSecret } from "@/server/webhook-transport/secret-box";
import { dueDeliveryIds } from "./due-deliveries";

let db: Awaited<ReturnType<typeof openTestDatabase>>;

/** `n` deliveries of a new subscription of `t`, due `agoMs` ago and 1 ms apart, oldest first. */
async function due(t: TenantFixture, n: number, agoMs: number): Promise<string[]> {
  const [sub] = await db.db
    .insert(webhookSubscriptions)
    .values({
      tenantId: t.tenantId,
      integrationId: t.integrationId,
      url: "https://hooks.example.com/in",
      events: ["lead.*"],
      secretEnc: sealSecret(newSigningSecret()),
    })
    .returning({ id: webhookSubscriptions.id });
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const [id] = (
      await recordEventWithDeliveries(
        db.db,
        { tenantId: t.tenantId, livemode: true, type: "lead.created", data: { lead_id: String(i), version: 1 } },
        { onlySubscriptionId: sub!.id },
      )
    ).deliveryIds;
    await db.db
      .update(webhookDeliveries)
      .set({ nextAttemptAt: sql`now() - ${`${agoMs - i} milliseconds`}::interval` })
      .where(eq(webhookDeliveries.id, id!));
    ids.push(id!);
  }
  return ids;
}

beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(async () => db.drop());

describe("due delivery ids for the Inngest sweep (issue 75 item 5)", () => {
  it("lists oldest due first, or in turns of at most N per subscription so one backlog does not fill the list", async () => {
    const a = await makeTenant(db.db);
    const b = await makeTenant(db.db);
    const backlog = await due(a, 12, 60_000);
    const [late] = await due(b, 1, 1_000);
    expect(await dueDeliveryIds(db.db, { limit: 5 })).toEqual(backlog.slice(0, 5));
    expect(await dueDeliveryIds(db.db, { limit: 3, perSubscription: 4 })).toEqual([backlog[0], late, backlog[1]]);
    expect(await dueDeliveryIds(db.db, { limit: 100, perSubscription: 4 })).toEqual([
      backlog[0],
      late,
      ...backlog.slice(1, 4),
    ]);
  });
});
