import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { ID_ROUTE_FIXTURES } from "@/server/testing/route-fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import type { AnyRoute } from "./define-route";
import { ROUTES } from "./routes";

// `include_deleted` is a common query parameter of every list route (spec "Common query parameters"):
// `false` is always accepted, and `true` is answered as the route's section says. Where the spec is silent
// docs/interpretations.md gives the reading chosen here. Generated from the route table: a new list
// route must say here what `include_deleted=true` does.

/** What `include_deleted=true` does on each list route. */
const ANSWER_TO_TRUE: Record<string, "tombstones" | "adds_nothing" | "not_supported"> = {
  listConversations: "adds_nothing", // spec: "accepted, adds nothing (no soft deletion)"
  listConversationMessages: "tombstones", // spec; the tombstones themselves are tested in conversations.int.test.ts
  listCards: "not_supported", // interpretation: deleting a card clears it, nothing is kept to return
  listLeads: "not_supported", // spec
  listArticles: "not_supported", // spec
  listStrategistReports: "not_supported", // interpretation, as topics (spec)
  listStrategistTopics: "not_supported", // spec
  listStrategistActions: "not_supported", // interpretation, as topics (spec)
  listWebhooks: "not_supported", // interpretation: a deleted subscription is removed with its journal
  listWebhookDeliveries: "adds_nothing", // interpretation: deliveries are never deleted one by one
  listEvents: "adds_nothing", // interpretation: events are never deleted one by one; the journal keeps 30 days
};

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let owner: TenantFixture;

const isList = (r: AnyRoute) => r.method === "GET" && Boolean((r.query as z.ZodObject | undefined)?.shape?.cursor);
const LIST_ROUTES = ROUTES.filter(isList);

/** A concrete path of the route with real resources of the owner behind it (a conversation, a subscription with a delivery). */
async function pathOf(route: AnyRoute): Promise<string> {
  if (!/\{\w+\}/.test(route.path)) return route.path;
  const path = await ID_ROUTE_FIXTURES[route.operationId]!.make(db.db, owner);
  if (route.operationId === "listWebhookDeliveries") {
    const test = await call("POST", path.replace(/deliveries$/, "test"), {
      key: owner.key,
      idempotencyKey: crypto.randomUUID(),
    });
    expect(test.status).toBe(202);
  }
  return path;
}

beforeAll(async () => {
  db = await openTestDatabase();
  owner = await makeTenant(db.db);
  await setLimitOverride(
    db.db,
    { keyId: owner.keyId },
    { readPerMin: 100_000, writePerMin: 100_000, paidPerMin: 100_000 },
  );
  // Something to list on the routes without an id, so that "the same page" compares real items.
  for (const op of [
    "getConversation",
    "getCard",
    "getLead",
    "getArticle",
    "getStrategistReport",
    "getStrategistTopic",
    "getStrategistAction",
    "getWebhook",
    "getEvent",
  ]) {
    await ID_ROUTE_FIXTURES[op]!.make(db.db, owner);
  }
});
afterAll(async () => db.drop());

it("knows every list route of the table", () => {
  expect(LIST_ROUTES.map((r) => r.operationId).sort()).toEqual(Object.keys(ANSWER_TO_TRUE).sort());
});

describe.each(LIST_ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))("%s", (_name, route) => {
  it("accepts include_deleted=false and answers the same page as without it", async () => {
    const path = await pathOf(route);
    const plain = await call("GET", path, { key: owner.key });
    const withFalse = await call("GET", `${path}?include_deleted=false`, { key: owner.key });
    expect(plain.status).toBe(200);
    expect([withFalse.status, withFalse.body.code]).toEqual([200, undefined]);
    expect(withFalse.body.data).toEqual(plain.body.data);
  });

  it("answers include_deleted=true as its section says", async () => {
    const path = await pathOf(route);
    const r = await call("GET", `${path}?include_deleted=true`, { key: owner.key });
    const expected = ANSWER_TO_TRUE[route.operationId];
    if (expected === "not_supported") {
      expect(r.status).toBe(422);
      expect(r.body.errors).toEqual([expect.objectContaining({ field: "/include_deleted", code: "not_supported" })]);
    } else {
      expect(r.status).toBe(200);
      if (expected === "adds_nothing")
        expect(r.body.data).toEqual((await call("GET", path, { key: owner.key })).body.data);
    }
  });

  it("refuses a value other than true or false on /include_deleted", async () => {
    const r = await call("GET", `${await pathOf(route)}?include_deleted=yes`, { key: owner.key });
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual([expect.objectContaining({ field: "/include_deleted" })]);
  });
});
