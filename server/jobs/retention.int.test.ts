import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys, events, idempotencyRecords, webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { setClock } from "@/server/lib/clock";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { newSigningSecret, sealSecret } from "@/server/webhook-transport/secret-box";
import { startDailySchedule } from "./daily-schedule";
import { runRetention } from "./retention";

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
// Near the real time: rows stamped by database defaults (now()) must read as fresh, not as old or future.
const T0 = Math.floor(Date.now() / 1000) * 1000;

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let subId: string;

beforeAll(async () => {
  db = await openTestDatabase();
  setClock(() => T0);
  t = await makeTenant(db.db);
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
  subId = sub!.id;
});
afterAll(async () => {
  setClock(undefined);
  await db.drop();
});

/** An event created `ageMs` before T0; returns its id. */
async function event(ageMs: number): Promise<string> {
  const [e] = await db.db
    .insert(events)
    .values({
      tenantId: t.tenantId,
      type: "lead.created",
      data: { lead_id: crypto.randomUUID(), version: 1 },
      createdAt: new Date(T0 - ageMs),
    })
    .returning({ id: events.id });
  return e!.id;
}

/** A delivery of `eventId` created `ageMs` before T0, in `state`; returns its id. */
async function delivery(eventId: string, ageMs: number, state: string): Promise<string> {
  const [d] = await db.db
    .insert(webhookDeliveries)
    .values({
      tenantId: t.tenantId,
      subscriptionId: subId,
      eventId,
      eventType: "lead.created",
      state,
      createdAt: new Date(T0 - ageMs),
    })
    .returning({ id: webhookDeliveries.id });
  return d!.id;
}

/** An idempotency record created `ageMs` before T0; returns its id. */
async function idem(ageMs: number): Promise<string> {
  const [r] = await db.db
    .insert(idempotencyRecords)
    .values({
      tenantId: t.tenantId,
      keyMode: "live",
      scope: "POST /v1/cards",
      idempotencyKey: crypto.randomUUID(),
      fingerprint: "f",
      state: "completed",
      lockedUntil: new Date(T0 - ageMs),
      createdAt: new Date(T0 - ageMs),
    })
    .returning({ id: idempotencyRecords.id });
  return r!.id;
}

const existing = async <T extends typeof events | typeof webhookDeliveries | typeof idempotencyRecords>(
  table: T,
  ids: string[],
) =>
  (
    await db.db
      .select({ id: table.id })
      .from(table as typeof events)
      .where(inArray(table.id, ids))
  )
    .map((r) => r.id)
    .sort();

describe("runRetention", () => {
  it("deletes exactly the final deliveries and unreferenced events past 30 days and idempotency records past 24 hours, in batches", async () => {
    // Old event with old deliveries: the delivered and dead ones go; the pending one stays (not final yet),
    // and so does its event.
    const oldEv = await event(40 * DAY);
    const oldDelivered = await delivery(oldEv, 31 * DAY, "delivered");
    const oldDead = await delivery(oldEv, 35 * DAY, "dead");
    const oldPending = await delivery(oldEv, 30 * DAY + HOUR, "pending");
    // Old event without any delivery (nobody subscribed): goes.
    const lonelyOld = await event(31 * DAY);
    const lonelyOld2 = await event(60 * DAY);
    // Old event still referenced by a younger delivery (kept, so is the delivery, pending or failed).
    const referenced = await event(31 * DAY);
    const youngFailed = await delivery(referenced, 29 * DAY, "failed");
    const youngEv = await event(29 * DAY);
    const youngPending = await delivery(youngEv, 29 * DAY, "pending");
    const youngDelivered = await delivery(youngEv, DAY, "delivered");
    const freshEv = await event(0);
    // Idempotency: 25 h and 48 h go, 23 h stays.
    const idemOld = [await idem(25 * HOUR), await idem(48 * HOUR)];
    const idemYoung = await idem(23 * HOUR);

    const r = await runRetention(db.db, { batch: 1 });
    expect(r).toMatchObject({ webhookDeliveries: 2, events: 2, idempotencyRecords: 2, requestLog: 0 });

    expect(
      await existing(webhookDeliveries, [oldDelivered, oldDead, oldPending, youngFailed, youngPending, youngDelivered]),
    ).toEqual([oldPending, youngFailed, youngPending, youngDelivered].sort());
    expect(await existing(events, [oldEv, lonelyOld, lonelyOld2, referenced, youngEv, freshEv])).toEqual(
      [oldEv, referenced, youngEv, freshEv].sort(),
    );
    expect(await existing(idempotencyRecords, [...idemOld, idemYoung])).toEqual([idemYoung]);

    // Idempotent: a second run finds nothing.
    expect(await runRetention(db.db)).toMatchObject({
      webhookDeliveries: 0,
      events: 0,
      idempotencyRecords: 0,
      requestLog: 0,
    });

    // Two days on, the two 29-day deliveries are past 30 days but still failed and pending: they stay, and
    // so do their events.
    setClock(() => T0 + 2 * DAY);
    try {
      expect(await runRetention(db.db)).toMatchObject({
        webhookDeliveries: 0,
        events: 0,
        idempotencyRecords: 1,
        requestLog: 0,
      });
      expect(await existing(webhookDeliveries, [oldPending, youngFailed, youngPending, youngDelivered])).toEqual(
        [oldPending, youngFailed, youngPending, youngDelivered].sort(),
      );
      // Once they reach a final state they go, and then the events only they referenced; the event with a
      // 1-day delivery stays, and so does that delivery.
      await db.db
        .update(webhookDeliveries)
        .set({ state: "dead" })
        .where(inArray(webhookDeliveries.id, [oldPending, youngFailed]));
      await db.db.update(webhookDeliveries).set({ state: "delivered" }).where(eq(webhookDeliveries.id, youngPending));
      expect(await runRetention(db.db)).toMatchObject({
        webhookDeliveries: 3,
        events: 2,
        idempotencyRecords: 0,
        requestLog: 0,
      });
      expect(await existing(events, [oldEv, referenced, youngEv])).toEqual([youngEv]);
      expect(await existing(webhookDeliveries, [oldPending, youngFailed, youngPending, youngDelivered])).toEqual([
        youngDelivered,
      ]);
    } finally {
      setClock(() => T0);
    }
  });

  it("never touches the rows the app still needs: keys, subscriptions", async () => {
    await runRetention(db.db);
    expect(await db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, subId))).toHaveLength(1);
    expect(await db.db.select().from(apiKeys).where(eq(apiKeys.keyId, t.keyId))).toHaveLength(1);
  });
});

describe("startDailySchedule", () => {
  it("runs both jobs at start, and stops cleanly", async () => {
    const old = await idem(30 * HOUR);
    const [k] = await db.db
      .update(apiKeys)
      .set({ expiresAt: new Date(T0 + 10 * DAY) })
      .where(eq(apiKeys.keyId, t.keyId))
      .returning();
    const schedule = startDailySchedule(db.db, { intervalMs: 60_000 });
    await schedule.idle();
    await schedule.stop();
    expect(await existing(idempotencyRecords, [old])).toEqual([]);
    const notices = await db.db.select().from(events).where(eq(events.type, "api_key.expiring"));
    expect(notices.map((e) => e.data.key_id)).toEqual([k!.keyId]);
  });
});
