import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  articles,
  dashboardBlocks,
  leads,
  strategistActions,
  strategistReports,
  strategistSessions,
  strategistTopics,
} from "@/db/schema";
import { call } from "@/server/testing/api-client";
import { makeEmptySandboxTenant, type SandboxTenantFixture } from "@/server/testing/empty-sandbox";
import { makeTenant } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";

// Issue 69 "Separation" for the read routes of articles, strategist, dashboards and leads: a tenant with the
// preview `test-mode` has two worlds, and each key sees only its own. A live key never sees a sandbox row
// and a test key never a live one: a single read is 404 `not_found`, a list omits it, and a cursor of one
// mode's walk is 422 on `/cursor` in the other.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let s: SandboxTenantFixture;

const DAY = 86_400_000;
const at = (i: number) => new Date(Date.parse("2026-10-01T10:00:00Z") + i * DAY);

/** A read route with an id per row, and how to make two rows of one mode in tenant `s` (their ids). */
interface Case {
  list: string;
  get: (id: string) => string;
  make: (livemode: boolean) => Promise<string[]>;
}

const CASES: Record<string, Case> = {
  articles: {
    list: "/articles",
    get: (id) => `/articles/${id}`,
    make: async (livemode) =>
      ids(
        await db.db
          .insert(articles)
          .values(
            [1, 2].map((i) => ({
              tenantId: s.tenantId,
              livemode,
              title: `${livemode ? "Live" : "Sandbox"} article ${i}`,
              status: "published",
              bodyHtml: "<p>Hi</p>",
              updatedAt: at(i),
            })),
          )
          .returning({ id: articles.id }),
      ),
  },
  "strategist reports": {
    list: "/strategist/reports",
    get: (id) => `/strategist/reports/${id}`,
    make: async (livemode) =>
      ids(
        await db.db
          .insert(strategistReports)
          .values(
            [1, 2].map((i) => ({
              tenantId: s.tenantId,
              livemode,
              reportDate: at(i).toISOString().slice(0, 10),
              reportType: "daily",
              summaryText: livemode ? "Live traffic" : "Sandbox traffic",
              dataAsOf: {},
              highlights: [],
              concerns: [],
              actions: [],
              evidence: {},
              createdAt: at(i),
            })),
          )
          .returning({ id: strategistReports.id }),
      ),
  },
  "strategist topics": {
    list: "/strategist/topics",
    get: (id) => `/strategist/topics/${id}`,
    make: async (livemode) =>
      ids(
        await db.db
          .insert(strategistTopics)
          .values(
            [1, 2].map((i) => ({
              tenantId: s.tenantId,
              livemode,
              title: `${livemode ? "Live" : "Sandbox"} topic ${i}`,
              source: "trends",
              trendScore: i,
            })),
          )
          .returning({ id: strategistTopics.id }),
      ),
  },
  "strategist actions": {
    list: "/strategist/actions",
    get: (id) => `/strategist/actions/${id}`,
    make: async (livemode) => {
      const [session] = await db.db
        .insert(strategistSessions)
        .values({ tenantId: s.tenantId, livemode, integrationId: s.integrationId })
        .returning();
      return ids(
        await db.db
          .insert(strategistActions)
          .values(
            [1, 2].map((i) => ({
              tenantId: s.tenantId,
              livemode,
              sessionId: session!.id,
              title: `${livemode ? "Live" : "Sandbox"} action ${i}`,
              createdAt: at(i),
              expiresAt: new Date(Date.now() + DAY),
            })),
          )
          .returning({ id: strategistActions.id }),
      );
    },
  },
  leads: {
    list: "/leads",
    get: (id) => `/leads/${id}`,
    make: async (livemode) =>
      ids(
        await db.db
          .insert(leads)
          .values(
            [1, 2].map((i) => ({
              tenantId: s.tenantId,
              livemode,
              title: `${livemode ? "Live" : "Sandbox"} lead ${i}`,
              updatedAt: at(i),
            })),
          )
          .returning({ id: leads.id }),
      ),
  },
};

const ids = (rows: { id: string }[]) => rows.map((r) => r.id);
/** Ids of the rows made per case and mode. */
const made: Record<string, { live: string[]; sandbox: string[] }> = {};

beforeAll(async () => {
  db = await openTestDatabase();
  s = await makeEmptySandboxTenant(db.db);
  for (const [name, c] of Object.entries(CASES))
    made[name] = { live: await c.make(true), sandbox: await c.make(false) };
});
afterAll(async () => db.drop());

describe.each(Object.keys(CASES))("%s", (name) => {
  const c = CASES[name]!;
  const keyOf = (mode: "live" | "sandbox") => (mode === "live" ? s.key : s.testKey);
  const other = (mode: "live" | "sandbox") => (mode === "live" ? "sandbox" : "live");

  it.each(["live", "sandbox"] as const)("a %s key lists and reads only the rows of its mode", async (mode) => {
    const listed = await call("GET", `${c.list}?limit=100`, { key: keyOf(mode) });
    expect(listed.status).toBe(200);
    const seen = (listed.body.data as { id: string }[]).map((r) => r.id);
    expect(seen).toEqual(expect.arrayContaining(made[name]![mode]));
    for (const id of made[name]![other(mode)]) expect(seen).not.toContain(id);

    const own = await call("GET", c.get(made[name]![mode][0]!), { key: keyOf(mode) });
    expect(own.status).toBe(200);
    expect(own.body.id).toBe(made[name]![mode][0]);
    for (const id of made[name]![other(mode)]) {
      const foreign = await call("GET", c.get(id), { key: keyOf(mode) });
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe("not_found");
    }
  });

  it.each(["live", "sandbox"] as const)("a cursor of a %s walk is 422 on /cursor in the other mode", async (mode) => {
    const first = await call("GET", `${c.list}?limit=1`, { key: keyOf(mode) });
    expect(first.status).toBe(200);
    const cursor = first.body.next_cursor as string;
    expect(typeof cursor).toBe("string");
    const same = await call("GET", `${c.list}?limit=1&cursor=${encodeURIComponent(cursor)}`, { key: keyOf(mode) });
    expect(same.status).toBe(200);
    const crossed = await call("GET", `${c.list}?limit=1&cursor=${encodeURIComponent(cursor)}`, {
      key: keyOf(other(mode)),
    });
    expect(crossed.status).toBe(422);
    expect(crossed.body.errors[0].field).toBe("/cursor");
  });
});

describe("a test key of a tenant without the preview test-mode", () => {
  it("reads the tenant's live rows, as before test mode", async () => {
    const t = await makeTenant(db.db, { key: { mode: "test" } });
    const [row] = await db.db
      .insert(articles)
      .values({ tenantId: t.tenantId, title: "Live", status: "published", updatedAt: at(1) })
      .returning();
    const listed = await call("GET", "/articles", { key: t.key });
    expect(listed.body.data.map((a: { id: string }) => a.id)).toEqual([row!.id]);
    expect((await call("GET", `/articles/${row!.id}`, { key: t.key })).status).toBe(200);
  });
});

describe("GET /dashboards/overview", () => {
  beforeAll(async () => {
    await db.db.insert(dashboardBlocks).values([
      { tenantId: s.tenantId, livemode: true, block: "kpi", availability: "ok", dataAsOf: {}, payload: { leads: 14 } },
      { tenantId: s.tenantId, livemode: false, block: "kpi", availability: "ok", dataAsOf: {}, payload: { leads: 3 } },
      {
        tenantId: s.tenantId,
        livemode: false,
        block: "ads",
        availability: "ok",
        dataAsOf: {},
        sourceError: "sandbox ads source down",
      },
    ]);
  });

  it("answers each key the blocks of its own mode; a failing source of one mode never fails the other", async () => {
    const live = await call("GET", "/dashboards/overview", { key: s.key });
    expect(live.status).toBe(200);
    expect(live.body.data.blocks.kpi).toEqual({ availability: "ok", data_as_of: {}, leads: 14 });
    expect(live.body.data.blocks.ads).toEqual({ availability: "not_connected", data_as_of: {} });

    const sandbox = await call("GET", "/dashboards/overview?blocks=kpi,funnel", { key: s.testKey });
    expect(sandbox.status).toBe(200);
    expect(sandbox.body.data.blocks.kpi).toEqual({ availability: "ok", data_as_of: {}, leads: 3 });
    expect(sandbox.body.data.blocks.funnel).toEqual({ availability: "not_connected", data_as_of: {} });
    // The sandbox's own failing source is the sandbox's 503, never the live key's.
    const failing = await call("GET", "/dashboards/overview", { key: s.testKey });
    expect(failing.status).toBe(503);
    expect(failing.body.code).toBe("service_unavailable");
  });
});
