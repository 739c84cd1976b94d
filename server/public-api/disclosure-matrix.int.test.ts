import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys, disclosures } from "@/db/schema";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { ID_ROUTE_FIXTURES } from "@/server/testing/route-fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import type { AnyRoute } from "./define-route";
import { ROUTES } from "./routes";

// Generated from the route table: every route whose answers carry personal data writes its disclosure-
// journal row before the data leaves, and answers 503 with no data when the row cannot be written
// (spec general fact 6). The pipeline does the journaling from the route's `discloses` declaration.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let owner: TenantFixture;

/** List routes without an id are seeded through the id route of the same resource. */
const SEED_THROUGH: Record<string, string> = { listConversations: "getConversation", listLeads: "getLead" };
const DISCLOSING = ROUTES.filter((r) => r.discloses);

async function pathWithData(route: AnyRoute): Promise<string> {
  const own = ID_ROUTE_FIXTURES[route.operationId];
  if (own) return own.make(db.db, owner);
  const seed = ID_ROUTE_FIXTURES[SEED_THROUGH[route.operationId] ?? ""];
  expect(seed, `say in SEED_THROUGH how to give ${route.operationId} data`).toBeDefined();
  await seed!.make(db.db, owner);
  return route.path;
}

const idsIn = (body: { data?: { id: string }[]; id?: string }) =>
  Array.isArray(body.data) ? body.data.map((d) => d.id) : [body.id!];

beforeAll(async () => {
  db = await openTestDatabase();
  owner = await makeTenant(db.db);
  await setLimitOverride(db.db, { keyId: owner.keyId }, { readPerMin: 100_000 });
});
afterAll(() => db.drop());

it("declares a journal resource on every read of personal data", () => {
  const piiReads = ROUTES.filter((r) => r.pii && r.method === "GET").map((r) => r.operationId);
  expect(DISCLOSING.map((r) => r.operationId).sort()).toEqual(piiReads.sort());
  expect(piiReads.length).toBeGreaterThanOrEqual(5);
});

describe.each(DISCLOSING.map((r) => [`${r.method} ${r.path}`, r] as const))("%s", (_name, route) => {
  it("writes the journal row of exactly what it answers before answering", async () => {
    const path = await pathWithData(route);
    const r = await call("GET", path, { key: owner.key });
    expect(r.status).toBe(200);
    const ids = idsIn(r.body);
    expect(ids.length).toBeGreaterThan(0);
    const rows = await db.db
      .select()
      .from(disclosures)
      .where(and(eq(disclosures.tenantId, owner.tenantId), eq(disclosures.requestId, r.headers.get("x-request-id")!)));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      route: `GET ${route.path}`,
      resourceType: route.discloses,
      integrationId: owner.integrationId,
    });
    expect(rows[0].resourceIds).toEqual(ids);
    // The key that received the data, by its row id (the batch insert carries it as JSON).
    const [key] = await db.db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.keyId, owner.keyId));
    expect(rows[0].apiKeyId).toBe(key.id);
  });

  it("answers 503 with Retry-After and no data when the journal cannot be written", async () => {
    const path = await pathWithData(route);
    const before = await call("GET", path, { key: owner.key });
    const ids = idsIn(before.body);
    await db.db.execute(sql`alter table disclosures rename to disclosures_gone`);
    try {
      const r = await call("GET", path, { key: owner.key });
      expect([r.status, r.body.code]).toEqual([503, "service_unavailable"]);
      expect(r.headers.get("retry-after")).not.toBeNull();
      for (const id of ids.filter((id) => !path.includes(id))) expect(r.text).not.toContain(id);
    } finally {
      await db.db.execute(sql`alter table disclosures_gone rename to disclosures`);
    }
  });
});
