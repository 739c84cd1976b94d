import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { contacts, conversations, events, leads, webhookSubscriptions } from "@/db/schema";
import { attemptDelivery } from "@/server/jobs/attempt-delivery";
import { setClock } from "@/server/lib/clock";
import { SCOPES } from "@/server/schemas/scopes";
import { recordEventWithDeliveries } from "@/server/services/events/outbox";
import { createIntegration } from "@/server/services/integrations/integrations";
import { issueKey } from "@/server/services/keys/keys";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { LOOPBACK_RECEIVER_ENV, startHttpsReceiver, type HttpsReceiver } from "@/server/testing/https-receiver";
import { sandboxKey } from "@/server/testing/sandbox-key";
import { openTestDatabase } from "@/server/testing/test-db";
import { createDeliveryClient, type DeliveryClient } from "@/server/webhook-transport/delivery-client";
import { buildEnvelope } from "@/server/webhook-transport/envelope";
import { newSigningSecret, sealSecret } from "@/server/webhook-transport/secret-box";

// Issue 75 item 1: the event journal. GET /events lists the events of the key's tenant and mode of the
// last 30 days, newest first, keyset-paged, filtered by type (exact or family.*) and created_after;
// GET /events/{id} reads one. Each is exactly the thin envelope its deliveries carry.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let rx: HttpsReceiver;
let client: DeliveryClient;
let a: TenantFixture;
let b: TenantFixture;
let aTestKey: string;
/** A second integration of tenant A holding only `webhooks:manage`. */
let narrow: { integrationId: string; key: string };

const DAY = 86_400_000;

/** Writes an event row of `t` directly, `agoMs` before now (real clock), in `livemode`. */
async function emit(
  t: { tenantId: string },
  type: string,
  data: Record<string, unknown> = {},
  o: { agoMs?: number; livemode?: boolean } = {},
) {
  const [row] = await db.db
    .insert(events)
    .values({
      tenantId: t.tenantId,
      type,
      data,
      livemode: o.livemode ?? true,
      createdAt: new Date(Date.now() - (o.agoMs ?? 0)),
    })
    .returning();
  return row!;
}

const get = (path: string, key = a.key) => call("GET", path, { key });
const idsOf = (body: { data: { id: string }[] }) => body.data.map((e) => e.id);

/** Every page of `GET path` (limit 2), following next_cursor. */
async function walk(path: string, key = a.key): Promise<{ id: string; type: string }[]> {
  const out: { id: string; type: string }[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes("?") ? "&" : "?";
    const r = await get(`${path}${sep}limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, key);
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.length).toBeLessThanOrEqual(2);
    out.push(...r.body.data);
    cursor = r.body.next_cursor;
  } while (cursor);
  return out;
}

async function subscribe(t: TenantFixture, eventsOf: string[], includePii = false) {
  const [row] = await db.db
    .insert(webhookSubscriptions)
    .values({
      tenantId: t.tenantId,
      integrationId: t.integrationId,
      url: rx.url,
      events: eventsOf,
      includePii,
      status: "active",
      secretEnc: sealSecret(newSigningSecret()),
    })
    .returning({ id: webhookSubscriptions.id });
  return row!.id;
}

beforeAll(async () => {
  db = await openTestDatabase({ ...LOOPBACK_RECEIVER_ENV });
  rx = await startHttpsReceiver();
  client = createDeliveryClient({ testCa: rx.certPem, timeoutMs: 3_000 });
  a = await makeTenant(db.db);
  b = await makeTenant(db.db);
  aTestKey = await sandboxKey(db.db, a);
  const i = await createIntegration(db.db, a.tenantId, {
    name: "Narrow",
    scopes: ["webhooks:manage"],
    piiCountry: "RU",
    legalBasis: "contract",
  });
  narrow = {
    integrationId: i.id,
    key: (await issueKey(db.db, { integrationId: i.id, ipAllowlist: ["127.0.0.1"] })).key,
  };
  for (const keyId of [a.keyId])
    await setLimitOverride(db.db, { keyId }, { readPerMin: 100_000, writePerMin: 100_000, paidPerMin: 100_000 });
});
afterEach(() => {
  setClock(undefined);
  rx.respond({ kind: "status", status: 200 });
});
afterAll(async () => {
  setClock(undefined);
  await client.close();
  await rx.stop();
  await db.drop();
});

describe("GET /events", () => {
  it("lists the tenant's events of its mode newest first, each exactly its thin envelope", async () => {
    const t = await makeTenant(db.db);
    const older = await emit(t, "lead.created", { lead_id: crypto.randomUUID(), version: 1 }, { agoMs: 60_000 });
    const newer = await emit(
      t,
      "article.ready",
      { type: "article", article_id: crypto.randomUUID() },
      { agoMs: 1_000 },
    );
    await emit(b, "lead.created", { lead_id: crypto.randomUUID(), version: 1 });
    await emit(t, "lead.updated", { lead_id: crypto.randomUUID(), version: 2 }, { livemode: false });
    const r = await get("/events", t.key);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: [buildEnvelope(newer), buildEnvelope(older)], next_cursor: null });
    expect(Object.keys(r.body.data[0]).sort()).toEqual(["api_version", "created_at", "data", "id", "livemode", "type"]);

    const one = await get(`/events/${older.id}`, t.key);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(buildEnvelope(older));
  });

  it("keeps each mode to itself: a test key reads the sandbox's events, a live key never does", async () => {
    const live = await emit(a, "task.created", {});
    const sandbox = await emit(a, "task.completed", {}, { livemode: false });
    const liveList = idsOf((await get("/events?type=task.*")).body);
    expect(liveList).toContain(live.id);
    expect(liveList).not.toContain(sandbox.id);
    const testList = await get("/events?type=task.*", aTestKey);
    expect(idsOf(testList.body)).toContain(sandbox.id);
    expect(idsOf(testList.body)).not.toContain(live.id);
    expect(testList.body.data.find((e: { id: string }) => e.id === sandbox.id).livemode).toBe(false);
    expect((await get(`/events/${sandbox.id}`)).status).toBe(404);
    expect((await get(`/events/${live.id}`, aTestKey)).status).toBe(404);
    expect((await get(`/events/${sandbox.id}`, aTestKey)).body).toEqual(buildEnvelope(sandbox));
  });

  it("answers another tenant's event, and a missing one, 404 not_found", async () => {
    const foreign = await emit(b, "task.created", {});
    for (const id of [foreign.id, crypto.randomUUID()]) {
      const r = await get(`/events/${id}`);
      expect([r.status, r.body.code]).toEqual([404, "not_found"]);
    }
    expect((await get(`/events/${foreign.id}`, b.key)).status).toBe(200);
    expect((await get("/events/not-a-uuid")).status).toBe(404);
  });

  it("shows the last 30 days on the clock: an event past 30 days is gone from the list and 404", async () => {
    const t = await makeTenant(db.db);
    const e29 = await emit(t, "task.created", {}, { agoMs: 29 * DAY });
    const e1 = await emit(t, "task.created", {}, { agoMs: DAY });
    await emit(t, "task.created", {}, { agoMs: 31 * DAY }); // kept in the table until the retention job runs
    expect(idsOf((await get("/events", t.key)).body)).toEqual([e1.id, e29.id]);
    expect((await get(`/events/${e29.id}`, t.key)).status).toBe(200);

    setClock(() => Date.now() + 2 * DAY); // two days later: e29 is 31 days old
    expect(idsOf((await get("/events", t.key)).body)).toEqual([e1.id]);
    expect((await get(`/events/${e29.id}`, t.key)).status).toBe(404);
    setClock(() => Date.now() + 31 * DAY);
    expect((await get("/events", t.key)).body).toEqual({ data: [], next_cursor: null });
  });

  it("filters by an exact type or a family pattern, and refuses a type outside the catalog", async () => {
    const t = await makeTenant(db.db);
    const created = await emit(t, "lead.created", { lead_id: crypto.randomUUID(), version: 1 }, { agoMs: 3000 });
    const updated = await emit(t, "lead.updated", { lead_id: crypto.randomUUID(), version: 2 }, { agoMs: 2000 });
    const task = await emit(t, "task.created", {}, { agoMs: 1000 });
    const key = { key: t.key };
    expect(idsOf((await get("/events?type=lead.created", key.key)).body)).toEqual([created.id]);
    expect(idsOf((await get("/events?type=lead.*", key.key)).body)).toEqual([updated.id, created.id]);
    expect(idsOf((await get("/events?type=task.*", key.key)).body)).toEqual([task.id]);
    expect(idsOf((await get("/events?type=article.*", key.key)).body)).toEqual([]);
    for (const bad of ["lead", "lead.nope", "*", "nope.*", "lead.created.*"]) {
      const r = await get(`/events?type=${encodeURIComponent(bad)}`, key.key);
      expect([r.status, r.body.code, r.body.errors?.[0]?.field], bad).toEqual([422, "validation_failed", "/type"]);
    }
  });

  it("takes the pattern of a family whose name has an underscore", async () => {
    const t = await makeTenant(db.db);
    const expiring = await emit(t, "api_key.expiring", { integration_id: t.integrationId });
    expect(idsOf((await get("/events?type=api_key.*", t.key)).body)).toEqual([expiring.id]);
  });

  it("created_after keeps only later events, strictly; a time without a zone is 422", async () => {
    const t = await makeTenant(db.db);
    const first = await emit(t, "task.created", {}, { agoMs: 3000 });
    const second = await emit(t, "task.created", {}, { agoMs: 2000 });
    const third = await emit(t, "task.created", {}, { agoMs: 1000 });
    const after = (at: Date) => get(`/events?created_after=${encodeURIComponent(at.toISOString())}`, t.key);
    expect(idsOf((await after(first.createdAt)).body)).toEqual([third.id, second.id]);
    expect(idsOf((await after(new Date(first.createdAt.getTime() - 1))).body)).toEqual([third.id, second.id, first.id]);
    expect(idsOf((await after(third.createdAt)).body)).toEqual([]);
    const offset = await get(`/events?created_after=${encodeURIComponent("2020-01-01T03:00:00+03:00")}`, t.key);
    expect(offset.body.data).toHaveLength(3);
    const r = await get("/events?created_after=2026-01-01T00:00:00", t.key);
    expect([r.status, r.body.errors?.[0]?.field]).toEqual([422, "/created_after"]);
  });

  it("walks every page with the cursor, bound to the filters; a bad or foreign cursor is 422 on /cursor", async () => {
    const t = await makeTenant(db.db);
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await emit(t, "task.created", {}, { agoMs: (10 - i) * 1000 }));
    // Two events of the same millisecond: the id breaks the tie, and the walk loses neither.
    const same = new Date(Date.now() - 500);
    for (let i = 0; i < 2; i++) {
      const [row] = await db.db
        .insert(events)
        .values({ tenantId: t.tenantId, type: "task.completed", data: {}, createdAt: same })
        .returning();
      made.push(row!);
    }
    const walked = await walk("/events", t.key);
    const expected = [...made]
      .sort((x, y) => y.createdAt.getTime() - x.createdAt.getTime() || (x.id < y.id ? 1 : -1))
      .map((e) => e.id);
    expect(walked.map((e) => e.id)).toEqual(expected);
    expect((await walk("/events?type=task.completed", t.key)).map((e) => e.id)).toEqual(expected.slice(0, 2));

    const first = await get("/events?limit=2", t.key);
    const cursor = encodeURIComponent(first.body.next_cursor);
    for (const path of [
      `/events?cursor=garbage`,
      `/events?type=task.*&cursor=${cursor}`, // another filter set
    ]) {
      const r = await get(path, t.key);
      expect([r.status, r.body.code, r.body.errors?.[0]?.field], path).toEqual([422, "validation_failed", "/cursor"]);
    }
    const stranger = await get(`/events?cursor=${cursor}`, b.key);
    expect([stranger.status, stranger.body.errors?.[0]?.field]).toEqual([422, "/cursor"]);
  });

  it("needs webhooks:manage: 403 scope_missing without it", async () => {
    const t = await makeTenant(db.db, { scopes: SCOPES.filter((s) => s !== "webhooks:manage") });
    const e = await emit(t, "task.created", {});
    for (const path of ["/events", `/events/${e.id}`]) {
      const r = await get(path, t.key);
      expect([r.status, r.body.code], path).toEqual([403, "scope_missing"]);
    }
  });

  it("shows an integration only what it could receive: no webhook.test, read scopes for personal-data events, its own api_key.expiring", async () => {
    const sub = await subscribe(a, ["task.*"]);
    const test = await call("POST", `/webhooks/${sub}/test`, { key: a.key, idempotencyKey: crypto.randomUUID() });
    expect(test.status).toBe(202);
    const lead = await emit(a, "lead.created", { lead_id: crypto.randomUUID(), version: 1 });
    const message = await emit(a, "message.created", { conversation_id: crypto.randomUUID() });
    const task = await emit(a, "task.created", {});
    const mine = await emit(a, "api_key.expiring", { integration_id: a.integrationId });
    const theirs = await emit(a, "api_key.expiring", { integration_id: narrow.integrationId });

    const full = idsOf((await get("/events?limit=100")).body);
    expect(full).toEqual(expect.arrayContaining([lead.id, message.id, task.id, mine.id]));
    expect(full).not.toContain(test.body.event_id);
    expect(full).not.toContain(theirs.id);
    expect((await get(`/events/${test.body.event_id}`)).status).toBe(404);
    expect((await get("/events?type=webhook.test")).body.data).toEqual([]);

    const limited = idsOf((await get("/events?limit=100", narrow.key)).body);
    expect(limited).toEqual(expect.arrayContaining([task.id, theirs.id]));
    for (const hidden of [lead.id, message.id, mine.id, test.body.event_id]) {
      expect(limited).not.toContain(hidden);
      expect((await get(`/events/${hidden}`, narrow.key)).status).toBe(404);
    }
  });
});

describe("the journal and what receivers got", () => {
  it("an event reads exactly as the body its delivery carried", async () => {
    const sub = await subscribe(a, ["task.*"]);
    rx.requests.length = 0;
    const r = await recordEventWithDeliveries(
      db.db,
      { tenantId: a.tenantId, livemode: true, type: "task.created", data: {} },
      { onlySubscriptionId: sub },
    );
    expect((await attemptDelivery(db.db, r.deliveryIds[0]!, new Date(), { client })).state).toBe("delivered");
    const one = await get(`/events/${r.eventId}`);
    expect(one.text).toBe(rx.requests[0]!.body);
    const listed = await get(`/events?type=task.created&created_after=${new Date(Date.now() - 60_000).toISOString()}`);
    expect(listed.body.data[0]).toEqual(JSON.parse(rx.requests[0]!.body));
  });

  it("never carries personal data, even for the event of an include_pii subscription", async () => {
    const [c] = await db.db
      .insert(contacts)
      .values({
        tenantId: a.tenantId,
        firstName: "Anna",
        lastName: "Petrova",
        email: "anna@example.ru",
        phone: "+79990000000",
      })
      .returning({ id: contacts.id });
    const [conv] = await db.db
      .insert(conversations)
      .values({ tenantId: a.tenantId, channelType: "api", contactId: c!.id })
      .returning({ id: conversations.id });
    const [l] = await db.db
      .insert(leads)
      .values({ tenantId: a.tenantId, contactId: c!.id, conversationId: conv!.id })
      .returning({ id: leads.id });
    const sub = await subscribe(a, ["lead.*"], true);
    rx.requests.length = 0;
    const data = { lead_id: l!.id, contact_id: c!.id, conversation_id: conv!.id, version: 1 };
    const r = await recordEventWithDeliveries(
      db.db,
      { tenantId: a.tenantId, livemode: true, type: "lead.created", data },
      { onlySubscriptionId: sub },
    );
    expect((await attemptDelivery(db.db, r.deliveryIds[0]!, new Date(), { client })).state).toBe("delivered");
    const delivered = JSON.parse(rx.requests[0]!.body);
    expect(delivered.data.contact.email).toBe("anna@example.ru"); // the receiver got personal data

    const one = await get(`/events/${r.eventId}`);
    expect(one.body).toEqual({ ...delivered, data }); // the same envelope, thin
    const listed = await get("/events?type=lead.created&limit=100");
    const text = one.text + listed.text;
    for (const personal of ["Anna", "Petrova", "anna@example.ru", "+79990000000", '"contact"'])
      expect(text).not.toContain(personal);
  });

  it("after a receiver outage, every event emitted meanwhile is read by the catch-up loop, newest first, once", async () => {
    const t = await makeTenant(db.db);
    const sub = await subscribe(t, ["task.*", "article.*"]);
    const send = async (type: string) => {
      const r = await recordEventWithDeliveries(
        db.db,
        { tenantId: t.tenantId, livemode: true, type, data: {} },
        { onlySubscriptionId: sub },
      );
      return { eventId: r.eventId, out: await attemptDelivery(db.db, r.deliveryIds[0]!, new Date(), { client }) };
    };
    rx.requests.length = 0;
    const before = await send("task.created");
    expect(before.out.state).toBe("delivered");
    const lastSeen = { id: before.eventId, at: JSON.parse(rx.requests[0]!.body).created_at as string };

    rx.respond({ kind: "status", status: 503 }); // the receiver is down
    const missed: string[] = [];
    for (const type of [
      "task.created",
      "article.generation.failed",
      "task.completed",
      "task.created",
      "article.ready",
    ]) {
      const s = await send(type);
      expect(s.out.state).toBe("failed"); // a retry is an hour away at best
      missed.push(s.eventId);
    }
    rx.respond({ kind: "status", status: 200 }); // back up: catch up without waiting for the retries

    // The loop of docs/webhooks.md: newest first from created_after, page until what it already has.
    const handled = new Set<string>([lastSeen.id]);
    const read: string[] = [];
    let cursor: string | null = null;
    do {
      const q = `created_after=${encodeURIComponent(lastSeen.at)}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const page = await get(`/events?${q}`, t.key);
      expect(page.status).toBe(200);
      for (const e of page.body.data as { id: string }[]) {
        if (handled.has(e.id)) continue;
        handled.add(e.id);
        read.push(e.id);
      }
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(read).toEqual([...missed].reverse());
    // Each is the envelope its (refused) delivery carried, so a receiver handles both the same way.
    const bodies = new Map(rx.requests.map((q) => [JSON.parse(q.body).id as string, JSON.parse(q.body)]));
    for (const id of missed) expect((await get(`/events/${id}`, t.key)).body).toEqual(bodies.get(id));
  });
});
