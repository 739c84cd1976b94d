import { and, eq, gt, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { recordEventWithDeliveries } from "@/server/services/events/outbox";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { newSigningSecret, sealSecret } from "@/server/webhook-transport/secret-box";
import { claimDueDeliveries, resumeDeferredDeliveries } from "./delivery-queue";

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let a: TenantFixture;
let b: TenantFixture;
const subs: Record<string, string> = {};
/** More subscriptions of tenants a and b: claims take at most 4 due rows per subscription. */
const more: Record<string, string[]> = {};

async function subscribe(t: TenantFixture): Promise<string> {
  const [row] = await db.db
    .insert(webhookSubscriptions)
    .values({
      tenantId: t.tenantId,
      integrationId: t.integrationId,
      url: "https://hooks.example.com/x",
      events: ["task.*"],
      secretEnc: sealSecret(newSigningSecret()),
    })
    .returning({ id: webhookSubscriptions.id });
  return row.id;
}

/** `n` pending deliveries of tenant `t`, due now, to its first subscription or in turn to `spread`. */
async function queue(t: TenantFixture, n: number, spread: string[] = [subs[t.tenantId]!]): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await recordEventWithDeliveries(
      db.db,
      { tenantId: t.tenantId, livemode: true, type: "task.created", data: { task_id: String(i) } },
      { onlySubscriptionId: spread[i % spread.length] },
    );
    ids.push(...r.deliveryIds);
  }
  return ids;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  db = await openTestDatabase();
  a = await makeTenant(db.db);
  b = await makeTenant(db.db);
  subs[a.tenantId] = await subscribe(a);
  subs[b.tenantId] = await subscribe(b);
  for (const t of [a, b]) more[t.tenantId] = await Promise.all(Array.from({ length: 8 }, () => subscribe(t)));
});
// Each test starts with an empty queue: claims take every due row of the database.
beforeEach(async () => {
  await db.db.delete(webhookDeliveries);
});
afterAll(async () => db.drop());

describe("claiming due deliveries", () => {
  it("two concurrent claimers never take the same row, and together take all due rows", async () => {
    // Over 8 subscriptions, so the cap of 4 in flight per subscription leaves all 30 claimable.
    const ids = await queue(a, 30, more[a.tenantId]);
    const [x, y] = await Promise.all([
      claimDueDeliveries(db.db, { limit: 20, leaseMs: 60_000 }),
      claimDueDeliveries(db.db, { limit: 20, leaseMs: 60_000 }),
    ]);
    const xi = x.map((c) => c.id);
    const yi = y.map((c) => c.id);
    expect(xi.filter((id) => yi.includes(id))).toEqual([]);
    expect([...xi, ...yi].sort()).toEqual([...ids].sort());
    expect(Math.max(xi.length, yi.length)).toBe(20);
    // Leases are live: nothing left to claim.
    expect(await claimDueDeliveries(db.db, { limit: 50, leaseMs: 60_000 })).toEqual([]);
    const rows = await db.db.select().from(webhookDeliveries).where(inArray(webhookDeliveries.id, ids));
    for (const r of rows) {
      const c = [...x, ...y].find((k) => k.id === r.id)!;
      expect(r.lockedUntil?.getTime()).toBe(c.lockedUntil.getTime());
      expect(Math.abs(r.lockedUntil!.getTime() - Date.now() - 60_000)).toBeLessThan(10_000);
    }
  });

  it("claims many times in parallel without duplicates", async () => {
    const ids = await queue(b, 24, more[b.tenantId]);
    const batches = await Promise.all(
      Array.from({ length: 6 }, () => claimDueDeliveries(db.db, { limit: 5, leaseMs: 60_000 })),
    );
    const all = batches.flat().map((c) => c.id);
    expect(new Set(all).size).toBe(all.length);
    expect(all.sort()).toEqual([...ids].sort());
  });

  it("reclaims a delivery whose lease expired (a worker died)", async () => {
    const [id] = await queue(a, 1);
    // A lease long enough for the next claim to run under it on a busy machine, then let to expire.
    const first = await claimDueDeliveries(db.db, { limit: 10, leaseMs: 1_000 });
    expect(first.map((c) => c.id)).toEqual([id]);
    expect(await claimDueDeliveries(db.db, { limit: 10, leaseMs: 1_000 })).toEqual([]);
    await sleep(1_100);
    const second = await claimDueDeliveries(db.db, { limit: 10, leaseMs: 60_000 });
    expect(second.map((c) => c.id)).toEqual([id]);
    expect(second[0]!.lockedUntil.getTime()).toBeGreaterThan(first[0]!.lockedUntil.getTime());
  });

  it("takes only pending or failed rows that are due, oldest due first, up to the limit", async () => {
    const ids = await queue(a, 6);
    const d = webhookDeliveries;
    const at = (min: number) => new Date(Date.now() + min * 60_000);
    await db.db.update(d).set({ state: "delivered", nextAttemptAt: null }).where(eq(d.id, ids[0]!));
    await db.db.update(d).set({ state: "dead", nextAttemptAt: null }).where(eq(d.id, ids[1]!));
    await db.db
      .update(d)
      .set({ nextAttemptAt: at(5) })
      .where(eq(d.id, ids[2]!));
    await db.db
      .update(d)
      .set({ state: "failed", attempt: 2, nextAttemptAt: at(-3) })
      .where(eq(d.id, ids[3]!));
    await db.db
      .update(d)
      .set({ nextAttemptAt: at(-10) })
      .where(eq(d.id, ids[4]!));
    await db.db
      .update(d)
      .set({ nextAttemptAt: at(-1) })
      .where(eq(d.id, ids[5]!));
    const first = await claimDueDeliveries(db.db, { limit: 2, leaseMs: 60_000 });
    // The two due longest are taken (RETURNING order itself is not defined).
    expect(first.map((c) => c.id).sort()).toEqual([ids[4], ids[3]].sort());
    const rest = await claimDueDeliveries(db.db, { limit: 10, leaseMs: 60_000 });
    expect(rest.map((c) => c.id)).toEqual([ids[5]]);
  });
});

describe("resuming wallet-deferred deliveries", () => {
  it("makes the tenant's wallet_suspended rows due now, leaving ordinary retries and other tenants alone", async () => {
    const [deferred, retrying, deferredFailed] = await queue(a, 3);
    const [other] = await queue(b, 1);
    const d = webhookDeliveries;
    const later = new Date(Date.now() + 15 * 60_000);
    await db.db
      .update(d)
      .set({ error: "wallet_suspended", nextAttemptAt: later })
      .where(inArray(d.id, [deferred!, other!]));
    await db.db
      .update(d)
      .set({ state: "failed", attempt: 2, error: "wallet_suspended", nextAttemptAt: later })
      .where(eq(d.id, deferredFailed!));
    await db.db
      .update(d)
      .set({ state: "failed", attempt: 1, error: "http_500", nextAttemptAt: later })
      .where(eq(d.id, retrying!));

    expect(await resumeDeferredDeliveries(db.db, { tenantId: a.tenantId })).toBe(2);
    const claimed = (await claimDueDeliveries(db.db, { limit: 10, leaseMs: 60_000 })).map((c) => c.id).sort();
    expect(claimed).toEqual([deferred, deferredFailed].sort());
    const rows = await db.db
      .select()
      .from(d)
      .where(inArray(d.id, [retrying!, other!]));
    for (const r of rows) expect(r.nextAttemptAt?.getTime()).toBe(later.getTime());
  });
});

describe("fair claims (issue 75 item 5)", () => {
  const d = webhookDeliveries;
  /** Ends attempts as attemptDelivery records them: the lease is cleared. */
  const finish = (ids: string[]) =>
    db.db.update(d).set({ state: "delivered", lockedUntil: null, nextAttemptAt: null }).where(inArray(d.id, ids));
  const inFlight = async (subscriptionId: string) =>
    (
      await db.db
        .select({ id: d.id })
        .from(d)
        .where(and(eq(d.subscriptionId, subscriptionId), gt(d.lockedUntil, sql`now()`)))
    ).length;

  it("leases at most 4 deliveries per subscription, however many claimers ask at once", async () => {
    await queue(a, 12);
    const batches = await Promise.all(
      Array.from({ length: 4 }, () => claimDueDeliveries(db.db, { limit: 10, leaseMs: 60_000 })),
    );
    const taken = batches.flat().map((c) => c.id);
    expect(new Set(taken).size).toBe(4);
    expect(await claimDueDeliveries(db.db, { limit: 10, leaseMs: 60_000 })).toEqual([]);
    // Two attempts end: two more may go, no more.
    await finish(taken.slice(0, 2));
    expect(await claimDueDeliveries(db.db, { limit: 10, leaseMs: 60_000 })).toHaveLength(2);
    expect(await inFlight(subs[a.tenantId]!)).toBe(4);
    // An expired lease (a dead worker's) is no longer in flight: its row and one more are claimed.
    await db.db
      .update(d)
      .set({ lockedUntil: new Date(Date.now() - 1_000) })
      .where(inArray(d.id, taken.slice(2, 3)));
    const again = (await claimDueDeliveries(db.db, { limit: 10, leaseMs: 60_000 })).map((c) => c.id);
    expect(again).toHaveLength(1);
    expect(again).toEqual(taken.slice(2, 3));
  });

  it("puts tenant B's one due delivery in the first batch while tenant A has thousands due", async () => {
    const [eventA] = await queue(a, 1);
    const [row] = await db.db.select({ eventId: d.eventId }).from(d).where(eq(d.id, eventA!));
    // 3,000 rows over tenant A's three subscriptions, all due before B's.
    for (const subscriptionId of [subs[a.tenantId]!, ...more[a.tenantId]!.slice(0, 2)])
      await db.db.execute(sql`
        insert into webhook_deliveries (tenant_id, livemode, subscription_id, event_id, event_type, next_attempt_at)
        select ${a.tenantId}, true, ${subscriptionId}, ${row!.eventId}, 'task.created',
          now() - interval '1 hour' + g * interval '1 millisecond'
        from generate_series(1, 1000) g`);
    const [late] = await queue(b, 1);
    const first = (await claimDueDeliveries(db.db, { limit: 4, leaseMs: 60_000 })).map((c) => c.id);
    expect(first).toHaveLength(4);
    expect(first).toContain(late);
    // Everything else goes to A, 4 per subscription at most, then nothing more.
    const rest = await claimDueDeliveries(db.db, { limit: 100, leaseMs: 60_000 });
    expect(rest).toHaveLength(12 - 3);
    expect(await inFlight(subs[a.tenantId]!)).toBe(4);
    expect(await claimDueDeliveries(db.db, { limit: 100, leaseMs: 60_000 })).toEqual([]);
  });

  it("two claimers racing in loops never have more than 4 of a subscription in flight", async () => {
    const ids = await queue(a, 50);
    const sub = subs[a.tenantId]!;
    let held = 0;
    let maxHeld = 0;
    let maxSeen = 0;
    let done = false;
    // Held counts a lease from its claim's commit until just before its release: never above the database's count.
    const worker = async () => {
      const running: Promise<void>[] = [];
      while (!done) {
        const got = await claimDueDeliveries(db.db, { limit: 3, leaseMs: 60_000 });
        held += got.length;
        maxHeld = Math.max(maxHeld, held);
        for (const c of got)
          running.push(
            sleep(Math.random() * 20).then(async () => {
              held--;
              await finish([c.id]);
            }),
          );
        if (got.length === 0) await sleep(5);
      }
      await Promise.all(running);
    };
    const sampler = async () => {
      while (!done) {
        maxSeen = Math.max(maxSeen, await inFlight(sub));
        await sleep(2);
      }
    };
    const until = async () => {
      while ((await db.db.select({ id: d.id }).from(d).where(eq(d.state, "pending"))).length > 0) await sleep(20);
      done = true;
    };
    await Promise.all([worker(), worker(), sampler(), until()]);
    const rows = await db.db.select().from(d).where(inArray(d.id, ids));
    expect(rows.every((r) => r.state === "delivered")).toBe(true);
    expect(maxHeld).toBeLessThanOrEqual(4);
    expect(maxSeen).toBeLessThanOrEqual(4);
    // It did run attempts side by side.
    expect(maxHeld).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
