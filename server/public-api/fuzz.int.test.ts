import fc from "fast-check";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { events, idempotencyRecords, messages, products } from "@/db/schema";
import { ERROR_CATALOG } from "@/server/errors";
import { REFUSED_CHARACTER } from "@/server/lib/control-characters";
import { issueKey } from "@/server/services/keys/keys";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { setPreview } from "@/server/services/tenants/previews";
import { putEditorialProfile } from "@/server/services/article-generation/editorial-profile";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { ID_ROUTE_FIXTURES } from "@/server/testing/route-fixtures";
import { asSentInUrl, controlText, stringFields, withValueAt } from "@/server/testing/string-fields";
import { openTestDatabase } from "@/server/testing/test-db";
import { setHostResolver } from "@/server/webhook-transport/url-check";
import { idempotencyMode, type AnyRoute } from "./define-route";
import { PREVIEW_ROUTES, ROUTES } from "./routes";

// Property-based fuzzing of every declared route: path, query, headers and body of every shape a
// careless or hostile client sends. Seeded and reproducible: FUZZ_SEED=<n> FUZZ_RUNS=<n> npm test.
// Whatever comes in: no 5xx, every refusal is problem+json with a catalog code, and a refused request
// changes nothing.

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const RUNS = Number(process.env.FUZZ_RUNS ?? 5000);
const CONTROL_RUNS = Number(process.env.FUZZ_CONTROL_RUNS ?? 1000);

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  await setLimitOverride(
    db.db,
    { keyId: t.keyId },
    { readPerMin: 1_000_000, writePerMin: 1_000_000, paidPerMin: 1_000_000 },
  );
  await setLimitOverride(
    db.db,
    { tenantId: t.tenantId },
    { readPerMin: 1_000_000, writePerMin: 1_000_000, paidPerMin: 1_000_000 },
  );
});
afterAll(async () => {
  setHostResolver(undefined);
  await db.drop();
});

const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme", maxLength: 50 }),
  controlText,
  fc.constantFrom(
    "",
    " ",
    "0",
    "-1",
    "1e309",
    "NaN",
    "null",
    "true",
    "[]",
    "{}",
    "%00",
    "%ZZ",
    "..",
    "../..",
    "__proto__",
    "constructor",
    "\u0000",
    "\ud800",
    "😀".repeat(20),
    "a".repeat(5000),
    "00000000-0000-4000-8000-000000000000",
  ),
  fc.uuid(),
  fc.integer().map(String),
);

const deep = fc.integer({ min: 50, max: 3000 }).map((d) => "[".repeat(d) + "]".repeat(d));
const jsonish = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.dictionary(nasty, fc.jsonValue(), { maxKeys: 6 }).map((v) => JSON.stringify(v)),
  fc.constantFrom(
    '{"__proto__":{"admin":true},"code":"x","name":"y"}',
    '{"constructor":{"prototype":{"x":1}},"name":"y"}',
    '{"code":"a","code":"b","name":"dup"}',
    '{"sort":1e400,"code":"n","name":"n"}',
    '{"sort":123456789012345678901234567890,"code":"n","name":"n"}',
    '{"codes":["a","b","c","d"]}',
    '{"name":' + '"x"'.padEnd(10, " ") + "}",
  ),
  deep,
  fc.string(),
);
const rawBody = fc.oneof(
  jsonish.map((s) => new TextEncoder().encode(s)),
  fc.uint8Array({ maxLength: 200 }),
  fc.constant(new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d])),
);
const contentType = fc.constantFrom(
  undefined,
  "application/json",
  "application/json; charset=utf-8",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/json; charset=latin1",
  "",
);

const request = fc.record({
  route: fc.constantFrom(...ROUTES.map((r) => r.operationId)),
  params: fc.array(nasty, { minLength: 3, maxLength: 3 }),
  query: fc.dictionary(
    fc.oneof(
      fc.constantFrom(
        "limit",
        "cursor",
        "include_deleted",
        "status",
        "updated_after",
        "updated_since",
        "format",
        "from",
        "to",
        "blocks",
        "ai_enabled",
        "archived",
        "session_id",
        "state",
      ),
      nasty,
    ),
    nasty,
    { maxKeys: 4 },
  ),
  body: fc.option(rawBody, { nil: undefined }),
  contentType,
  idempotencyKey: fc.option(fc.oneof(fc.uuid(), nasty), { nil: undefined }),
});

/** Percent-encodes any string as UTF-8 (lone surrogates become U+FFFD, as a client library would send). */
function encodeSegment(s: string): string {
  return Array.from(new TextEncoder().encode(s), (b) =>
    /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b))
      ? String.fromCharCode(b)
      : `%${b.toString(16).padStart(2, "0").toUpperCase()}`,
  ).join("");
}

function pathOf(route: AnyRoute, params: string[]): string {
  let i = 0;
  return route.path.replace(/\{\w+\}/g, () => encodeSegment(params[i++ % params.length]));
}

/** Row counts of the tables a write could touch, in one round trip. */
async function state() {
  const [row] = await db.db
    .select({
      products: sql<number>`(select count(*) from ${products})`,
      products_changed: sql<string>`(select coalesce(max(${products.updatedAt})::text, '') from ${products})`,
      idempotency: sql<number>`(select count(*) from ${idempotencyRecords})`,
      events: sql<number>`(select count(*) from ${events})`,
      messages: sql<number>`(select count(*) from ${messages})`,
    })
    .from(sql`(select 1) as one`);
  return row;
}

it(`survives ${RUNS} fuzzed requests (seed ${SEED})`, async () => {
  let sent = 0;
  await fc.assert(
    fc.asyncProperty(request, async (input) => {
      const req = { ...input, route: ROUTES.find((r) => r.operationId === input.route)! };
      // A fetch Request cannot carry a body on GET (nor can most HTTP clients).
      if (req.route.method === "GET") req.body = undefined;
      const qs = new URLSearchParams(req.query).toString();
      const path = pathOf(req.route, req.params) + (qs ? `?${qs}` : "");
      const headers: Record<string, string> = {};
      if (req.contentType !== undefined) headers["content-type"] = req.contentType;
      let idem = req.idempotencyKey;
      if (idem !== undefined && !/^[\x20-\x7e]*$/.test(idem)) idem = undefined; // not representable in an HTTP header
      const before = await state();
      const r = await call(req.route.method, path, { key: t.key, raw: req.body, headers, idempotencyKey: idem });
      sent++;
      expect(r.status, `${req.route.method} ${path}`).toBeLessThan(500);
      if (r.status >= 400) {
        expect(r.headers.get("content-type")).toBe("application/problem+json");
        const code = r.body.code as keyof typeof ERROR_CATALOG;
        expect(ERROR_CATALOG[code]?.status, `${code}`).toBe(r.status);
        expect(r.body.request_id).toBe(r.headers.get("x-request-id"));
        expect(await state()).toEqual(before);
      }
    }),
    {
      seed: SEED,
      numRuns: RUNS,
      endOnFailure: true,
      reporter: (out) => {
        if (out.failed)
          throw new Error(
            `seed ${out.seed} path ${out.counterexamplePath}: ${String(out.errorInstance).slice(0, 500)}\n${JSON.stringify(out.counterexample).slice(0, 1500)}`,
          );
      },
    },
  );
  expect(sent).toBe(RUNS);
}, 600_000);

// Issue 76 item 4: control characters in every string field of every route. PostgreSQL refuses U+0000
// in text and jsonb, so a NUL that got past validation answered 500 at the INSERT (or at a filter's
// query). Each route gets a request it accepts; then every string of its body, every query parameter and
// every path parameter in turn carries control characters. A refused character (server/lib/
// control-characters.ts) answers 422 `validation_failed` naming that field with `invalid_character`
// (404 in a path, as any path parameter that does not parse) and changes nothing; anything else is never
// a 5xx.
describe("control characters in every string field of every route (issue 76 item 4)", () => {
  const ALL_ROUTES = [...ROUTES, ...PREVIEW_ROUTES];
  let c: TenantFixture;
  /** A test key of tenant c, whose previews include `test-mode`: the test helpers answer only the sandbox. */
  let testKey: string;
  const keyFor = (route: AnyRoute) => (route.path.startsWith("/test-helpers/") ? testKey : c.key);
  let n = 0;

  /** A request the route accepts: its path (real resources), query and body. */
  interface Base {
    route: AnyRoute;
    path: string;
    query: Record<string, string>;
    body?: unknown;
    /** Headers the route needs beside the key (its fixture's, e.g. `If-Match`). */
    headers?: Record<string, string>;
  }
  /** Where a value goes: a body pointer, a query parameter or a path parameter (the template's segment). */
  type Target =
    | { base: Base; in: "body"; pointer: string }
    | { base: Base; in: "query"; name: string }
    | { base: Base; in: "path"; segment: number };

  /** Paths of the routes the isolation fixtures do not make (preview routes), from the test tenant. */
  const conversationOf = async (name: string) => {
    const r = await call("POST", "/conversations", {
      key: c.key,
      json: { external_customer_id: `control-${name}` },
      idempotencyKey: crypto.randomUUID(),
      preview: "conversation-writes",
    });
    expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
    return r.body.id as string;
  };
  const PATHS: Record<string, () => Promise<string>> = {
    postCustomerMessage: async () => `/conversations/${await conversationOf("customer")}/messages`,
    postOperatorMessage: async () => `/conversations/${await conversationOf("operator")}/operator-messages`,
    takeOverConversation: async () => `/conversations/${await conversationOf("takeover")}/takeover`,
    releaseConversation: async () => `/conversations/${await conversationOf("release")}/release`,
    closeConversation: async () => `/conversations/${await conversationOf("close")}/close`,
  };
  /** Accepted bodies of the routes whose isolation fixture has none. */
  const BODIES: Record<string, unknown> = {
    createCard: { code: "control-base", name: "Base card" },
    createWebhook: { url: "https://hooks.example.com/in", events: ["lead.*"] },
    createConversation: { external_customer_id: "control-base" },
    postCustomerMessage: { content: "Hello" },
    postOperatorMessage: { content: "Hello from the shop" },
    emitTestEvent: { type: "lead.created" },
    setTestWallet: { balance: "10000.00" },
    createLead: { title: "Control base lead", contact: { first_name: "Base" } },
    putCrmStatusMap: { map: { "In work": "qualified" } },
    putEditorialProfile: { niche: "Base niche", audience: "Base audience" },
    createGenerationJob: { keyword: "base keyword", title: "Base title" },
    ingestEvents: {
      events: [
        {
          event_id: "control-base",
          type: "form_submit",
          occurred_at: new Date().toISOString(),
          contact: { email: "base@example.com", phone: "+7 900 000-00-00", external_id: "base" },
          page: { url: "https://shop.example.ru/contact", title: "Contact", referrer: "https://ya.ru/" },
          utm: { source: "base", medium: "base", campaign: "base" },
          properties: { visitor_id: "base" },
        },
      ],
    },
  };

  /** Accepted queries of the routes with a required query parameter. */
  const QUERIES: Record<string, Record<string, string>> = {
    getAnalyticsTimeseries: { metric: "sessions" },
  };

  const bases: Base[] = [];
  const targets: Target[] = [];

  beforeAll(async () => {
    c = await makeTenant(db.db);
    for (const feature of new Set(PREVIEW_ROUTES.map((r) => r.preview!)))
      await setPreview(db.db, c.tenantId, feature, true);
    // An order of an article needs a niche (409 editorial_profile_required without one).
    await putEditorialProfile(db.db, { tenantId: c.tenantId }, { niche: "Base niche" });
    const lots = { readPerMin: 1_000_000, writePerMin: 1_000_000, paidPerMin: 1_000_000 };
    await setLimitOverride(db.db, { keyId: c.keyId }, lots);
    const test = await issueKey(db.db, { integrationId: c.integrationId, mode: "test", ipAllowlist: ["127.0.0.1"] });
    testKey = test.key;
    await setLimitOverride(db.db, { keyId: test.keyId }, lots);
    await setLimitOverride(db.db, { tenantId: c.tenantId }, lots);
    setHostResolver(async () => [{ address: "93.184.216.34", family: 4 }]);
    for (const route of ALL_ROUTES) {
      const op = route.operationId;
      const fixture = ID_ROUTE_FIXTURES[op];
      let path = route.path;
      if (path.includes("{")) {
        const make = fixture ? () => fixture.make(db.db, c) : PATHS[op];
        expect(make, `${op}: no way to make a resource for its path`).toBeDefined();
        path = await make!();
      }
      const body = route.body ? (BODIES[op] ?? fixture?.body) : undefined;
      expect(!route.body || body !== undefined, `${op}: no accepted body`).toBe(true);
      const query = QUERIES[op] ?? {};
      const base: Base = { route, path, query, body, headers: await fixture?.headers?.(db.db, path) };
      bases.push(base);
      if (route.body) for (const pointer of stringFields(route.body)) targets.push({ base, in: "body", pointer });
      if (route.query)
        for (const name of stringFields(route.query)) targets.push({ base, in: "query", name: name.slice(1) });
      route.path.split("/").forEach((segment, i) => {
        if (segment.startsWith("{")) targets.push({ base, in: "path", segment: i });
      });
    }
  });

  function send(b: Base, target?: Target, value?: string) {
    const query = { ...b.query };
    let body = b.body;
    let path = b.path;
    if (target?.in === "query") query[target.name] = value!;
    if (target?.in === "body") body = withValueAt(body, target.pointer, value);
    if (target?.in === "path") {
      const segments = path.split("/");
      segments[target.segment] = encodeSegment(value!);
      path = segments.join("/");
    }
    const qs = new URLSearchParams(query).toString();
    return call(b.route.method, path + (qs ? `?${qs}` : ""), {
      key: keyFor(b.route),
      headers: b.headers,
      json: b.route.body ? body : undefined,
      idempotencyKey: idempotencyMode(b.route) === "none" ? undefined : `control-${++n}`,
      preview: b.route.preview,
    });
  }

  /** Whether the server sees a refused character: URLs carry UTF-8, so an unpaired surrogate arrives as U+FFFD. */
  const refused = (t: Target, value: string) => REFUSED_CHARACTER.test(t.in === "body" ? value : asSentInUrl(value));
  const where = (t: Target) =>
    `${t.base.route.method} ${t.base.route.path} ${t.in} ${t.in === "body" ? t.pointer : t.in === "query" ? t.name : t.segment}`;

  /** The answer to `value` at `target`: 422 naming the field (404 in a path) when refused, never a 5xx. */
  async function expectAnswer(t: Target, value: string) {
    const before = await state();
    const r = await send(t.base, t, value);
    const label = `${where(t)} = ${JSON.stringify(value)}: ${r.status} ${r.text.slice(0, 300)}`;
    expect(r.status, label).toBeLessThan(500);
    if (r.status >= 400) expect(r.headers.get("content-type"), label).toBe("application/problem+json");
    if (!refused(t, value)) return;
    const judged = t.base.route.itemsJudgedByHandler;
    if (t.in === "path") expect([r.status, r.body.code], label).toEqual([404, "not_found"]);
    else if (t.in === "body" && judged && t.pointer.startsWith(`${judged}/`)) {
      // Items the handler judges one by one (POST /intake/events): the item alone is rejected, naming the field.
      const item = Number(t.pointer.slice(judged.length + 1).split("/")[0]);
      expect(r.status, label).toBe(200);
      expect(r.body.results[item], label).toMatchObject({ status: "rejected" });
      expect(r.body.results[item].errors, label).toContainEqual(
        expect.objectContaining({ field: t.pointer, code: "invalid_character" }),
      );
    } else {
      expect([r.status, r.body.code], label).toEqual([422, "validation_failed"]);
      const field = t.in === "body" ? t.pointer : `/${t.name}`;
      expect(r.body.errors, label).toContainEqual(expect.objectContaining({ field, code: "invalid_character" }));
    }
    expect(await state(), label).toEqual(before);
  }

  it("has an accepted request for every route, and string fields to try in the routes of the issue", async () => {
    for (const b of bases) {
      const r = await send(b);
      expect(r.status, `${b.route.operationId}: ${r.text.slice(0, 300)}`).toBeLessThan(300);
    }
    const tried = new Set(targets.map(where));
    for (const t of [
      "POST /cards body /name",
      "PATCH /cards/{code} body /description",
      "POST /conversations/{id}/cards body /comment",
      "POST /conversations body /external_customer_id",
      "POST /conversations/{id}/messages body /content",
      "POST /conversations/{id}/operator-messages body /content",
      "GET /leads query source",
      "GET /conversations query channel",
    ])
      expect(tried, t).toContain(t);
  }, 120_000);

  it("refuses U+0000 in every string field of every route: 422 naming it (404 in a path), nothing changed", async () => {
    // Every field is tried before the verdict, so a failure lists them all (on the old code: the 500s).
    const wrong: string[] = [];
    for (const t of targets)
      await expectAnswer(t, "a\u0000b").catch((e: Error) => wrong.push(e.message.split("\n")[0]));
    expect(wrong).toEqual([]);
  }, 300_000);

  it(`never answers 5xx to control characters in any field (${CONTROL_RUNS} runs, seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), controlText, async (i, value) => expectAnswer(targets[i % targets.length], value)),
      {
        seed: SEED,
        numRuns: CONTROL_RUNS,
        endOnFailure: true,
        reporter: (out) => {
          if (out.failed)
            throw new Error(
              `seed ${out.seed} path ${out.counterexamplePath}: ${String(out.errorInstance).slice(0, 800)}`,
            );
        },
      },
    );
  }, 600_000);
});
