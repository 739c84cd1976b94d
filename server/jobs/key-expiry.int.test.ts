import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { apiKeys, events, integrations, tenants, webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { setClock } from "@/server/lib/clock";
import { issueKey } from "@/server/services/keys/keys";
import { setPreview } from "@/server/services/tenants/previews";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { newSigningSecret, sealSecret } from "@/server/webhook-transport/secret-box";
import { runKeyExpiryNotices } from "./key-expiry";

const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.parse("2026-11-01T12:00:00.000Z");

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let clock = T0;

beforeAll(async () => {
  db = await openTestDatabase();
});
afterEach(() => {
  clock = T0;
  setClock(() => clock);
});
afterAll(async () => {
  setClock(undefined);
  await db.drop();
});

/** A fresh tenant at T0 whose only key expires `expiresInDays` after T0. */
async function tenantWithKey(expiresInDays: number, opts: { mode?: string } = {}): Promise<TenantFixture> {
  clock = T0;
  setClock(() => clock);
  return makeTenant(db.db, { key: { mode: opts.mode, expiresAt: new Date(T0 + expiresInDays * DAY) } });
}

/** The `api_key.expiring` events of a tenant, oldest first. */
async function expiringEvents(tenantId: string) {
  const rows = await db.db
    .select()
    .from(events)
    .where(and(eq(events.tenantId, tenantId), eq(events.type, "api_key.expiring")));
  return rows.sort((a, b) => (Number(a.data.days_left) < Number(b.data.days_left) ? 1 : -1));
}

const keyRow = async (keyId: string) => (await db.db.select().from(apiKeys).where(eq(apiKeys.keyId, keyId)))[0]!;

describe("api_key.expiring", () => {
  it("sends the 30-day and then the 7-day notice exactly once each, with thin data, over repeated and concurrent runs", async () => {
    const t = await tenantWithKey(60);
    await runKeyExpiryNotices(db.db);
    expect(await expiringEvents(t.tenantId)).toHaveLength(0);

    // 29.5 days left: inside the 30-day window.
    clock = T0 + 30.5 * DAY;
    const [a, b] = await Promise.all([runKeyExpiryNotices(db.db), runKeyExpiryNotices(db.db)]);
    const mine = [...a.notices, ...b.notices].filter((n) => n.keyId === t.keyId);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ threshold: 30, daysLeft: 30 });
    await runKeyExpiryNotices(db.db);
    let evs = await expiringEvents(t.tenantId);
    expect(evs).toHaveLength(1);
    expect(evs[0]!.livemode).toBe(true);
    expect(evs[0]!.data).toEqual({
      key_id: t.keyId,
      integration_id: t.integrationId,
      expires_at: new Date(T0 + 60 * DAY).toISOString(),
      days_left: 30,
    });
    expect((await keyRow(t.keyId)).expiryWarned30At?.getTime()).toBe(clock);

    // Still between 30 and 7 days: nothing new.
    clock = T0 + 45 * DAY;
    await runKeyExpiryNotices(db.db);
    expect(await expiringEvents(t.tenantId)).toHaveLength(1);

    // 6.5 days left.
    clock = T0 + 53.5 * DAY;
    await Promise.all([runKeyExpiryNotices(db.db), runKeyExpiryNotices(db.db), runKeyExpiryNotices(db.db)]);
    await runKeyExpiryNotices(db.db);
    evs = await expiringEvents(t.tenantId);
    expect(evs).toHaveLength(2);
    expect(evs[1]!.data).toEqual({
      key_id: t.keyId,
      integration_id: t.integrationId,
      expires_at: new Date(T0 + 60 * DAY).toISOString(),
      days_left: 7,
    });
    const k = await keyRow(t.keyId);
    expect(k.expiryWarned7At?.getTime()).toBe(clock);
    expect(k.expiryWarned30At?.getTime()).toBe(T0 + 30.5 * DAY);

    // Expired: nothing more, ever.
    clock = T0 + 61 * DAY;
    await runKeyExpiryNotices(db.db);
    expect(await expiringEvents(t.tenantId)).toHaveLength(2);
  });

  it("gives a key first seen with 5 days left only the 7-day notice, and marks both thresholds", async () => {
    const t = await tenantWithKey(5, { mode: "test" });
    const r = await runKeyExpiryNotices(db.db);
    expect(r.notices.filter((n) => n.keyId === t.keyId)).toEqual([
      expect.objectContaining({ threshold: 7, daysLeft: 5 }),
    ]);
    clock = T0 + 2 * DAY;
    await runKeyExpiryNotices(db.db);
    const evs = await expiringEvents(t.tenantId);
    expect(evs).toHaveLength(1);
    // A test key of a tenant without the preview `test-mode` works in live data (issue 69): a live notice.
    expect(evs[0]!.livemode).toBe(true);
    expect(evs[0]!.data.days_left).toBe(5);
    const k = await keyRow(t.keyId);
    expect(k.expiryWarned7At?.getTime()).toBe(T0);
    expect(k.expiryWarned30At?.getTime()).toBe(T0);
  });

  it("sends nothing for revoked or expired keys, suspended integrations or inactive tenants", async () => {
    const revoked = await tenantWithKey(10);
    await db.db
      .update(apiKeys)
      .set({ revokedAt: new Date(T0) })
      .where(eq(apiKeys.keyId, revoked.keyId));
    const suspended = await tenantWithKey(10);
    await db.db.update(integrations).set({ status: "suspended" }).where(eq(integrations.id, suspended.integrationId));
    const inactive = await tenantWithKey(10);
    await db.db.update(tenants).set({ status: "inactive" }).where(eq(tenants.id, inactive.tenantId));
    const expired = await tenantWithKey(1);
    await db.db
      .update(apiKeys)
      .set({ expiresAt: new Date(T0 - 1000) })
      .where(eq(apiKeys.keyId, expired.keyId));
    // A control in the same run proves the job did run.
    const control = await tenantWithKey(10);

    const r = await runKeyExpiryNotices(db.db);
    expect(r.notices.map((n) => n.keyId)).toContain(control.keyId);
    for (const t of [revoked, suspended, inactive, expired]) {
      expect(await expiringEvents(t.tenantId)).toHaveLength(0);
      const k = await keyRow(t.keyId);
      expect(k.expiryWarned30At).toBeNull();
      expect(k.expiryWarned7At).toBeNull();
    }
  });

  it("warns each expiring key of an integration on its own, and not a key far from expiry", async () => {
    const t = await tenantWithKey(365);
    const soon = await issueKey(db.db, { integrationId: t.integrationId, expiresAt: new Date(T0 + 20 * DAY) });
    await runKeyExpiryNotices(db.db);
    const evs = await expiringEvents(t.tenantId);
    expect(evs.map((e) => e.data.key_id)).toEqual([soon.keyId]);
    expect(evs[0]!.data.days_left).toBe(20);
  });

  it("queues a webhook delivery for a subscriber of api_key.* and none for other families", async () => {
    const t = await tenantWithKey(365);
    const [sub] = await db.db
      .insert(webhookSubscriptions)
      .values({
        tenantId: t.tenantId,
        integrationId: t.integrationId,
        url: "https://hooks.example.com/in",
        events: ["api_key.*"],
        secretEnc: sealSecret(newSigningSecret()),
      })
      .returning();
    const [other] = await db.db
      .insert(webhookSubscriptions)
      .values({
        tenantId: t.tenantId,
        integrationId: t.integrationId,
        url: "https://hooks.example.com/leads",
        events: ["lead.*"],
        secretEnc: sealSecret(newSigningSecret()),
      })
      .returning();
    clock = T0 + 360 * DAY;
    await runKeyExpiryNotices(db.db);
    const [ev] = await expiringEvents(t.tenantId);
    expect(ev).toBeDefined();
    const ds = await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, ev!.id));
    expect(ds).toHaveLength(1);
    expect(ds[0]).toMatchObject({
      subscriptionId: sub!.id,
      eventType: "api_key.expiring",
      state: "pending",
      attempt: 0,
    });
    expect(ds.some((d) => d.subscriptionId === other!.id)).toBe(false);
  });

  it("sends a test key's notice in the world the key works in: the sandbox with the preview test-mode, live without", async () => {
    const hook = (t: TenantFixture, livemode: boolean) =>
      db.db
        .insert(webhookSubscriptions)
        .values({
          tenantId: t.tenantId,
          livemode,
          integrationId: t.integrationId,
          url: "https://hooks.example.com/in",
          events: ["api_key.*"],
          secretEnc: sealSecret(newSigningSecret()),
        })
        .returning()
        .then((r) => r[0]!.id);
    const sandboxed = await tenantWithKey(5, { mode: "test" });
    await setPreview(db.db, sandboxed.tenantId, "test-mode", true);
    const plain = await tenantWithKey(5, { mode: "test" });
    const subs = {
      sandboxLive: await hook(sandboxed, true),
      sandboxTest: await hook(sandboxed, false),
      plainLive: await hook(plain, true),
      plainTest: await hook(plain, false),
    };
    await runKeyExpiryNotices(db.db);
    const [a] = await expiringEvents(sandboxed.tenantId);
    const [b] = await expiringEvents(plain.tenantId);
    expect(a!.livemode).toBe(false);
    expect(b!.livemode).toBe(true);
    const to = async (eventId: string) =>
      (await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, eventId))).map(
        (d) => d.subscriptionId,
      );
    expect(await to(a!.id)).toEqual([subs.sandboxTest]);
    expect(await to(b!.id)).toEqual([subs.plainLive]);
  });
});
