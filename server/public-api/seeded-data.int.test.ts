import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operations } from "@/db/schema";
import { seedTenantData } from "@/server/services/seed/seed-data";
import { call, type ApiAnswer } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { ROUTES } from "./routes";

// Every Available read route on the seeder's data (`npm run seed`), as an integrator first meets it:
// each answers 200 and matches the OpenAPI document (call() validates), every list walks to its end by
// cursor, and nothing the platform keeps to itself leaks into any answer.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
const answers: ApiAnswer[] = [];

const get = async (path: string) => {
  const r = await call("GET", path, { key: t.key });
  answers.push(r);
  return r;
};

/** Walks a list route to its end; returns every item. */
async function walk(path: string): Promise<{ id: string }[]> {
  const items: { id: string }[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const sep = path.includes("?") ? "&" : "?";
    const r: ApiAnswer = await get(`${path}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    expect(r.status, path).toBe(200);
    items.push(...r.body.data);
    cursor = r.body.next_cursor;
    if (!cursor) return items;
  }
  throw new Error(`${path} did not end`);
}

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  await seedTenantData(db.db, t.tenantId, 3, t.integrationId);
}, 120_000);
afterAll(async () => db.drop());

describe("the seeded tenant through every read route", () => {
  const lists = [
    "/conversations",
    "/cards",
    "/leads",
    "/articles",
    "/strategist/reports",
    "/strategist/topics",
    "/strategist/actions",
  ];

  it("has an Available list route for each of the domains walked here", () => {
    const paths = new Set(ROUTES.filter((r) => r.method === "GET").map((r) => r.path));
    for (const p of lists) expect(paths.has(p), p).toBe(true);
  });

  it("walks every list to its end with each item once, then reads each item by id", async () => {
    for (const list of lists) {
      const items = await walk(list);
      expect(new Set(items.map((i) => i.id)).size, list).toBe(items.length);
      if (list === "/cards") continue; // cards are read by code, covered by their own tests
      expect(items.length, list).toBeGreaterThan(0);
      for (const item of items.slice(0, 5))
        expect((await get(`${list}/${item.id}`)).status, `${list}/${item.id}`).toBe(200);
    }
  });

  it("reads messages with tombstones, article formats, the dashboard and an operation", async () => {
    const [first] = await walk("/conversations");
    const msgs = await walk(`/conversations/${first.id}/messages?include_deleted=true`);
    expect(msgs.length).toBeGreaterThan(0);
    const [article] = await walk("/articles");
    for (const format of ["html", "markdown", "blocks"])
      expect((await get(`/articles/${article.id}?format=${format}`)).status, format).toBe(200);
    expect((await get("/dashboards/overview")).status).toBe(200);
    const [op] = await db.db.select({ id: operations.id }).from(operations).where(eq(operations.tenantId, t.tenantId));
    expect((await get(`/operations/${op.id}`)).status).toBe(200);
  });

  it("lets nothing private leak: messenger file addresses, notes, competitor names, internal report data, scripts", async () => {
    const all = await walk("/articles");
    for (const a of all)
      for (const format of ["html", "markdown", "blocks"]) await get(`/articles/${a.id}?format=${format}`);
    for (const c of (await walk("/conversations")).slice(0, 10))
      await walk(`/conversations/${c.id}/messages?include_deleted=true`);
    const text = answers.map((a) => a.text).join("\n");
    for (const secret of [
      "telegram.org",
      "bot-secret",
      "Internal note",
      "RivalSport",
      "rivalsport",
      "strategist-large",
      '"raw":"internal"',
      "cost_minor",
      "<script",
      "javascript:",
      "onerror",
      "onclick",
      "Platform blog post",
      "personal_mailbox",
      "student_cabinet",
    ]) {
      expect(text.includes(secret), secret).toBe(false);
    }
  });
});
