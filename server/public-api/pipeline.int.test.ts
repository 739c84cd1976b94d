import { and, count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { idempotencyRecords, products } from "@/db/schema";
import { fingerprint } from "@/server/lib/canonical-json";
import { PEER_HEADER } from "@/server/lib/client-ip";
import { call, TEST_ORIGIN } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { defineRoute, ok } from "./define-route";
import { handlePublicRequest } from "./pipeline";
import { Router } from "./router";

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
});
afterAll(async () => db.drop());

/** Every refusal is problem+json with the catalog fields and the request id of the header. */
function expectProblem(r: Awaited<ReturnType<typeof call>>, status: number, code: string) {
  expect(r.status).toBe(status);
  expect(r.headers.get("content-type")).toBe("application/problem+json");
  expect(r.body).toMatchObject({
    type: `${TEST_ORIGIN}/developers/errors#${code}`,
    status,
    code,
    request_id: r.headers.get("x-request-id"),
  });
  expect(typeof r.body.title).toBe("string");
  expect(typeof r.body.detail).toBe("string");
}

describe("routing", () => {
  it.each([
    ["GET", "/nothing-here"],
    ["GET", "/"],
    ["GET", "/cards/a/b"],
    ["POST", "/conversations"],
    ["POST", "/conversations/5f0c2d7e-1111-4c1e-9a6b-1b2c3d4e5f60/messages"],
    ["PATCH", "/leads/5f0c2d7e-1111-4c1e-9a6b-1b2c3d4e5f60"],
    ["PUT", "/crm/status-map"],
    ["POST", "/articles/generation-jobs"],
    ["GET", "/disclosures"],
  ])("%s %s → 404 not_found, also without a key", async (method, path) => {
    expectProblem(await call(method, path), 404, "not_found");
    expectProblem(await call(method, path, { key: t.key }), 404, "not_found");
  });

  it.each([
    ["PUT", "/cards", "GET, POST"],
    ["DELETE", "/me", "GET"],
    ["POST", "/wallet", "GET"],
    ["PUT", "/cards/x", "GET, PATCH, DELETE"],
  ])("%s %s → 405 with Allow", async (method, path, allow) => {
    const r = await call(method, path, { key: t.key });
    expectProblem(r, 405, "method_not_allowed");
    expect(r.headers.get("allow")).toBe(allow);
  });

  it("sends no CORS headers", async () => {
    const r = await call("GET", "/me", { key: t.key, headers: { origin: "https://evil.example" } });
    expect([...r.headers.keys()].filter((h) => h.startsWith("access-control-"))).toEqual([]);
  });
});

describe("request bodies", () => {
  const post = (raw: BodyInit | undefined, headers: Record<string, string>) =>
    call("POST", "/cards", { key: t.key, raw, headers, idempotencyKey: crypto.randomUUID() });

  it.each([
    ["text/plain", '{"code":"x","name":"y"}'],
    ["application/x-www-form-urlencoded", "code=x&name=y"],
  ])("refuses Content-Type %s with 400", async (type, raw) => {
    expectProblem(await post(raw, { "content-type": type }), 400, "bad_request");
  });

  it.each([
    ["not JSON", "{code: x}"],
    ["truncated JSON", '{"code":"x"'],
    ["an empty body", ""],
  ])("refuses %s with 400", async (_n, raw) => {
    expectProblem(await post(raw, { "content-type": "application/json" }), 400, "bad_request");
  });

  it("refuses invalid UTF-8 with 400", async () => {
    const bytes = new Uint8Array([0x7b, 0x22, 0x63, 0x6f, 0x64, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    expectProblem(await post(bytes, { "content-type": "application/json" }), 400, "bad_request");
  });

  it("accepts application/json with a charset", async () => {
    const r = await post(JSON.stringify({ code: "charset-ok", name: "x" }), {
      "content-type": "application/json; charset=utf-8",
    });
    expect(r.status).toBe(201);
  });

  it("refuses a body over 256 KB with 413, declared or streamed, and writes nothing", async () => {
    const big = JSON.stringify({ code: "big", name: "x", description: "y".repeat(300 * 1024) });
    expectProblem(await post(big, { "content-type": "application/json" }), 413, "payload_too_large");
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        pulled++;
        if (pulled > 10_000) return c.close(); // 640 MB: only reached if the whole stream were buffered
        c.enqueue(new Uint8Array(64 * 1024).fill(0x20));
      },
    });
    expectProblem(await post(stream, { "content-type": "application/json" }), 413, "payload_too_large");
    expect(pulled).toBeLessThan(20);
    const [{ n }] = await db.db.select({ n: count() }).from(products).where(eq(products.code, "big"));
    expect(n).toBe(0);
  });
});

describe("unexpected failures", () => {
  const boom = (err: unknown) =>
    new Router([
      defineRoute({
        operationId: "boom",
        summary: "",
        method: "GET",
        path: "/me",
        scope: null,
        rate: "read",
        walletExempt: true,
        responses: {},
        handler: async () => {
          throw err;
        },
      }),
    ]);
  const request = () =>
    new Request(`${TEST_ORIGIN}/api/public/v1/me`, {
      headers: { authorization: `Bearer ${t.key}`, [PEER_HEADER]: "127.0.0.1" },
    });

  it("answers an exception as 500 internal_error without internals", async () => {
    const res = await handlePublicRequest(
      request(),
      boom(new Error("secret table users_pk exploded at /srv/app.ts:12")),
    );
    const body = await res.json();
    expect(res.status).toBe(500);
    expect(body.code).toBe("internal_error");
    expect(JSON.stringify(body)).not.toMatch(/users_pk|app\.ts|exploded/);
  });

  it("answers a lost database connection as 503 with Retry-After", async () => {
    const res = await handlePublicRequest(
      request(),
      boom(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" })),
    );
    const body = await res.json();
    expect(res.status).toBe(503);
    expect(body.code).toBe("service_unavailable");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    // The request id is random hex and may contain "5432" by chance; judge every other field.
    const { request_id: _requestId, ...rest } = body;
    expect(JSON.stringify(rest)).not.toMatch(/5432|ECONNREFUSED|127\.0\.0\.1/);
  });

  it("sends deprecation headers on a retiring route", async () => {
    const router = new Router([
      defineRoute({
        operationId: "old",
        summary: "",
        method: "GET",
        path: "/me",
        scope: null,
        rate: "read",
        walletExempt: true,
        responses: {},
        deprecation: {
          deprecatedAt: new Date("2026-10-01T00:00:00Z"),
          sunsetAt: new Date("2027-04-01T00:00:00Z"),
          link: "https://docs.example/changelog",
        },
        handler: async () => ok({}),
      }),
    ]);
    const res = await handlePublicRequest(request(), router);
    expect(res.status).toBe(200);
    expect(res.headers.get("deprecation")).toBe(`@${Date.parse("2026-10-01T00:00:00Z") / 1000}`);
    expect(res.headers.get("sunset")).toBe("Thu, 01 Apr 2027 00:00:00 GMT");
    expect(res.headers.get("link")).toBe('<https://docs.example/changelog>; rel="deprecation"');
  });
});

describe("idempotency of POST /cards", () => {
  const records = async (key: string) =>
    db.db
      .select()
      .from(idempotencyRecords)
      .where(and(eq(idempotencyRecords.tenantId, t.tenantId), eq(idempotencyRecords.idempotencyKey, key)));

  it("replays the same key and body with the card's current state and writes once", async () => {
    const key = crypto.randomUUID();
    const first = await call("POST", "/cards", {
      key: t.key,
      json: { code: "idem-1", name: "First" },
      idempotencyKey: key,
    });
    expect(first.status).toBe(201);
    await call("PATCH", "/cards/idem-1", { key: t.key, json: { badge: "Changed" } });
    const again = await call("POST", "/cards", {
      key: t.key,
      json: { name: "First", code: "idem-1" },
      idempotencyKey: key,
    });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ id: first.body.id, code: "idem-1", badge: "Changed" });
    const [{ n }] = await db.db
      .select({ n: count() })
      .from(products)
      .where(and(eq(products.tenantId, t.tenantId), eq(products.code, "idem-1")));
    expect(n).toBe(1);
    const [rec] = await records(key);
    expect(rec).toMatchObject({ state: "completed", responseStatus: 201, resourceId: first.body.id });
    expect(JSON.stringify(rec)).not.toContain("First"); // the record holds a fingerprint, not the body
  });

  it("answers the same key with another body as 409 idempotency_conflict", async () => {
    const key = crypto.randomUUID();
    expect(
      (await call("POST", "/cards", { key: t.key, json: { code: "idem-2", name: "A" }, idempotencyKey: key })).status,
    ).toBe(201);
    const r = await call("POST", "/cards", { key: t.key, json: { code: "idem-2b", name: "A" }, idempotencyKey: key });
    expectProblem(r, 409, "idempotency_conflict");
  });

  it("stores nothing for a refused request, so the key can be used again", async () => {
    const key = crypto.randomUUID();
    const bad = await call("POST", "/cards", { key: t.key, json: { code: "BAD", name: "A" }, idempotencyKey: key });
    expect(bad.status).toBe(422);
    await call("POST", "/cards", {
      key: t.key,
      json: { code: "idem-3-taken", name: "A" },
      idempotencyKey: crypto.randomUUID(),
    });
    const taken = await call("POST", "/cards", {
      key: t.key,
      json: { code: "idem-3-taken", name: "A" },
      idempotencyKey: key,
    });
    expect(taken.status).toBe(422);
    expect(await records(key)).toHaveLength(0);
    const good = await call("POST", "/cards", { key: t.key, json: { code: "idem-3", name: "A" }, idempotencyKey: key });
    expect(good.status).toBe(201);
  });

  /** A record of `key` for the body `json` as another request left it: running, its lock held until `lockedUntil`. */
  async function runningRecord(key: string, json: unknown, lockedUntil: Date) {
    await db.db.insert(idempotencyRecords).values({
      tenantId: t.tenantId,
      keyMode: "live",
      scope: `integration:${t.integrationId}`,
      idempotencyKey: key,
      fingerprint: fingerprint({ method: "POST", path: "/api/public/v1/cards", body: json }),
      lockedUntil,
    });
  }

  it("answers 409 operation_in_progress while another request holds the key, and makes no card", async () => {
    // The first try makes the card and its record in one statement; a key in use makes that statement
    // fail as a whole, so the full path's answer is the only trace.
    const key = crypto.randomUUID();
    const json = { code: "idem-held", name: "H" };
    await runningRecord(key, json, new Date(Date.now() + 30_000));
    const r = await call("POST", "/cards", { key: t.key, json, idempotencyKey: key });
    expectProblem(r, 409, "operation_in_progress");
    expect(r.headers.get("retry-after")).toBe("1");
    const [{ n }] = await db.db
      .select({ n: count() })
      .from(products)
      .where(and(eq(products.tenantId, t.tenantId), eq(products.code, "idem-held")));
    expect(n).toBe(0);
    expect(await records(key)).toMatchObject([{ state: "running", resourceId: null }]);
  });

  it("takes over the key of a request that died while running, and completes its record with the card", async () => {
    const key = crypto.randomUUID();
    const json = { code: "idem-died", name: "D" };
    await runningRecord(key, json, new Date(Date.now() - 1_000));
    const r = await call("POST", "/cards", { key: t.key, json, idempotencyKey: key });
    expect(r.status).toBe(201);
    const recs = await records(key);
    expect(recs).toMatchObject([
      { state: "completed", responseStatus: 201, resourceType: "card", resourceId: r.body.id },
    ]);
    const again = await call("POST", "/cards", { key: t.key, json, idempotencyKey: key });
    expect([again.status, again.body.id]).toEqual([201, r.body.id]);
  });

  it.each([
    ["too long", "k".repeat(256)],
    ["with a space", "a b"],
  ])("refuses an Idempotency-Key %s with 400", async (_n, key) => {
    expectProblem(
      await call("POST", "/cards", { key: t.key, json: { code: "idem-x", name: "A" }, idempotencyKey: key }),
      400,
      "bad_request",
    );
  });

  it("creates exactly one card from twenty parallel identical requests", async () => {
    const key = crypto.randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        call("POST", "/cards", { key: t.key, json: { code: "idem-par", name: "P" }, idempotencyKey: key }),
      ),
    );
    const ids = new Set(answers.filter((a) => a.status === 201).map((a) => a.body.id));
    expect(ids.size).toBe(1);
    for (const a of answers) {
      expect([201, 409]).toContain(a.status);
      if (a.status === 409) {
        expect(a.body.code).toBe("operation_in_progress");
        expect(a.headers.get("retry-after")).toBe("1");
      }
    }
    const [{ n }] = await db.db
      .select({ n: count() })
      .from(products)
      .where(and(eq(products.tenantId, t.tenantId), eq(products.code, "idem-par")));
    expect(n).toBe(1);
  });
});
