import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { idempotencyRecords, products, webhookSubscriptions } from "@/db/schema";
import { setClock } from "@/server/lib/clock";
import { SCOPES } from "@/server/schemas/scopes";
import { createIntegration } from "@/server/services/integrations/integrations";
import { issueKey } from "@/server/services/keys/keys";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { newSigningSecret, sealSecret } from "@/server/webhook-transport/secret-box";
import { defineRoute, type RouteContext } from "./define-route";
import { executeRoute } from "./execute";

// Idempotency keys (spec "Limits: idempotency rules", issue 16 item 5): per integration, bound to the
// whole request (method, path, body), and held by a request for as long as it runs.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  await setLimitOverride(db.db, { tenantId: t.tenantId }, { readPerMin: 100_000, writePerMin: 100_000 });
});
afterAll(async () => {
  setClock(undefined);
  await db.drop();
});

/** What the pipeline hands a handler of a POST to `path` by the fixture tenant's key, for executeRoute. */
function routeContext(path: string): RouteContext<unknown, unknown, unknown> {
  return {
    db: db.db,
    actor: {
      via: "api" as const,
      tenantId: t.tenantId,
      integrationId: t.integrationId,
      keyId: t.keyId,
      keyMode: "live" as const,
      scopes: [],
      cell: "ru" as const,
    },
    caller: undefined,
    params: {},
    query: {},
    body: undefined,
    requestId: "req_test",
    request: new Request(`https://api.example.ru/api/public/v1${path}`, { method: "POST" }),
    url: new URL(`https://api.example.ru/api/public/v1${path}`),
  } as unknown as RouteContext<unknown, unknown, unknown>;
}

describe("idempotency keys", () => {
  it("are per integration: two integrations of one tenant reusing a key make their own resources", async () => {
    const i = await createIntegration(db.db, t.tenantId, {
      name: "Second",
      scopes: [...SCOPES],
      piiCountry: "RU",
      legalBasis: "contract",
    });
    const second = (await issueKey(db.db, { integrationId: i.id, ipAllowlist: ["127.0.0.1"] })).key;
    const key = crypto.randomUUID();
    const a = await call("POST", "/cards", {
      key: t.key,
      idempotencyKey: key,
      json: { code: "first-integration", name: "A" },
    });
    const b = await call("POST", "/cards", {
      key: second,
      idempotencyKey: key,
      json: { code: "second-integration", name: "B" },
    });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.code).toBe("second-integration");
    const codes = (await db.db.select().from(products).where(eq(products.tenantId, t.tenantId))).map((p) => p.code);
    expect(codes).toEqual(expect.arrayContaining(["first-integration", "second-integration"]));
  });

  it("bind the whole request: the same key on another resource of a route without a body is a conflict", async () => {
    const sub = async () =>
      (
        await db.db
          .insert(webhookSubscriptions)
          .values({
            tenantId: t.tenantId,
            integrationId: t.integrationId,
            url: "https://hooks.example.com/in",
            events: ["lead.*"],
            secretEnc: sealSecret(newSigningSecret()),
          })
          .returning({ id: webhookSubscriptions.id })
      )[0].id;
    const [a, b] = [await sub(), await sub()];
    const key = crypto.randomUUID();
    const first = await call("POST", `/webhooks/${a}/rotate-secret`, { key: t.key, idempotencyKey: key });
    expect(first.status).toBe(200);
    const other = await call("POST", `/webhooks/${b}/rotate-secret`, { key: t.key, idempotencyKey: key });
    expect([other.status, other.body.code]).toEqual([409, "idempotency_conflict"]);
    const [rowB] = await db.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, b));
    expect(rowB.secretRotatedAt).toBeNull();
    // The same request again is still a replay (secret null).
    const again = await call("POST", `/webhooks/${a}/rotate-secret`, { key: t.key, idempotencyKey: key });
    expect([again.status, again.body.id, again.body.secret]).toEqual([200, a, null]);
  });

  it("bind the method and path too: the same key and body on another route is a conflict", async () => {
    const key = crypto.randomUUID();
    const c1 = await call("POST", "/cards", {
      key: t.key,
      idempotencyKey: key,
      json: { code: "bound-one", name: "One" },
    });
    expect(c1.status).toBe(201);
    const other = await call("PATCH", "/cards/bound-one", {
      key: t.key,
      idempotencyKey: key,
      json: { code: "bound-one", name: "One" },
    });
    expect([other.status, other.body.code]).toEqual([409, "idempotency_conflict"]);
  });

  /**
   * A one-statement route at `path` whose handler answers 201 naming one resource without writing and
   * without taking the completion; `runs()` counts its runs. `recordsKey` as the route declares it.
   */
  function answeringRoute(path: string, recordsKey: boolean) {
    let runs = 0;
    const thingId = crypto.randomUUID();
    const route = defineRoute({
      operationId: `answer${path.slice(1)}`,
      summary: "answers without writing",
      method: "POST",
      path,
      scope: null,
      rate: "write",
      oneStatement: true,
      recordsKey,
      responses: { 201: null },
      handler: async ({ completion }) => {
        runs++;
        expect(completion?.taken).toBe(false);
        return { status: 201, resource: { type: "thing", id: thingId } };
      },
      replay: async (_ctx, id, status) => ({ status, body: { replayed: id } }),
    });
    return { route, thingId, runs: () => runs };
  }

  it("complete the record after a one-statement handler that did not take the completion into its statement", async () => {
    // A `oneStatement` route runs without a transaction; its handler normally completes the record in its
    // own statement (POST /cards). One that does not still leaves a completed record that replays.
    const { route, thingId, runs } = answeringRoute("/one", false);
    const ctx = routeContext("/one");
    const key = crypto.randomUUID();
    expect((await executeRoute(route, ctx, key, undefined)).status).toBe(201);
    const [rec] = await db.db.select().from(idempotencyRecords).where(eq(idempotencyRecords.idempotencyKey, key));
    expect(rec).toMatchObject({ state: "completed", responseStatus: 201, resourceType: "thing", resourceId: thingId });
    expect(await executeRoute(route, ctx, key, undefined)).toEqual({
      status: 201,
      body: { replayed: thingId },
      replayed: true,
    });
    expect(runs()).toBe(1);
  });

  it("record the first use of a key by a records-key handler that answered without writing, and replay it", async () => {
    // A `recordsKey` route tries a key's first use as its handler's one statement, without looking the key
    // up first; a handler that answers without writing leaves the record after it, and a used key then
    // gets the full path's answer: the replay, or the conflict for another body.
    const { route, thingId, runs } = answeringRoute("/records", true);
    const ctx = routeContext("/records");
    const key = crypto.randomUUID();
    expect(await executeRoute(route, ctx, key, { a: 1 })).toEqual({
      status: 201,
      resource: { type: "thing", id: thingId },
    });
    const [rec] = await db.db.select().from(idempotencyRecords).where(eq(idempotencyRecords.idempotencyKey, key));
    expect(rec).toMatchObject({ state: "completed", responseStatus: 201, resourceType: "thing", resourceId: thingId });
    expect(await executeRoute(route, ctx, key, { a: 1 })).toEqual({
      status: 201,
      body: { replayed: thingId },
      replayed: true,
    });
    await expect(executeRoute(route, ctx, key, { a: 2 })).rejects.toMatchObject({ code: "idempotency_conflict" });
    expect(runs()).toBe(3); // answered without writing each time; only the first answer was kept
  });

  // Only PostgreSQL runs two transactions at once; on the embedded database a retry waits for the first
  // request's transaction, so it cannot overtake it.
  it.runIf(!!process.env.DATABASE_URL)(
    "are held while a request runs longer than the lock, so a retry never runs it a second time",
    async () => {
      let release!: () => void;
      const running = new Promise<void>((r) => (release = r));
      let runs = 0;
      const route = defineRoute({
        operationId: "slowWrite",
        summary: "slow",
        method: "POST",
        path: "/slow",
        scope: null,
        rate: "write",
        responses: { 201: null },
        handler: async () => {
          runs++;
          await running;
          return { status: 201, resource: { type: "thing", id: crypto.randomUUID() } };
        },
      });
      const ctx = routeContext("/slow");
      const key = crypto.randomUUID();
      const first = executeRoute(route, ctx, key, undefined, { renewEveryMs: 20 });
      await new Promise((r) => setTimeout(r, 100));
      // 31 s later by the clock: the first lock (30 s) would have lapsed had it not been renewed.
      const later = Date.now() + 31_000;
      setClock(() => later);
      await new Promise((r) => setTimeout(r, 200));
      // A retry that took the operation over would run the handler again (and wait on it): give it 3 s.
      const retry = await Promise.race([
        Promise.resolve(executeRoute(route, ctx, key, undefined, { renewEveryMs: 20 })).then(
          () => "ran again",
          (e: { code?: string }) => e.code,
        ),
        new Promise((r) => setTimeout(() => r(runs > 1 ? "ran again" : "still waiting"), 3000)),
      ]);
      release();
      await first;
      setClock(undefined);
      expect(retry).toBe("operation_in_progress");
      expect(runs).toBe(1);
      const [rec] = await db.db.select().from(idempotencyRecords).where(eq(idempotencyRecords.idempotencyKey, key));
      expect(rec.state).toBe("completed");
    },
  );
});
