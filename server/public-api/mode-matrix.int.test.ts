import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { rowsOf } from "@/db/rows";
import { PREVIEW_FEATURES } from "@/server/schemas/previews";
import { issueKey } from "@/server/services/keys/keys";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { setPreview } from "@/server/services/tenants/previews";
import { call, type ApiAnswer } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { ID_ROUTE_FIXTURES, samplePath } from "@/server/testing/route-fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { encodeCursor } from "./cursor";
import type { AnyRoute } from "./define-route";
import { PREVIEW_ROUTES, ROUTES } from "./routes";

// The mode matrix (issue 69), generated from the route table as the cross-tenant matrix is
// (route-matrix.int.test.ts): for every route, a live key never reaches a sandbox row and a test key of a
// tenant in test mode never reaches a live one (404 exactly like a missing id), a list of one mode never
// shows the other's rows, and a cursor made in one mode is refused in the other. A route added without the
// mode in its queries fails here without anyone remembering to add a test.

let db: Awaited<ReturnType<typeof openTestDatabase>>;

/** A tenant with every preview on (test-mode among them), its live key and a test key of the same integration. */
interface ModeTenant extends TenantFixture {
  testKey: string;
}

/**
 * Tables whose rows the flip below leaves live: the money of the live world (the live wallet keeps the
 * live key out of 402) is not part of what a route fixture makes; nor are the daily counters keyed by mode
 * (usage and analytics rollups, intake's dedup claims): the seeded sandbox has its own row of the same day,
 * so moving the live one collided with it whenever the request log had counted a live request first (a
 * duplicate key, seen as a flaky failure of this file).
 */
const KEEP_LIVE = new Set([
  "wallets",
  "wallet_ledger",
  "integration_daily_spend",
  "usage_daily",
  "analytics_daily",
  "analytics_daily_pages",
  "analytics_visitor_days",
  "intake_event_ids",
]);
let movableTables: string[] = [];

async function modeTenant(): Promise<ModeTenant> {
  const t = await makeTenant(db.db);
  for (const feature of PREVIEW_FEATURES) await setPreview(db.db, t.tenantId, feature, true);
  const test = await issueKey(db.db, { integrationId: t.integrationId, mode: "test", ipAllowlist: ["127.0.0.1"] });
  for (const keyId of [t.keyId, test.keyId])
    await setLimitOverride(db.db, { keyId }, { readPerMin: 100_000, writePerMin: 100_000, paidPerMin: 100_000 });
  // The first use of a test key seeds the sandbox; make it happen now, not inside a comparison below.
  const me = await call("GET", "/me", { key: test.key });
  expect(me.status).toBe(200);
  return { ...t, testKey: test.key };
}

/** Moves every tenant-owned row of the tenant (but its live money) into its sandbox. */
async function moveToSandbox(tenantId: string): Promise<void> {
  for (const table of movableTables)
    await db.db.execute(
      sql`update ${sql.identifier(table)} set livemode = false where tenant_id = ${tenantId} and livemode`,
    );
}

const label = (r: AnyRoute) => `${r.method} ${r.path}`;
const isWrite = (r: AnyRoute) => r.method === "POST" || r.method === "PATCH" || r.method === "PUT";
/** The answer without its request id, with the requested ids replaced (a detail may echo what was asked). */
const comparable = (a: ApiAnswer, path: string) => {
  let text = JSON.stringify({ ...a.body, request_id: undefined });
  for (const segment of path.split("/").filter((s) => s.length > 8 || /\d/.test(s)))
    text = text.split(segment).join("<id>");
  return { status: a.status, body: text, type: a.headers.get("content-type") };
};
const send = async (route: AnyRoute, key: string, path: string, body?: unknown) =>
  call(route.method, path, {
    key,
    headers: await ID_ROUTE_FIXTURES[route.operationId]?.headers?.(db.db, path),
    json: body ?? (route.body ? {} : undefined),
    idempotencyKey: isWrite(route) ? crypto.randomUUID() : undefined,
    // A preview route's answers are checked against its preview's document (the base one lacks the route).
    preview: route.preview,
  });

beforeAll(async () => {
  db = await openTestDatabase();
  const result = await db.db.execute(
    sql`select table_name from information_schema.columns
        where column_name = 'livemode' and table_schema = current_schema() order by table_name`,
  );
  movableTables = rowsOf<{ table_name: string }>(result)
    .map((r) => r.table_name)
    .filter((t) => !KEEP_LIVE.has(t));
  expect(movableTables).toEqual(expect.arrayContaining(["conversations", "leads", "webhook_subscriptions"]));
});
afterAll(async () => {
  await db.drop();
});

const ALL_ROUTES = [...ROUTES, ...PREVIEW_ROUTES];

describe.each(ALL_ROUTES.map((r) => [label(r), r] as const))("%s", (_name, route) => {
  const hasId = /\{\w+\}/.test(route.path);

  it.runIf(hasId)("answers a live row to a test key exactly like a missing one", async () => {
    const fixture = ID_ROUTE_FIXTURES[route.operationId];
    expect(fixture, `add ${route.operationId} to ID_ROUTE_FIXTURES in server/testing/route-fixtures.ts`).toBeDefined();
    const t = await modeTenant();
    const existing = await fixture!.make(db.db, t);
    const missing = await fixture!.missing();
    const other = await send(route, t.testKey, existing, fixture!.body);
    const absent = await send(route, t.testKey, missing, fixture!.body);
    expect(other.status).toBe(404);
    expect(comparable(other, existing)).toEqual(comparable(absent, missing));
    // The live key does reach it, so the 404 above is the mode filter and not a broken fixture.
    expect((await send(route, t.key, existing, fixture!.body)).status).toBeLessThan(300);
  });

  it.runIf(hasId)("answers a sandbox row to a live key exactly like a missing one", async () => {
    const fixture = ID_ROUTE_FIXTURES[route.operationId]!;
    const t = await modeTenant();
    const existing = await fixture.make(db.db, t);
    await moveToSandbox(t.tenantId);
    const missing = await fixture.missing();
    const other = await send(route, t.key, existing, fixture.body);
    const absent = await send(route, t.key, missing, fixture.body);
    expect(other.status).toBe(404);
    expect(comparable(other, existing)).toEqual(comparable(absent, missing));
    expect((await send(route, t.testKey, existing, fixture.body)).status).toBeLessThan(300);
  });

  const takesCursor = Boolean((route.query as z.ZodObject | undefined)?.shape?.cursor);
  it.runIf(takesCursor)("refuses a cursor of the other mode with 422 on /cursor", async () => {
    const t = await modeTenant();
    const path = samplePath(route);
    for (const [key, cursorMode] of [
      [t.key, "test"],
      [t.testKey, "live"],
    ] as const) {
      const cursor = encodeCursor(
        { tenantId: t.tenantId, keyMode: cursorMode, route: route.operationId, filters: {} },
        ["x"],
      );
      const r = await call("GET", `${path}?cursor=${encodeURIComponent(cursor)}`, { key, preview: route.preview });
      expect(r.status, `${cursorMode} cursor`).toBe(422);
      expect(r.body.errors.map((e: { field: string }) => e.field)).toContain("/cursor");
    }
  });

  it.runIf(takesCursor && !hasId)("lists the rows of the key's mode only", async () => {
    const t = await modeTenant();
    // Live rows of every kind, made by every id fixture; the sandbox has its seeded sample rows.
    for (const fixture of Object.values(ID_ROUTE_FIXTURES)) await fixture.make(db.db, t).catch(() => undefined);
    const ids = async (key: string) => {
      const r = await call("GET", route.path, { key, preview: route.preview });
      expect(r.status).toBe(200);
      return new Set(((r.body.data ?? []) as { id?: string }[]).map((d) => d.id).filter(Boolean));
    };
    const live = await ids(t.key);
    const test = await ids(t.testKey);
    expect([...live].filter((id) => test.has(id))).toEqual([]);
    // The same rows moved into the sandbox leave the live list.
    await moveToSandbox(t.tenantId);
    const after = await ids(t.key);
    expect([...live].filter((id) => after.has(id))).toEqual([]);
  });
});
