import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { strategistActions, strategistReports, strategistSessions, strategistTopics } from "@/db/schema";
import { SCOPES } from "@/server/schemas/scopes";
import { createIntegration } from "@/server/services/integrations/integrations";
import { issueKey } from "@/server/services/keys/keys";
import { call, type ApiAnswer } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let other: TenantFixture;
/** A second integration of tenant `t`, with its own key. */
let sibling: { integrationId: string; key: string };

const DAY = 86_400_000;
const HOUR = 3_600_000;
const get = (path: string, key = t.key) => call("GET", path, { key });

/** Follows `next_cursor` from `path` (which already holds its query) and returns every item seen, in order. */
async function walk(path: string, key = t.key): Promise<{ items: Record<string, unknown>[]; pages: number }> {
  const items: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const sep = path.includes("?") ? "&" : "?";
    const r: ApiAnswer = await get(cursor ? `${path}${sep}cursor=${encodeURIComponent(cursor)}` : path, key);
    expect(r.status).toBe(200);
    items.push(...r.body.data);
    cursor = r.body.next_cursor;
    pages++;
  } while (cursor && pages < 50);
  return { items, pages };
}

const ids = (items: Record<string, unknown>[]) => items.map((i) => i.id as string);
const byIdDesc = (a: { id: string }, b: { id: string }) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  other = await makeTenant(db.db);
  const i = await createIntegration(db.db, t.tenantId, {
    name: "Sibling",
    scopes: [...SCOPES],
    piiCountry: "RU",
    legalBasis: "contract",
  });
  const k = await issueKey(db.db, { integrationId: i.id, ipAllowlist: ["127.0.0.1"] });
  sibling = { integrationId: i.id, key: k.key };
});
afterAll(async () => db.drop());

describe("strategist reports", () => {
  const base = Date.parse("2026-10-01T06:00:00Z");
  let rows: (typeof strategistReports.$inferSelect)[];
  let creativeId: string;
  let foreignId: string;

  const report = (i: number, extra: Partial<typeof strategistReports.$inferInsert> = {}) => ({
    tenantId: t.tenantId,
    reportDate: new Date(base + i * DAY).toISOString().slice(0, 10),
    reportType: i % 3 === 2 ? "weekly" : "daily",
    summaryText: `Traffic grew ${i}%; RivalSport and ACME runners gained positions.`,
    dataAsOf: { snapshot: "2026-10-01", sessions: "2026-09-30" },
    highlights: [
      { title: "Blog up", detail: "Ahead of rivalsport on 3 queries", nested: { deep: ["acme Runners copied us"] } },
    ],
    concerns: [{ title: "Pressure from RIVALSPORT", score: 3 }],
    actions: [
      {
        title: "Refresh the guide",
        priority: "high",
        rationale: "RivalSport updated theirs.",
        target_ref: "/blog/1",
        expected_effect: "+5% clicks",
        check_after_days: 14,
        basis: "search_console",
      },
      {
        title: "Answer Acme Runners",
        priority: "low",
        rationale: "x",
        target_ref: null,
        expected_effect: "y",
        check_after_days: 7,
        basis: "competitors",
      },
    ].slice(0, 1 + (i % 2)),
    evidence: {
      actions: [{ index: 0, status: "supported", basis: "search_console", items: ["RivalSport at 3 → 5"] }],
      validation: {
        refs_valid: true,
        excerpts_valid: true,
        relevance_checked: true,
        limitations: ["acme runners data is partial"],
      },
    },
    snapshot: { raw: "internal-snapshot-marker" },
    model: "strategist-large-model-marker",
    costMinor: 987654321n,
    competitorNames: ["RivalSport", "Acme Runners"],
    deliveredAt: i === 0 ? null : new Date(base + i * DAY + 2 * HOUR),
    createdAt: new Date(base + i * DAY),
    ...extra,
  });

  beforeAll(async () => {
    rows = await db.db
      .insert(strategistReports)
      .values([
        ...Array.from({ length: 7 }, (_, i) => report(i)),
        // Two reports created at the same moment: the id decides their order.
        report(7, { createdAt: new Date(base + 20 * DAY) }),
        report(8, { createdAt: new Date(base + 20 * DAY) }),
      ])
      .returning();
    const [c] = await db.db
      .insert(strategistReports)
      .values(report(9, { runKind: "creative", createdAt: new Date(base + 30 * DAY) }))
      .returning();
    creativeId = c.id;
    const [f] = await db.db
      .insert(strategistReports)
      .values({ ...report(1), tenantId: other.tenantId })
      .returning();
    foreignId = f.id;
  });

  const expectedOrder = () =>
    [...rows].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || byIdDesc(a, b)).map((r) => r.id);

  it("lists summaries newest first (created_at, then id) with exactly the summary fields; creative runs never appear", async () => {
    const r = await get("/strategist/reports");
    expect(r.status).toBe(200);
    expect(ids(r.body.data)).toEqual(expectedOrder());
    expect(r.body.next_cursor).toBeNull();
    expect(ids(r.body.data)).not.toContain(creativeId);
    for (const s of r.body.data) {
      expect(Object.keys(s).sort()).toEqual([
        "actions_count",
        "data_as_of",
        "delivered_at",
        "id",
        "report_date",
        "report_type",
        "summary_text",
      ]);
    }
    const first = rows[0];
    const s0 = r.body.data.find((s: { id: string }) => s.id === first.id);
    expect(s0).toEqual({
      id: first.id,
      report_date: "2026-10-01",
      report_type: "daily",
      summary_text: "Traffic grew 0%; a competitor and a competitor gained positions.",
      actions_count: 1,
      data_as_of: { snapshot: "2026-10-01", sessions: "2026-09-30" },
      delivered_at: null,
    });
    expect(r.body.data.find((s: { id: string }) => s.id === rows[1].id)).toMatchObject({
      actions_count: 2,
      delivered_at: "2026-10-02T08:00:00.000Z",
    });
    expect(r.text.toLowerCase()).not.toContain("rivalsport");
    expect(r.text.toLowerCase()).not.toContain("acme runners");
  });

  it("walks every report exactly once with a cursor, in the same order", async () => {
    const w = await walk("/strategist/reports?limit=2");
    expect(ids(w.items)).toEqual(expectedOrder());
    expect(w.pages).toBe(5);
    expect(new Set(ids(w.items)).size).toBe(rows.length);
  });

  it("filters by report_type and binds the cursor to the filter", async () => {
    const weekly = rows.filter((r) => r.reportType === "weekly").map((r) => r.id);
    const w = await walk("/strategist/reports?report_type=weekly&limit=1");
    expect(ids(w.items)).toEqual(expectedOrder().filter((id) => weekly.includes(id)));
    expect(w.items.every((s) => s.report_type === "weekly")).toBe(true);
    const page = await get("/strategist/reports?report_type=weekly&limit=1");
    const cross = await get(`/strategist/reports?report_type=daily&limit=1&cursor=${page.body.next_cursor}`);
    expect(cross.status).toBe(422);
    expect(cross.body.errors[0].field).toBe("/cursor");
  });

  it.each([
    ["report_type=monthly", "/report_type"],
    ["limit=0", "/limit"],
    ["limit=101", "/limit"],
    ["unknown=1", "/unknown"],
    ["cursor=garbage", "/cursor"],
  ])("answers %s with 422 on %s", async (q, field) => {
    const r = await get(`/strategist/reports?${q}`);
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("validation_failed");
    expect(r.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it("reads one report with competitor names masked everywhere and no snapshot, model or cost", async () => {
    const row = rows[1];
    const r = await get(`/strategist/reports/${row.id}`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual([
      "actions",
      "concerns",
      "data_as_of",
      "evidence",
      "highlights",
      "id",
      "report_date",
      "report_type",
      "summary_text",
    ]);
    expect(r.body.summary_text).toBe("Traffic grew 1%; a competitor and a competitor gained positions.");
    expect(r.body.highlights).toEqual([
      { title: "Blog up", detail: "Ahead of a competitor on 3 queries", nested: { deep: ["a competitor copied us"] } },
    ]);
    expect(r.body.concerns).toEqual([{ title: "Pressure from a competitor", score: 3 }]);
    expect(r.body.actions[0]).toEqual({
      title: "Refresh the guide",
      priority: "high",
      rationale: "a competitor updated theirs.",
      target_ref: "/blog/1",
      expected_effect: "+5% clicks",
      check_after_days: 14,
      basis: "search_console",
    });
    expect(r.body.actions[1].title).toBe("Answer a competitor");
    expect(r.body.evidence.actions[0].items).toEqual(["a competitor at 3 → 5"]);
    expect(r.body.evidence.validation.limitations).toEqual(["a competitor data is partial"]);
    const text = r.text.toLowerCase();
    expect(text).not.toContain("rivalsport");
    expect(text).not.toContain("acme runners");
    expect(text).not.toContain("internal-snapshot-marker");
    expect(text).not.toContain("strategist-large-model-marker");
    expect(text).not.toContain("987654321");
  });

  it("answers 404 for a creative run, another tenant's report and a missing one, alike", async () => {
    const missing = await get(`/strategist/reports/${crypto.randomUUID()}`);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("not_found");
    for (const id of [creativeId, foreignId]) {
      const r = await get(`/strategist/reports/${id}`);
      expect(r.status).toBe(404);
      expect(r.body.detail).toBe(missing.body.detail);
    }
    expect((await get(`/strategist/reports/${foreignId}`, other.key)).status).toBe(200);
    expect((await get("/strategist/reports/not-a-uuid")).status).toBe(404);
  });
});

describe("strategist topics", () => {
  let owner: TenantFixture;
  let rows: (typeof strategistTopics.$inferSelect)[];
  const scores = [5, 9.5, null, 9.5, null, 1, 0, -2.25, null, 9.5, 0.1];

  beforeAll(async () => {
    owner = await makeTenant(db.db);
    rows = await db.db
      .insert(strategistTopics)
      .values(
        scores.map((s, i) => ({
          tenantId: owner.tenantId,
          title: i === 0 ? "Beat RivalSport.example on trail shoes" : `Topic ${i}`,
          rationale: i === 0 ? "rivalsport.EXAMPLE ranks first" : null,
          trendScore: s,
          source: i === 0 ? "competitors" : "planner",
          status: (["proposed", "approved", "generating", "generated", "rejected", "duplicate", "expired"] as const)[
            i % 7
          ],
          competitorDomain: i === 0 ? "rivalsport.example" : null,
          clusterId: i === 1 ? "cluster-7" : null,
          proposedAt: new Date(Date.parse("2026-10-01T00:00:00Z") + i * HOUR),
        })),
      )
      .returning();
  });

  const expectedOrder = (list = rows) =>
    [...list]
      .sort((a, b) => {
        if (a.trendScore === null && b.trendScore === null) return byIdDesc(a, b);
        if (a.trendScore === null) return 1;
        if (b.trendScore === null) return -1;
        return b.trendScore - a.trendScore || byIdDesc(a, b);
      })
      .map((r) => r.id);

  it("orders by trend score descending, ties by id descending, not scored last", async () => {
    const r = await get("/strategist/topics", owner.key);
    expect(r.status).toBe(200);
    expect(ids(r.body.data)).toEqual(expectedOrder());
    const s = r.body.data.map((x: { trend_score: number | null }) => x.trend_score);
    expect(s.slice(-3)).toEqual([null, null, null]);
    expect(s.slice(0, 3)).toEqual([9.5, 9.5, 9.5]);
  });

  it.each([1, 2, 3, 4])("walks every topic once with limit=%i, across the not-scored group", async (limit) => {
    const w = await walk(`/strategist/topics?limit=${limit}`, owner.key);
    expect(ids(w.items)).toEqual(expectedOrder());
    expect(w.pages).toBe(Math.ceil(rows.length / limit));
  });

  it("answers exactly the StrategistTopic fields and hides the competitor domain, also in title and rationale", async () => {
    const topic = rows[0];
    const r = await get(`/strategist/topics/${topic.id}`, owner.key);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: topic.id,
      title: "Beat a competitor on trail shoes",
      rationale: "a competitor ranks first",
      trend_score: 5,
      source: "competitors",
      status: "proposed",
      cluster_id: null,
      generated_article_id: null,
      proposed_at: "2026-10-01T00:00:00.000Z",
      decided_at: null,
      expires_at: null,
    });
    const list = await get("/strategist/topics?limit=100", owner.key);
    expect(list.text.toLowerCase()).not.toContain("rivalsport");
    expect(list.text).not.toContain("competitor_domain");
  });

  it("filters by status and walks the filtered set", async () => {
    const approved = rows.filter((r) => r.status === "approved");
    const w = await walk("/strategist/topics?status=approved&limit=1", owner.key);
    expect(ids(w.items)).toEqual(expectedOrder(approved));
    expect(w.items.every((x) => x.status === "approved")).toBe(true);
  });

  it("refuses include_deleted=true with 422 not_supported and accepts false", async () => {
    const r = await get("/strategist/topics?include_deleted=true", owner.key);
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual([expect.objectContaining({ field: "/include_deleted", code: "not_supported" })]);
    const f = await get("/strategist/topics?include_deleted=false", owner.key);
    expect(f.status).toBe(200);
    expect(ids(f.body.data)).toEqual(expectedOrder());
  });

  it.each([
    ["status=deleted", "/status"],
    ["status=", "/status"],
    ["include_deleted=yes", "/include_deleted"],
  ])("answers %s with 422 on %s", async (q, field) => {
    const r = await get(`/strategist/topics?${q}`, owner.key);
    expect(r.status).toBe(422);
    expect(r.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it("answers another tenant's topic as missing", async () => {
    const r = await get(`/strategist/topics/${rows[1].id}`, t.key);
    expect(r.status).toBe(404);
    expect(r.body.code).toBe("not_found");
  });
});

describe("strategist actions", () => {
  const now = Date.now();
  let mine: string;
  let mine2: string;
  let siblings: string;
  let staff: string;
  const a: Record<string, typeof strategistActions.$inferSelect> = {};

  beforeAll(async () => {
    const session = async (v: Partial<typeof strategistSessions.$inferInsert>) =>
      (
        await db.db
          .insert(strategistSessions)
          .values({ tenantId: t.tenantId, ...v })
          .returning()
      )[0].id;
    mine = await session({ integrationId: t.integrationId });
    mine2 = await session({ integrationId: t.integrationId });
    siblings = await session({ integrationId: sibling.integrationId });
    staff = await session({ staffUserId: "staff-1" });
    const add = async (name: string, v: Partial<typeof strategistActions.$inferInsert>) => {
      const [row] = await db.db
        .insert(strategistActions)
        .values({ tenantId: t.tenantId, sessionId: mine, title: name, ...v })
        .returning();
      a[name] = row;
    };
    await add("fresh", { createdAt: new Date(now - DAY) });
    await add("stale", { createdAt: new Date(now - 8 * DAY) }); // proposed, no expires_at, 8 days old
    await add("deadline passed", { createdAt: new Date(now - 2 * DAY), expiresAt: new Date(now - HOUR) });
    await add("stored expired", { status: "expired", createdAt: new Date(now - 9 * DAY) });
    await add("executed", {
      status: "executed",
      result: { topic_id: "11111111-1111-4111-8111-111111111111" },
      createdAt: new Date(now - 3 * DAY),
      decidedAt: new Date(now - 3 * DAY + HOUR),
    });
    await add("failed", {
      status: "failed",
      error: { code: "internal_error", message: "Generation failed" },
      createdAt: new Date(now - 4 * DAY),
    });
    await add("confirmed old", { status: "confirmed", createdAt: new Date(now - 10 * DAY) }); // not proposed: never re-read
    await add("second session", { sessionId: mine2, createdAt: new Date(now - 5 * DAY) });
    await add("same moment", { sessionId: mine2, status: "cancelled", createdAt: new Date(now - 5 * DAY) });
    await add("sibling", { sessionId: siblings, createdAt: new Date(now - HOUR) });
    await add("staff", { sessionId: staff, createdAt: new Date(now - HOUR) });
  });

  const visible = () =>
    [
      "fresh",
      "stale",
      "deadline passed",
      "stored expired",
      "executed",
      "failed",
      "confirmed old",
      "second session",
      "same moment",
    ].map((n) => a[n]);
  const expectedOrder = (list = visible()) =>
    [...list].sort((x, y) => y.createdAt.getTime() - x.createdAt.getTime() || byIdDesc(x, y)).map((r) => r.id);

  it("lists only actions of this integration's sessions, newest first; staff and sibling actions are invisible", async () => {
    const r = await get("/strategist/actions");
    expect(r.status).toBe(200);
    expect(ids(r.body.data)).toEqual(expectedOrder());
    expect(ids(r.body.data)).not.toContain(a.sibling.id);
    expect(ids(r.body.data)).not.toContain(a.staff.id);
    const s = await get("/strategist/actions", sibling.key);
    expect(ids(s.body.data)).toEqual([a.sibling.id]);
    expect((await get("/strategist/actions", other.key)).body.data).toEqual([]);
  });

  it("walks every action once with a cursor", async () => {
    const w = await walk("/strategist/actions?limit=2");
    expect(ids(w.items)).toEqual(expectedOrder());
    expect(w.pages).toBe(5);
  });

  it("answers exactly the StrategistAction fields; expires_at defaults to creation + 7 days", async () => {
    const r = await get(`/strategist/actions/${a.fresh.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: a.fresh.id,
      session_id: mine,
      type: "propose_topic",
      title: "fresh",
      status: "proposed",
      result: null,
      error: null,
      created_at: a.fresh.createdAt.toISOString(),
      decided_at: null,
      expires_at: new Date(a.fresh.createdAt.getTime() + 7 * DAY).toISOString(),
    });
    const ex = await get(`/strategist/actions/${a.executed.id}`);
    expect(ex.body).toMatchObject({
      status: "executed",
      result: { topic_id: "11111111-1111-4111-8111-111111111111" },
      error: null,
      decided_at: a.executed.decidedAt!.toISOString(),
    });
    const f = await get(`/strategist/actions/${a.failed.id}`);
    expect(f.body).toMatchObject({
      status: "failed",
      error: { code: "internal_error", message: "Generation failed" },
      result: null,
    });
  });

  it("reads a proposed action past its expiry as expired, by id and in the list", async () => {
    const stale = await get(`/strategist/actions/${a.stale.id}`);
    expect(stale.body.status).toBe("expired");
    expect(stale.body.expires_at).toBe(new Date(a.stale.createdAt.getTime() + 7 * DAY).toISOString());
    expect((await get(`/strategist/actions/${a["deadline passed"].id}`)).body).toMatchObject({
      status: "expired",
      expires_at: a["deadline passed"].expiresAt!.toISOString(),
    });
    const list = await get("/strategist/actions");
    const status = Object.fromEntries(
      list.body.data.map((x: { title: string; status: string }) => [x.title, x.status]),
    );
    expect(status).toMatchObject({
      fresh: "proposed",
      stale: "expired",
      "deadline passed": "expired",
      "stored expired": "expired",
      "confirmed old": "confirmed",
    });
  });

  it("filters by status as read: expired includes lapsed proposals, proposed excludes them", async () => {
    const expired = await get("/strategist/actions?status=expired");
    expect(ids(expired.body.data)).toEqual(expectedOrder([a.stale, a["deadline passed"], a["stored expired"]]));
    const proposed = await get("/strategist/actions?status=proposed");
    expect(ids(proposed.body.data)).toEqual(expectedOrder([a.fresh, a["second session"]]));
    const cancelled = await get("/strategist/actions?status=cancelled");
    expect(ids(cancelled.body.data)).toEqual([a["same moment"].id]);
  });

  it("filters by session_id; another integration's session gives an empty page", async () => {
    const r = await walk(`/strategist/actions?session_id=${mine2}&limit=1`);
    expect(ids(r.items)).toEqual(expectedOrder([a["second session"], a["same moment"]]));
    expect((await get(`/strategist/actions?session_id=${siblings}`)).body.data).toEqual([]);
    expect((await get(`/strategist/actions?session_id=${staff}`)).body.data).toEqual([]);
  });

  it("binds the cursor to the filters", async () => {
    const p = await get(`/strategist/actions?session_id=${mine}&limit=1`);
    const r = await get(`/strategist/actions?session_id=${mine2}&limit=1&cursor=${p.body.next_cursor}`);
    expect(r.status).toBe(422);
    expect(r.body.errors[0].field).toBe("/cursor");
  });

  it.each([
    ["status=pending", "/status"],
    ["session_id=abc", "/session_id"],
    ["limit=x", "/limit"],
  ])("answers %s with 422 on %s", async (q, field) => {
    const r = await get(`/strategist/actions?${q}`);
    expect(r.status).toBe(422);
    expect(r.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it("answers a sibling integration's, a staff and another tenant's action as missing", async () => {
    const missing = await get(`/strategist/actions/${crypto.randomUUID()}`);
    expect(missing.status).toBe(404);
    for (const id of [a.sibling.id, a.staff.id]) {
      const r = await get(`/strategist/actions/${id}`);
      expect(r.status).toBe(404);
      expect(r.body.detail).toBe(missing.body.detail);
    }
    expect((await get(`/strategist/actions/${a.sibling.id}`, sibling.key)).status).toBe(200);
    expect((await get(`/strategist/actions/${a.fresh.id}`, sibling.key)).status).toBe(404);
    expect((await get(`/strategist/actions/${a.fresh.id}`, other.key)).status).toBe(404);
  });
});

describe("strategist scope", () => {
  it("needs strategist:read", async () => {
    const narrow = await makeTenant(db.db, { scopes: ["cards:read"] });
    for (const path of ["/strategist/reports", "/strategist/topics", "/strategist/actions"]) {
      const r = await get(path, narrow.key);
      expect(r.status).toBe(403);
      expect(r.body.code).toBe("scope_missing");
    }
  });
});
