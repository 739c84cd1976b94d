import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conversations, messages, requestLog } from "@/db/schema";
import { PEER_HEADER } from "@/server/lib/client-ip";
import { createCard } from "@/server/services/cards/cards";
import { flushRequestLog } from "@/server/services/request-log/writer";
import { call, TEST_ORIGIN } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { serveSentUrl } from "./door";
import { goesToStaticDoor, SENT_URL_HEADER, STATIC_DOOR_PATH } from "./static-door";

// The parameterised paths reach the pipeline through one static route file, with the URL they were sent
// to in a header the server stamps (static-door.ts). What the integrator sees must not change: the route,
// the parameters and query, the idempotency fingerprint and the request log all follow the sent URL.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;

/** A request as the server hands it to the door: the door's URL, the sent URL in the header. */
async function viaDoor(method: string, sent: string | null, o: { json?: unknown; idempotencyKey?: string } = {}) {
  const headers = new Headers({ authorization: `Bearer ${t.key}`, [PEER_HEADER]: "127.0.0.1" });
  if (sent !== null) headers.set(SENT_URL_HEADER, `/api/public/v1${sent}`);
  if (o.idempotencyKey) headers.set("idempotency-key", o.idempotencyKey);
  if (o.json !== undefined) headers.set("content-type", "application/json");
  const res = await serveSentUrl(
    new Request(`${TEST_ORIGIN}${STATIC_DOOR_PATH}`, {
      method,
      headers,
      body: o.json === undefined ? undefined : JSON.stringify(o.json),
    }),
  );
  return {
    status: res.status,
    headers: res.headers,
    requestId: res.headers.get("x-request-id")!,
    body: (await res.json()) as Record<string, unknown>,
  };
}

async function conversation(): Promise<string> {
  const [c] = await db.db
    .insert(conversations)
    .values({ tenantId: t.tenantId, channelType: "website" })
    .returning({ id: conversations.id });
  return c.id;
}

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  await createCard(db.db, { tenantId: t.tenantId, via: "operator" }, { code: "shoe", name: "Trail shoe" });
});
afterAll(async () => db.drop());

describe("goesToStaticDoor", () => {
  it("takes the public API's paths without a route file of their own", () => {
    for (const url of [
      "/api/public/v1/cards/shoe",
      "/api/public/v1/conversations/c1/messages?limit=5",
      "/api/public/v1/webhooks/w1/deliveries",
      "/api/public/v1/nope",
      "/api/public/v1/me/extra",
    ])
      expect(goesToStaticDoor(url), url).toBe(true);
  });

  it("leaves paths with a route file, trailing slashes, the root and other prefixes to Next.js", () => {
    for (const url of [
      "/api/public/v1/me",
      "/api/public/v1/cards?limit=10",
      "/api/public/v1/conversations",
      "/api/public/v1/strategist/reports?x=1",
      "/api/public/v1/dashboards/overview",
      "/api/public/v1/openapi.json",
      "/api/public/v1",
      "/api/public/v1/",
      "/api/public/v1/cards/shoe/",
      "/api/public/v2/cards/shoe",
      "/api/trpc/keys.list",
      "/console",
    ])
      expect(goesToStaticDoor(url), url).toBe(false);
  });
});

describe("the static door", () => {
  it("answers a sent URL exactly as the path itself answers", async () => {
    for (const sent of ["/cards/shoe", "/cards/missing", "/cards?limit=1", "/nope"]) {
      const direct = await call("GET", sent, { key: t.key, validate: false });
      const door = await viaDoor("GET", sent);
      expect(door.status, sent).toBe(direct.status);
      expect({ ...door.body, request_id: null }, sent).toEqual({ ...direct.body, request_id: null });
    }
  });

  it("answers a method the sent path does not take with 405 and the path's own Allow", async () => {
    const c = await conversation();
    for (const [method, sent] of [
      ["PUT", "/cards/shoe"],
      ["DELETE", `/conversations/${c}/messages`],
      ["PATCH", `/conversations/${c}/cards`],
    ] as const) {
      const direct = await call(method, sent, { key: t.key, validate: false });
      const door = await viaDoor(method, sent);
      expect([door.status, door.body.code], `${method} ${sent}`).toEqual([405, "method_not_allowed"]);
      expect(door.headers.get("allow"), `${method} ${sent}`).toBe(direct.headers.get("allow"));
      expect(door.headers.get("allow"), `${method} ${sent}`).toBeTruthy();
      expect(door.headers.get("content-type")).toBe(direct.headers.get("content-type"));
    }
  });

  it("writes the sent path to the request log, as the path itself does", async () => {
    const direct = await call("GET", "/cards/shoe", { key: t.key });
    const door = await viaDoor("GET", "/cards/shoe");
    await flushRequestLog();
    const rows = await db.db
      .select({ requestId: requestLog.requestId, method: requestLog.method, path: requestLog.path })
      .from(requestLog)
      .where(inArray(requestLog.requestId, [direct.headers.get("x-request-id")!, door.requestId]));
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row).toMatchObject({ method: "GET", path: "/cards/shoe" });
  });

  it("is an unknown path without the sent URL", async () => {
    const r = await viaDoor("GET", null);
    expect([r.status, r.body.code]).toEqual([404, "not_found"]);
  });

  it("fingerprints an Idempotency-Key by the sent path, so one key on two conversations conflicts", async () => {
    const [a, b] = [await conversation(), await conversation()];
    const first = await viaDoor("POST", `/conversations/${a}/cards`, {
      json: { codes: ["shoe"] },
      idempotencyKey: "k1",
    });
    expect(first.status).toBe(201);
    expect(first.body.conversation_id).toBe(a);
    const other = await viaDoor("POST", `/conversations/${b}/cards`, {
      json: { codes: ["shoe"] },
      idempotencyKey: "k1",
    });
    expect([other.status, other.body.code]).toEqual([409, "idempotency_conflict"]);
    expect(await db.db.select().from(messages).where(eq(messages.conversationId, b))).toHaveLength(0);
  });
});
