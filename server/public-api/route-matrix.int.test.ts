import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { apiKeys } from "@/db/schema";
import { setClock } from "@/server/lib/clock";
import { SCOPES } from "@/server/schemas/scopes";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { changeBalance } from "@/server/services/wallet/wallet-ledger";
import { call, type ApiAnswer } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { ID_ROUTE_FIXTURES, samplePath } from "@/server/testing/route-fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { encodeCursor } from "./cursor";
import type { AnyRoute } from "./define-route";
import { ROUTES } from "./routes";

// Matrices generated from the route table: a route added without its scope check, tenant filter,
// wallet gate or cursor binding makes one of these fail, without anyone remembering to add a test.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let owner: TenantFixture;
let stranger: TenantFixture;

const label = (r: AnyRoute) => `${r.method} ${r.path}`;
/** The answer without its request id, with the requested ids replaced (a detail may echo what was asked). */
const comparable = (a: ApiAnswer, path: string) => {
  let text = JSON.stringify({ ...a.body, request_id: undefined });
  for (const segment of path.split("/").filter((s) => s.length > 8 || /\d/.test(s)))
    text = text.split(segment).join("<id>");
  return { status: a.status, body: text, type: a.headers.get("content-type") };
};
const sendFor = (r: AnyRoute, key: string | null, path = samplePath(r)) =>
  call(r.method, path, {
    key,
    json: r.body ? {} : undefined,
    idempotencyKey: r.method === "POST" || r.method === "PATCH" ? crypto.randomUUID() : undefined,
  });

beforeAll(async () => {
  db = await openTestDatabase();
  owner = await makeTenant(db.db);
  stranger = await makeTenant(db.db);
  for (const t of [owner, stranger])
    await setLimitOverride(
      db.db,
      { keyId: t.keyId },
      { readPerMin: 100_000, writePerMin: 100_000, paidPerMin: 100_000 },
    );
});
afterAll(async () => {
  setClock(undefined);
  await db.drop();
});

describe.each(ROUTES.map((r) => [label(r), r] as const))("%s", (_name, route) => {
  it("refuses every auth failure with its code", async () => {
    expect((await sendFor(route, null)).body.code).toBe("invalid_api_key");
    expect(
      (await sendFor(route, "sk_live_ru_aaaaaaaaaaaaaaaaaaaa_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")).body.code,
    ).toBe("invalid_api_key");
    const wrong = await sendFor(route, "sk_live_en_aaaaaaaaaaaaaaaaaaaa_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    expect([wrong.status, wrong.body.code]).toEqual([401, "wrong_cell"]);
    const outside = await call(route.method, samplePath(route), {
      key: owner.key,
      ip: "198.51.100.7",
      json: route.body ? {} : undefined,
    });
    expect([outside.status, outside.body.code]).toEqual([403, "ip_not_allowed"]);
  });

  it.runIf(route.scope !== null)("answers 403 scope_missing without its scope", async () => {
    const t = await makeTenant(db.db, { scopes: SCOPES.filter((s) => s !== route.scope) });
    const r = await sendFor(route, t.key);
    expect([r.status, r.body.code]).toEqual([403, "scope_missing"]);
  });

  it(
    route.walletExempt
      ? "stays open while exchange is suspended"
      : "answers 402 wallet_suspended while exchange is suspended",
    async () => {
      const t = await makeTenant(db.db, { balanceMinor: 0n });
      await changeBalance(db.db, { tenantId: t.tenantId, amountMinor: -100n, kind: "debit", actor: "system" });
      const r = await sendFor(route, t.key);
      if (route.walletExempt) expect(r.status).not.toBe(402);
      else expect([r.status, r.body.code]).toEqual([402, "wallet_suspended"]);
    },
  );

  const takesCursor = Boolean((route.query as z.ZodObject | undefined)?.shape?.cursor);
  it.runIf(takesCursor)("refuses a tampered, expired or foreign cursor with 422 on /cursor", async () => {
    const real = encodeCursor({ tenantId: owner.tenantId, keyMode: "live", route: route.operationId, filters: {} }, [
      "x",
    ]);
    const foreign = encodeCursor(
      { tenantId: stranger.tenantId, keyMode: "live", route: route.operationId, filters: {} },
      ["x"],
    );
    const now = Date.now();
    setClock(() => now - 25 * 3600_000);
    const expired = encodeCursor({ tenantId: owner.tenantId, keyMode: "live", route: route.operationId, filters: {} }, [
      "x",
    ]);
    setClock(undefined);
    // Tampered: the MAC's first character changed. (Changing its last characters could decode to the same
    // bytes, since base64 decoding ignores the spare bits of the final character.)
    const [data, mac] = real.split(".");
    const tampered = `${data}.${mac![0] === "A" ? "B" : "A"}${mac!.slice(1)}`;
    for (const cursor of [tampered, "garbage", expired, foreign]) {
      const r = await call("GET", `${samplePath(route)}?cursor=${encodeURIComponent(cursor)}`, { key: owner.key });
      expect(r.status, cursor).toBe(422);
      expect(r.body.errors.map((e: { field: string }) => e.field)).toContain("/cursor");
    }
  });

  const hasId = /\{\w+\}/.test(route.path);
  it.runIf(hasId)("answers another tenant's id exactly like a missing one", async () => {
    const fixture = ID_ROUTE_FIXTURES[route.operationId];
    expect(fixture, `add ${route.operationId} to ID_ROUTE_FIXTURES in server/testing/route-fixtures.ts`).toBeDefined();
    const existing = await fixture!.make(db.db, owner);
    const missing = await fixture!.missing();
    const body = fixture!.body;
    const send = (path: string) =>
      call(route.method, path, {
        key: stranger.key,
        json: body,
        idempotencyKey: route.method === "POST" || route.method === "PATCH" ? crypto.randomUUID() : undefined,
      });
    const foreign = await send(existing);
    const absent = await send(missing);
    expect(foreign.status).toBe(404);
    expect(comparable(foreign, existing)).toEqual(comparable(absent, missing));
    // The owner does reach it, so the 404 above is the tenant filter and not a broken fixture.
    const own = await call(route.method, existing, {
      key: owner.key,
      json: body,
      idempotencyKey: route.method === "POST" || route.method === "PATCH" ? crypto.randomUUID() : undefined,
    });
    expect(own.status).toBeLessThan(300);
  });
});

it("keeps key secrets only as hashes", async () => {
  const rows = await db.db.select().from(apiKeys).where(eq(apiKeys.tenantId, owner.tenantId));
  const secret = owner.key.split("_").pop()!;
  expect(JSON.stringify(rows, (_k, v) => (typeof v === "bigint" ? v.toString() : v))).not.toContain(secret);
  expect(rows[0].secretHash).toMatch(/^[0-9a-f]{64}$/);
});
