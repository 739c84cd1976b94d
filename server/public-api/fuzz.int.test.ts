import fc from "fast-check";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { events, idempotencyRecords, messages, products } from "@/db/schema";
import { ERROR_CATALOG } from "@/server/errors";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import type { AnyRoute } from "./define-route";
import { ROUTES } from "./routes";

// Property-based fuzzing of every declared route: path, query, headers and body of every shape a
// careless or hostile client sends. Seeded and reproducible: FUZZ_SEED=<n> FUZZ_RUNS=<n> npm test.
// Whatever comes in: no 5xx, every refusal is problem+json with a catalog code, and a refused request
// changes nothing.

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const RUNS = Number(process.env.FUZZ_RUNS ?? 5000);

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
afterAll(async () => db.drop());

const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme", maxLength: 50 }),
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
