import { eq, inArray } from "drizzle-orm";
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

/** `n` pending deliveries of tenant `t`, due now. */
async function queue(t: TenantFixture, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await recordEventWithDeliveries(
      db.db,
      { tenantId: t.tenantId, livemode: true, type: "task.created", data: { task_id: String(i) } },
      { onlySubscriptionId: subs[t.tenantId] },
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
});
// Each test starts with an empty queue: claims take every due row of the database.
beforeEach(async () => {
  await db.db.delete(webhookDeliveries);
});
afterAll(async () => db.drop());

describe("claiming due deliveries", () => {
  it("two concurrent claimers never take the same row, and together take all due rows", async () => {
    const ids = await queue(a, 30);
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
    const ids = await queue(b, 24);
    const batches = await Promise.all(
      Array.from({ length: 6 }, () => claimDueDeliveries(db.db, { limit: 5, leaseMs: 60_000 })),
    );
    const all = batches.flat().map((c) => c.id);
    expect(new Set(all).size).toBe(all.length);
    expect(all.sort()).toEqual([...ids].sort());
  });

  it("reclaims a delivery whose lease expired (a worker died)", async () => {
    const [id] = await queue(a, 1);
    const first = await claimDueDeliveries(db.db, { limit: 10, leaseMs: 50 });
    expect(first.map((c) => c.id)).toEqual([id]);
    expect(await claimDueDeliveries(db.db, { limit: 10, leaseMs: 50 })).toEqual([]);
    await sleep(120);
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
