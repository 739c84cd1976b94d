import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conversations, events, messages, webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { createCard } from "@/server/services/cards/cards";
import { newSigningSecret, sealSecret } from "@/server/webhook-transport/secret-box";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { sandboxKey } from "@/server/testing/sandbox-key";
import { openTestDatabase } from "@/server/testing/test-db";

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let other: TenantFixture;
let n = 0;
const old = new Date(Date.UTC(2026, 9, 1));

async function conversation(channelType: string | null, kind = "customer", owner = t): Promise<string> {
  const [c] = await db.db
    .insert(conversations)
    .values({ tenantId: owner.tenantId, channelType, kind, updatedAt: old })
    .returning({ id: conversations.id });
  return c.id;
}

const send = (id: string, json: unknown, key = `k-${++n}`, api = t.key) =>
  call("POST", `/conversations/${id}/cards`, { key: api, json, idempotencyKey: key });
const messagesOf = (id: string) => db.db.select().from(messages).where(eq(messages.conversationId, id));

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  other = await makeTenant(db.db);
  const op = { tenantId: t.tenantId, via: "operator" as const };
  await createCard(db.db, op, {
    code: "shoe",
    name: "Trail shoe",
    page_url: "/p/shoe",
    price_text: "4 990 ₽",
    buttons: [{ label: "Buy", url: "/cart?sku=1" }],
  });
  await createCard(db.db, op, {
    code: "jacket",
    name: "Rain jacket",
    image_url: "https://cdn.example.ru/j.jpg",
    badge: "New",
  });
  await createCard(db.db, op, { code: "old", name: "Old", active: false });
  await createCard(db.db, op, { code: "extra", name: "Extra" });
  await createCard(db.db, { tenantId: other.tenantId, via: "operator" }, { code: "theirs", name: "Theirs" });
});
afterAll(async () => db.drop());

describe("POST /conversations/{id}/cards", () => {
  it("writes an operator message with copies of the cards and answers 201 with the spec's fields", async () => {
    const id = await conversation("website");
    const r = await send(id, { codes: ["shoe", "jacket"], comment: "Two options for you" });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      message_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      conversation_id: id,
      created_at: expect.any(String),
      cards: [
        {
          code: "shoe",
          name: "Trail shoe",
          description: null,
          image_url: null,
          price_text: "4 990 ₽",
          badge: null,
          page_url: "https://shop.example.ru/p/shoe",
          buttons: [{ label: "Buy", url: "https://shop.example.ru/cart?sku=1" }],
        },
        {
          code: "jacket",
          name: "Rain jacket",
          description: null,
          image_url: "https://cdn.example.ru/j.jpg",
          price_text: null,
          badge: "New",
          page_url: null,
          buttons: [],
        },
      ],
      delivery: "metadata",
      status: "sent",
    });
    const [m] = await messagesOf(id);
    expect(m).toMatchObject({
      id: r.body.message_id,
      sender: "operator",
      contentType: "cards",
      content: "Two options for you",
      internal: false,
    });
    expect(m.cards).toEqual(r.body.cards);
    const [c] = await db.db.select().from(conversations).where(eq(conversations.id, id));
    expect(c.updatedAt.toISOString()).toBe(r.body.created_at);
  });

  it("records message.created in the outbox and queues it for a subscribed webhook", async () => {
    await db.db.insert(webhookSubscriptions).values({
      tenantId: t.tenantId,
      integrationId: t.integrationId,
      url: "https://hooks.example.com/x",
      events: ["message.*"],
      secretEnc: sealSecret(newSigningSecret()),
    });
    const id = await conversation("api");
    const r = await send(id, { codes: ["shoe"] });
    const all = await db.db
      .select()
      .from(events)
      .where(and(eq(events.tenantId, t.tenantId), eq(events.type, "message.created")));
    const e = all.find((x) => x.data.message_id === r.body.message_id)!;
    expect(e.data).toEqual({ conversation_id: id, message_id: r.body.message_id, sender: "operator" });
    expect(e.livemode).toBe(true);
    const deliveries = await db.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, e.id));
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0].state).toBe("pending");
  });

  it("keeps the sent copy when the card changes later", async () => {
    const id = await conversation("website");
    await send(id, { codes: ["extra"] });
    const patch = await call("PATCH", "/cards/extra", { key: t.key, json: { name: "Renamed" } });
    expect(patch.status).toBe(200);
    const [m] = await messagesOf(id);
    expect(m.cards![0].name).toBe("Extra");
  });

  it("chooses delivery by channel: native for messengers, text lines elsewhere", async () => {
    const tg = await send(await conversation("telegram"), { codes: ["shoe"] });
    expect(tg.body.delivery).toBe("native");
    const emailId = await conversation("email");
    const email = await send(emailId, { codes: ["shoe"], comment: "Look" });
    expect(email.body.delivery).toBe("text");
    const [m] = await messagesOf(emailId);
    expect(m.content).toBe("Look\nTrail shoe · 4 990 ₽ · https://shop.example.ru/p/shoe");
  });

  it("answers a repeat with the same Idempotency-Key with the same message and writes one", async () => {
    const id = await conversation("website");
    const first = await send(id, { codes: ["shoe"] }, "same-key");
    const again = await send(id, { codes: ["shoe"] }, "same-key");
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(await messagesOf(id)).toHaveLength(1);
    const conflict = await send(id, { codes: ["jacket"] }, "same-key");
    expect([conflict.status, conflict.body.code]).toEqual([409, "idempotency_conflict"]);
  });

  it("needs an Idempotency-Key", async () => {
    const id = await conversation("website");
    const r = await call("POST", `/conversations/${id}/cards`, { key: t.key, json: { codes: ["shoe"] } });
    expect([r.status, r.body.code]).toEqual([400, "idempotency_key_required"]);
    expect(await messagesOf(id)).toHaveLength(0);
  });

  it("refuses unknown, inactive, foreign and repeated codes on /codes and writes nothing", async () => {
    const id = await conversation("website");
    const eventsBefore = (await db.db.select().from(events).where(eq(events.tenantId, t.tenantId))).length;
    for (const codes of [["nope"], ["old"], ["theirs"], ["shoe", "shoe"]]) {
      const r = await send(id, { codes });
      expect(r.status, codes.join()).toBe(422);
      expect(r.body.errors[0].field).toBe("/codes");
    }
    expect(await messagesOf(id)).toHaveLength(0);
    expect(await db.db.select().from(events).where(eq(events.tenantId, t.tenantId))).toHaveLength(eventsBefore);
  });

  it("validates the body: 1 to 3 codes, comment up to 1000 characters", async () => {
    const id = await conversation("website");
    const cases: [unknown, string][] = [
      [{ codes: [] }, "/codes"],
      [{ codes: ["shoe", "jacket", "extra", "old"] }, "/codes"],
      [{}, "/codes"],
      [{ codes: ["shoe"], comment: "x".repeat(1001) }, "/comment"],
      [{ codes: ["shoe"], extra: 1 }, "/extra"],
    ];
    for (const [json, field] of cases) {
      const r = await send(id, json);
      expect(r.status, JSON.stringify(json).slice(0, 60)).toBe(422);
      expect(r.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    expect((await send(id, { codes: ["shoe"], comment: "x".repeat(1000) })).status).toBe(201);
  });

  it("answers 404 for mailbox, cabinet, foreign and missing conversations and writes nothing", async () => {
    const ids = [
      await conversation("website", "personal_mailbox"),
      await conversation("website", "student_cabinet"),
      await conversation("website", "customer", other),
      crypto.randomUUID(),
    ];
    for (const id of ids) {
      const r = await send(id, { codes: ["shoe"] });
      expect([r.status, r.body.code], id).toEqual([404, "not_found"]);
    }
    for (const id of ids.slice(0, 3)) expect(await messagesOf(id)).toHaveLength(0);
  });
});

// Issue 69: cards go out within one mode. A sandbox key sends sandbox cards into sandbox conversations;
// a conversation or a card of the other mode does not exist for it.
describe("test mode", () => {
  let mt: TenantFixture;
  let sandbox: string;
  let liveConversation: string;
  let sandboxConversation: string;

  beforeAll(async () => {
    mt = await makeTenant(db.db);
    sandbox = await sandboxKey(db.db, mt);
    const live = { tenantId: mt.tenantId, via: "operator" as const };
    const test = { ...live, livemode: false };
    await createCard(db.db, live, { code: "both", name: "Live card" });
    await createCard(db.db, test, { code: "both", name: "Sandbox card" });
    await createCard(db.db, live, { code: "live-only", name: "Live only" });
    await createCard(db.db, test, { code: "sandbox-only", name: "Sandbox only" });
    const [l, s] = await db.db
      .insert(conversations)
      .values([
        { tenantId: mt.tenantId, channelType: "website" },
        { tenantId: mt.tenantId, livemode: false, channelType: "website" },
      ])
      .returning({ id: conversations.id });
    liveConversation = l!.id;
    sandboxConversation = s!.id;
  });

  it("writes the message, its card copies and its event in the sandbox", async () => {
    const r = await send(sandboxConversation, { codes: ["both", "sandbox-only"] }, `k-${++n}`, sandbox);
    expect(r.status).toBe(201);
    expect(r.body.cards.map((c: { name: string }) => c.name)).toEqual(["Sandbox card", "Sandbox only"]);
    const [m] = await messagesOf(sandboxConversation);
    expect(m).toMatchObject({ id: r.body.message_id, livemode: false, tenantId: mt.tenantId });
    const e = (await db.db.select().from(events).where(eq(events.tenantId, mt.tenantId))).find(
      (x) => x.data.message_id === r.body.message_id,
    );
    expect(e).toMatchObject({ type: "message.created", livemode: false });
  });

  it("sends live cards from a live key, and refuses a card of the other mode as unknown", async () => {
    const live = await send(liveConversation, { codes: ["both"] }, `k-${++n}`, mt.key);
    expect(live.status).toBe(201);
    expect(live.body.cards[0].name).toBe("Live card");
    for (const [id, code, key] of [
      [sandboxConversation, "live-only", sandbox],
      [liveConversation, "sandbox-only", mt.key],
    ] as const) {
      const refused = await send(id, { codes: [code] }, `k-${++n}`, key);
      expect(refused.status).toBe(422);
      expect(refused.body.errors).toEqual([expect.objectContaining({ field: "/codes", code: "unknown_card" })]);
    }
  });

  it("answers a conversation of the other mode with 404 and writes nothing", async () => {
    const before = (await messagesOf(liveConversation)).length + (await messagesOf(sandboxConversation)).length;
    for (const [id, key] of [
      [liveConversation, sandbox],
      [sandboxConversation, mt.key],
    ] as const) {
      const r = await send(id, { codes: ["both"] }, `k-${++n}`, key);
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("not_found");
    }
    expect((await messagesOf(liveConversation)).length + (await messagesOf(sandboxConversation)).length).toBe(before);
  });
});
