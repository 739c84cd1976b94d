import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as serveDocument } from "@/app/api/public/v1/openapi.json/route";
import { contacts, conversations, events, messages } from "@/db/schema";
import { setPreview } from "@/server/services/tenants/previews";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { sandboxKey } from "@/server/testing/sandbox-key";
import { openTestDatabase } from "@/server/testing/test-db";
import { ADDRESS_LIMIT_PER_MIN } from "@/server/services/limits/rate-limiter";

// The `conversation-writes` preview: the Planned conversation write routes work for a tenant with the
// flag, and answer exactly the Planned 404 for everyone else.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let on: TenantFixture;
let off: TenantFixture;
let n = 0;
const P = { preview: "conversation-writes" as const };

const post = (path: string, key: string, json?: unknown, idem?: string) =>
  call("POST", path, { key, json, idempotencyKey: idem, ...P });
const eventsOf = (tenantId: string, type: string) =>
  db.db
    .select()
    .from(events)
    .where(and(eq(events.tenantId, tenantId), eq(events.type, type)));

beforeAll(async () => {
  db = await openTestDatabase();
  on = await makeTenant(db.db);
  off = await makeTenant(db.db);
  expect(await setPreview(db.db, on.tenantId, "conversation-writes", true)).toMatchObject({
    "conversation-writes": true,
    "test-mode": false,
  });
});
afterAll(async () => db.drop());

describe("without the preview", () => {
  const PATHS = [
    "/conversations",
    `/conversations/${crypto.randomUUID()}/messages`,
    `/conversations/${crypto.randomUUID()}/operator-messages`,
    `/conversations/${crypto.randomUUID()}/takeover`,
    `/conversations/${crypto.randomUUID()}/release`,
    `/conversations/${crypto.randomUUID()}/close`,
  ];

  it("answers every route with the Planned 404, with a valid key, a bad key or none, counted like one", async () => {
    let address = 0;
    for (const path of PATHS) {
      for (const key of [off.key, "sk_live_ru_aaaaaaaaaaaaaaaaaaaa_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", null]) {
        // Each from a fresh address: the rate headers are then those of any answer given before a key is
        // accepted (the address's first request), never the key's own window, which would tell a valid key.
        const ip = `198.51.100.${++address}`;
        const r = await call("POST", path, { key, ip, json: { content: "hi" }, idempotencyKey: `k-${++n}` });
        expect(r.status, `${path} ${key}`).toBe(404);
        expect(r.body).toMatchObject({
          code: "not_found",
          detail: `No route POST ${path} exists in this API version.`,
        });
        expect([r.headers.get("ratelimit-limit"), r.headers.get("ratelimit-remaining")]).toEqual([
          String(ADDRESS_LIMIT_PER_MIN),
          String(ADDRESS_LIMIT_PER_MIN - 1),
        ]);
      }
    }
  });

  it("answers a flagged tenant's bad key with the same 404 (the tenant is unknown until the key is)", async () => {
    const r = await call("POST", "/conversations", { json: { external_customer_id: "x" } });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe("not_found");
  });

  it("keeps other methods on these paths as they were (404, never 405)", async () => {
    const r = await call("PUT", `/conversations/${crypto.randomUUID()}/close`, { key: on.key });
    expect(r.status).toBe(404);
  });

  it("stops working when the preview is switched off again", async () => {
    const t = await makeTenant(db.db);
    await setPreview(db.db, t.tenantId, "conversation-writes", true);
    expect((await post("/conversations", t.key, { external_customer_id: "a" })).status).toBe(201);
    expect(await setPreview(db.db, t.tenantId, "conversation-writes", false)).toMatchObject({
      "conversation-writes": false,
      "test-mode": false,
    });
    expect((await post("/conversations", t.key, { external_customer_id: "a" })).status).toBe(404);
  });

  it("leaves GET /me as it is", async () => {
    const a = await call("GET", "/me", { key: on.key });
    const b = await call("GET", "/me", { key: off.key });
    expect(a.status).toBe(200);
    expect(Object.keys(a.body).sort()).toEqual(Object.keys(b.body).sort());
    expect(a.body).not.toHaveProperty("preview");
  });
});

describe("POST /conversations", () => {
  it("makes the conversation of an external customer once, with its contact and conversation.created", async () => {
    const body = { external_customer_id: "crm-42", name: "Anna", email: "anna@example.com", page: { address: "/p/1" } };
    const r = await post("/conversations", on.key, body, `c-${++n}`);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      channel: "api",
      external_customer_id: "crm-42",
      status: "open",
      mode: "ai",
      contact_id: expect.any(String),
    });
    const again = await post("/conversations", on.key, { external_customer_id: "crm-42" });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(r.body.id);
    const [contact] = await db.db.select().from(contacts).where(eq(contacts.id, r.body.contact_id));
    expect(contact).toMatchObject({ firstName: "Anna", email: "anna@example.com" });
    const created = (await eventsOf(on.tenantId, "conversation.created")).filter(
      (e) => e.data.conversation_id === r.body.id,
    );
    expect(created).toHaveLength(1);
  });

  it("refuses a missing external_customer_id with 422 on its pointer", async () => {
    const r = await post("/conversations", on.key, { name: "x" });
    expect(r.status).toBe(422);
    expect(r.body.errors).toContainEqual(expect.objectContaining({ field: "/external_customer_id" }));
  });

  it("needs conversations:write", async () => {
    const t = await makeTenant(db.db, { scopes: ["conversations:read"] });
    await setPreview(db.db, t.tenantId, "conversation-writes", true);
    const r = await post("/conversations", t.key, { external_customer_id: "x" });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("scope_missing");
  });
});

describe("takeover, release, close and operator messages", () => {
  it("moves mode and status as the spec's States table says, repeats safely, and refuses a closed one", async () => {
    const c = (await post("/conversations", on.key, { external_customer_id: `s-${++n}` })).body;
    const take = await post(`/conversations/${c.id}/takeover`, on.key, undefined, `t-${++n}`);
    expect(take.status).toBe(200);
    expect(take.body).toMatchObject({ id: c.id, mode: "operator", status: "open" });
    expect((await post(`/conversations/${c.id}/takeover`, on.key)).body.mode).toBe("operator");
    const release = await post(`/conversations/${c.id}/release`, on.key);
    expect(release.body).toMatchObject({ mode: "ai", status: "open" });
    const close = await post(`/conversations/${c.id}/close`, on.key);
    expect(close.body).toMatchObject({ status: "closed" });
    expect((await post(`/conversations/${c.id}/close`, on.key)).status).toBe(200);
    const refused = await post(`/conversations/${c.id}/takeover`, on.key);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("invalid_state");
    const [row] = await db.db.select().from(conversations).where(eq(conversations.id, c.id));
    expect(row).toMatchObject({ status: "closed", mode: "ai" });
  });

  it("writes an operator message with message.created, and answers 404 for another tenant's conversation", async () => {
    const c = (await post("/conversations", on.key, { external_customer_id: `o-${++n}` })).body;
    const r = await post(`/conversations/${c.id}/operator-messages`, on.key, {
      content: "Hello!",
      operator_id: "op-1",
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ conversation_id: c.id, sender: "operator", content: "Hello!" });
    const [m] = await db.db.select().from(messages).where(eq(messages.id, r.body.id));
    expect(m.sender).toBe("operator");
    const ev = (await eventsOf(on.tenantId, "message.created")).find((e) => e.data.message_id === r.body.id);
    expect(ev?.data).toEqual({ conversation_id: c.id, message_id: r.body.id, sender: "operator" });
    const t = await makeTenant(db.db);
    await setPreview(db.db, t.tenantId, "conversation-writes", true);
    expect((await post(`/conversations/${c.id}/operator-messages`, t.key, { content: "x" })).status).toBe(404);
  });
});

describe("the OpenAPI document", () => {
  it("lists the preview routes only at ?preview=conversation-writes", async () => {
    const get = async (q: string) =>
      (await serveDocument(new Request(`https://api.example.ru/api/public/v1/openapi.json${q}`)).json()) as {
        paths: Record<string, Record<string, unknown>>;
      };
    const base = await get("");
    const preview = await get("?preview=conversation-writes");
    expect(base.paths["/conversations"]?.post).toBeUndefined();
    expect(base.paths["/conversations/{id}/takeover"]).toBeUndefined();
    expect(preview.paths["/conversations"]?.post).toBeDefined();
    for (const a of ["messages", "operator-messages", "takeover", "release", "close"])
      expect(preview.paths[`/conversations/{id}/${a}`]?.post, a).toBeDefined();
    const unknown = await serveDocument(new Request("https://api.example.ru/api/public/v1/openapi.json?preview=nope"));
    expect(unknown.status).toBe(404);
  });
});

// Issue 69: the write routes write in the key's mode. A test key of a tenant with the preview `test-mode`
// makes sandbox conversations, contacts, messages and events (`livemode` false) and cannot touch a live
// conversation; a live key cannot touch a sandbox one.
describe("test mode", () => {
  let mt: TenantFixture;
  let sandbox: string;
  const rowOf = async (id: string) => (await db.db.select().from(conversations).where(eq(conversations.id, id)))[0]!;

  beforeAll(async () => {
    mt = await makeTenant(db.db);
    await setPreview(db.db, mt.tenantId, "conversation-writes", true);
    sandbox = await sandboxKey(db.db, mt);
  });

  it("makes a sandbox conversation with its contact and event; the same customer in live data is another one", async () => {
    const s = await post("/conversations", sandbox, { external_customer_id: "both-modes", name: "Sandy" });
    expect(s.status).toBe(201);
    expect(await rowOf(s.body.id)).toMatchObject({ livemode: false, tenantId: mt.tenantId });
    const [contact] = await db.db.select().from(contacts).where(eq(contacts.id, s.body.contact_id));
    expect(contact).toMatchObject({ livemode: false, firstName: "Sandy" });
    const created = (await eventsOf(mt.tenantId, "conversation.created")).filter(
      (e) => e.data.conversation_id === s.body.id,
    );
    expect(created.map((e) => e.livemode)).toEqual([false]);

    expect((await post("/conversations", sandbox, { external_customer_id: "both-modes" })).body.id).toBe(s.body.id);
    const l = await post("/conversations", mt.key, { external_customer_id: "both-modes" });
    expect(l.status).toBe(201);
    expect(l.body.id).not.toBe(s.body.id);
    expect(await rowOf(l.body.id)).toMatchObject({ livemode: true });
    const liveEvent = (await eventsOf(mt.tenantId, "conversation.created")).find(
      (e) => e.data.conversation_id === l.body.id,
    );
    expect(liveEvent?.livemode).toBe(true);
  });

  it("writes an operator message and its event in the sandbox", async () => {
    const c = (await post("/conversations", sandbox, { external_customer_id: `sm-${++n}` })).body;
    const r = await post(`/conversations/${c.id}/operator-messages`, sandbox, { content: "Hi from the sandbox" });
    expect(r.status).toBe(201);
    const [m] = await db.db.select().from(messages).where(eq(messages.id, r.body.id));
    expect(m).toMatchObject({ livemode: false, sender: "operator" });
    const ev = (await eventsOf(mt.tenantId, "message.created")).find((e) => e.data.message_id === r.body.id);
    expect(ev?.livemode).toBe(false);
    const take = await post(`/conversations/${c.id}/takeover`, sandbox);
    expect(take.body).toMatchObject({ id: c.id, mode: "operator" });
  });

  it("answers every write on a conversation of the other mode with 404 and changes nothing", async () => {
    const live = (await post("/conversations", mt.key, { external_customer_id: `x-${++n}` })).body;
    const test = (await post("/conversations", sandbox, { external_customer_id: `x-${++n}` })).body;
    for (const [c, key] of [
      [live, sandbox],
      [test, mt.key],
    ] as const) {
      for (const path of ["operator-messages", "takeover", "release", "close"]) {
        const r = await post(
          `/conversations/${c.id}/${path}`,
          key,
          path === "operator-messages" ? { content: "x" } : undefined,
        );
        expect(r.status, path).toBe(404);
        expect(r.body.code).toBe("not_found");
      }
      expect(await rowOf(c.id)).toMatchObject({ status: "open", mode: "ai" });
      expect(await db.db.select().from(messages).where(eq(messages.conversationId, c.id))).toEqual([]);
    }
  });

  it("keeps a test key without the preview test-mode in live data, as before test mode", async () => {
    const plain = await makeTenant(db.db, { key: { mode: "test" } });
    await setPreview(db.db, plain.tenantId, "conversation-writes", true);
    const r = await post("/conversations", plain.key, { external_customer_id: "plain" });
    expect(r.status).toBe(201);
    expect(await rowOf(r.body.id)).toMatchObject({ livemode: true });
    const [contact] = await db.db.select().from(contacts).where(eq(contacts.id, r.body.contact_id));
    expect(contact?.livemode).toBe(true);
  });
});
