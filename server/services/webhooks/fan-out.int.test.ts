import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { events, webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { recordEvent, recordEventWithDeliveries } from "@/server/services/events/outbox";
import { createIntegration } from "@/server/services/integrations/integrations";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { newSigningSecret, sealSecret } from "@/server/webhook-transport/secret-box";

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let a: TenantFixture;
let b: TenantFixture;
const sub: Record<string, string> = {};

async function subscribe(
  t: Pick<TenantFixture, "tenantId" | "integrationId">,
  patterns: string[],
  status = "active",
  livemode = true,
): Promise<string> {
  const [row] = await db.db
    .insert(webhookSubscriptions)
    .values({
      tenantId: t.tenantId,
      livemode,
      integrationId: t.integrationId,
      url: "https://hooks.example.com/x",
      events: patterns,
      status,
      secretEnc: sealSecret(newSigningSecret()),
    })
    .returning({ id: webhookSubscriptions.id });
  return row.id;
}

/** Subscription ids that got a delivery of the event. */
async function receivers(eventId: string): Promise<string[]> {
  const rows = await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, eventId));
  return rows.map((r) => r.subscriptionId).sort();
}
const ids = (...names: string[]) => names.map((n) => sub[n]).sort();

beforeAll(async () => {
  db = await openTestDatabase();
  a = await makeTenant(db.db);
  b = await makeTenant(db.db);
  sub.family = await subscribe(a, ["lead.*"]);
  sub.exact = await subscribe(a, ["task.created", "lead.created"]);
  sub.tasks = await subscribe(a, ["task.*"]);
  sub.paused = await subscribe(a, ["lead.*"], "paused");
  sub.articles = await subscribe(a, ["article.*"]);
  sub.foreign = await subscribe(b, ["lead.*"]);
});
afterAll(async () => db.drop());

describe("fan-out of recorded events", () => {
  it("queues one pending delivery per active subscription whose events match, in the event's tenant only", async () => {
    const r = await recordEventWithDeliveries(db.db, {
      tenantId: a.tenantId,
      livemode: true,
      type: "lead.created",
      data: { lead_id: "x" },
    });
    expect(await receivers(r.eventId)).toEqual(ids("family", "exact"));
    const rows = await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, r.eventId));
    expect(r.deliveryIds.sort()).toEqual(rows.map((d) => d.id).sort());
    for (const d of rows) {
      expect(d).toMatchObject({
        tenantId: a.tenantId,
        eventType: "lead.created",
        state: "pending",
        attempt: 0,
        statusCode: null,
        error: null,
        deliveredAt: null,
        lockedUntil: null,
      });
      expect(Math.abs(d.nextAttemptAt!.getTime() - Date.now())).toBeLessThan(60_000);
    }
  });

  it.each([
    ["lead.scored", ["family"]],
    ["task.created", ["exact", "tasks"]],
    ["task.completed", ["tasks"]],
    ["article.generation.failed", ["articles"]],
    ["message.created", []],
    ["webhook.test", []],
  ])("%s reaches %j", async (type, names) => {
    const id = await recordEvent(db.db, { tenantId: a.tenantId, livemode: true, type, data: {} });
    expect(await receivers(id)).toEqual(ids(...names));
  });

  it("targets one active subscription of the tenant when asked, whatever its events", async () => {
    const id = await recordEvent(
      db.db,
      { tenantId: a.tenantId, type: "webhook.test", data: {}, livemode: true },
      { onlySubscriptionId: sub.articles },
    );
    expect(await receivers(id)).toEqual([sub.articles]);
    const paused = await recordEventWithDeliveries(
      db.db,
      { tenantId: a.tenantId, livemode: true, type: "webhook.test", data: {} },
      { onlySubscriptionId: sub.paused },
    );
    expect(paused.deliveryIds).toEqual([]);
    const foreign = await recordEventWithDeliveries(
      db.db,
      { tenantId: a.tenantId, livemode: true, type: "webhook.test", data: {} },
      { onlySubscriptionId: sub.foreign },
    );
    expect(foreign.deliveryIds).toEqual([]);
  });

  it("leaves neither event nor delivery when the transaction rolls back", async () => {
    let eventId = "";
    await expect(
      db.db.transaction(async (tx) => {
        eventId = await recordEvent(tx as never, {
          tenantId: b.tenantId,
          livemode: true,
          type: "lead.updated",
          data: { marker: "rolled-back" },
        });
        // Inside the transaction the delivery exists (PGlite has one connection, so no outside look here).
        const inside = await tx.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, eventId));
        expect(inside.map((d) => d.subscriptionId)).toEqual([sub.foreign]);
        throw new Error("abort");
      }),
    ).rejects.toThrow("abort");
    expect(eventId).not.toBe("");
    expect(await db.db.select().from(events).where(eq(events.id, eventId))).toHaveLength(0);
    expect(await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, eventId))).toHaveLength(0);
    // The same write committed does queue a delivery, so the empty result above is the rollback.
    const committed = await db.db.transaction((tx) =>
      recordEvent(tx as never, { tenantId: b.tenantId, livemode: true, type: "lead.updated", data: {} }),
    );
    expect(await receivers(committed)).toEqual([sub.foreign]);
    const all = await db.db
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.tenantId, b.tenantId)));
    expect(all.every((d) => d.subscriptionId === sub.foreign)).toBe(true);
  });
});

describe("the mode of an event (issue 69)", () => {
  let m: TenantFixture;
  const mode: Record<string, string> = {};

  beforeAll(async () => {
    m = await makeTenant(db.db);
    mode.live = await subscribe(m, ["lead.*", "task.created"]);
    mode.test = await subscribe(m, ["lead.*", "task.created"], "active", false);
    mode.testOther = await subscribe(m, ["task.*"], "active", false);
  });

  it("goes only to subscriptions of its own mode, and each delivery carries that mode", async () => {
    const live = await recordEventWithDeliveries(db.db, {
      tenantId: m.tenantId,
      livemode: true,
      type: "task.created",
      data: {},
    });
    expect(await receivers(live.eventId)).toEqual([mode.live]);
    const sandbox = await recordEventWithDeliveries(db.db, {
      tenantId: m.tenantId,
      livemode: false,
      type: "task.created",
      data: {},
    });
    expect(await receivers(sandbox.eventId)).toEqual([mode.test, mode.testOther].sort());
    const rows = await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.tenantId, m.tenantId));
    for (const d of rows) expect(d.livemode).toBe(d.eventId === sandbox.eventId ? false : true);
    const [ev] = await db.db.select().from(events).where(eq(events.id, sandbox.eventId));
    expect(ev!.livemode).toBe(false);
  });

  it("a targeted event (webhook.test) reaches its subscription only in that subscription's mode", async () => {
    const other = await recordEventWithDeliveries(
      db.db,
      { tenantId: m.tenantId, livemode: true, type: "webhook.test", data: {} },
      { onlySubscriptionId: mode.test },
    );
    expect(other.deliveryIds).toEqual([]);
    const same = await recordEventWithDeliveries(
      db.db,
      { tenantId: m.tenantId, livemode: false, type: "webhook.test", data: {} },
      { onlySubscriptionId: mode.test },
    );
    expect(await receivers(same.eventId)).toEqual([mode.test]);
  });
});

describe("who may receive an event", () => {
  let c: TenantFixture;
  /** Another integration of tenant c with `scopes` (and `role`), subscribed to every family used below. */
  const integrationWith = async (scopes: string[], role?: string) => {
    const i = await createIntegration(db.db, c.tenantId, {
      name: `scopes ${scopes.join(" ")}`,
      scopes,
      role,
      piiCountry: "RU",
      legalBasis: "contract",
    });
    return subscribe({ tenantId: c.tenantId, integrationId: i.id }, [
      "conversation.*",
      "message.created",
      "lead.*",
      "contact.*",
      "task.*",
      "api_key.*",
    ]);
  };
  const reach: Record<string, string> = {};

  beforeAll(async () => {
    c = await makeTenant(db.db);
    reach.all = await subscribe(c, ["conversation.*", "message.created", "lead.*", "contact.*", "task.*", "api_key.*"]);
    reach.leads = await integrationWith(["leads:read", "webhooks:manage"]);
    reach.conversations = await integrationWith(["conversations:read", "webhooks:manage"]);
    reach.none = await integrationWith(["cards:read", "webhooks:manage"]);
    // Holds leads:read, but the role `content` cuts it from the effective scopes.
    reach.cutByRole = await integrationWith(["leads:read", "conversations:read", "webhooks:manage"], "content");
  });
  const to = (...names: string[]) => names.map((n) => reach[n]).sort();

  it.each([
    ["lead.created", ["all", "leads"]],
    ["lead.status_changed", ["all", "leads"]],
    ["conversation.created", ["all", "conversations"]],
    ["conversation.handoff_requested", ["all", "conversations"]],
    ["message.created", ["all", "conversations"]],
    ["contact.merged", ["all", "leads", "conversations"]],
    ["task.created", ["all", "leads", "conversations", "none", "cutByRole"]],
  ])("%s goes only to integrations holding a matching read scope: %j", async (type, names) => {
    const id = await recordEvent(db.db, { tenantId: c.tenantId, livemode: true, type, data: {} });
    expect(await receivers(id)).toEqual(to(...names));
  });

  it("sends api_key.expiring only to subscriptions of the integration owning the key", async () => {
    const [owner] = await db.db
      .select({ integrationId: webhookSubscriptions.integrationId })
      .from(webhookSubscriptions)
      .where(eq(webhookSubscriptions.id, reach.none));
    const id = await recordEvent(db.db, {
      tenantId: c.tenantId,
      livemode: true,
      type: "api_key.expiring",
      data: { key_id: "kid_x", integration_id: owner!.integrationId, days_left: 7 },
    });
    expect(await receivers(id)).toEqual([reach.none]);
    // Without the owner in the data nobody is told (never the whole tenant).
    const orphan = await recordEventWithDeliveries(db.db, {
      tenantId: c.tenantId,
      livemode: true,
      type: "api_key.expiring",
      data: { key_id: "kid_x" },
    });
    expect(orphan.deliveryIds).toEqual([]);
  });
});
