import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { articles } from "@/db/schema";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let other: TenantFixture;

type NewArticle = typeof articles.$inferInsert;
/** Inserts an article of `owner` (tenant `t` by default) and answers its id. */
async function insert(values: Partial<NewArticle>, owner: TenantFixture = t): Promise<string> {
  const [row] = await db.db
    .insert(articles)
    .values({ tenantId: owner.tenantId, title: "Article", ...values })
    .returning({ id: articles.id });
  return row.id;
}

/** The hostile sample of db/seed-data.ts. */
const HOSTILE = `<p onclick="steal()">Hi<script>alert(1)</script></p><a href="javascript:alert(2)">x</a><img src="data:image/png;base64,AAAA" onerror="alert(3)"><p style="color:red">styled</p>`;
const at = (s: string) => new Date(`2026-10-0${s}T10:00:00.000Z`);

/** A tenant of its own for list tests, so other tests' rows do not move the order. */
let lister: TenantFixture;
/** Ids of `lister`'s visible articles, in the expected list order. */
let expectedOrder: string[];

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  other = await makeTenant(db.db);
  lister = await makeTenant(db.db);
  const ids = {
    newest: await insert({ title: "newest", status: "published", updatedAt: at("5"), publishedAt: at("5") }, lister),
    tieA: await insert({ title: "tie a", status: "draft", updatedAt: at("3") }, lister),
    tieB: await insert({ title: "tie b", status: "draft", updatedAt: at("3") }, lister),
    oldest: await insert({ title: "oldest", status: "review", updatedAt: at("1") }, lister),
    undatedA: await insert({ title: "undated a", status: "draft", updatedAt: null }, lister),
    undatedB: await insert({ title: "undated b", status: "review", updatedAt: null }, lister),
    undatedC: await insert({ title: "undated c", status: "external", updatedAt: null }, lister),
  };
  // Never listed: the shared blog and the planned status.
  await insert({ title: "shared", blog: "shared", status: "published", updatedAt: at("9") }, lister);
  await insert({ title: "handed off", status: "handed_off", updatedAt: at("9") }, lister);
  const desc = (a: string, b: string) => (a < b ? 1 : -1);
  expectedOrder = [
    ids.newest,
    ...[ids.tieA, ids.tieB].sort(desc),
    ids.oldest,
    ...[ids.undatedA, ids.undatedB, ids.undatedC].sort(desc),
  ];
});
afterAll(async () => db.drop());

describe("GET /articles", () => {
  it("lists summaries newest first, undated last, ties by id descending, without content or publication", async () => {
    const r = await call("GET", "/articles", { key: lister.key });
    expect(r.status).toBe(200);
    expect(r.body.next_cursor).toBeNull();
    expect(r.body.data.map((a: { id: string }) => a.id)).toEqual(expectedOrder);
    const first = r.body.data[0];
    expect(Object.keys(first).sort()).toEqual(
      [
        "cover_image_url",
        "created_at",
        "id",
        "keyword",
        "locale",
        "meta_description",
        "meta_title",
        "published_at",
        "slug",
        "status",
        "title",
        "updated_at",
        "word_count",
      ].sort(),
    );
    expect(first).toMatchObject({
      title: "newest",
      status: "published",
      updated_at: "2026-10-05T10:00:00.000Z",
      published_at: "2026-10-05T10:00:00.000Z",
      word_count: 0,
    });
    expect(r.body.data.at(-1).updated_at).toBeNull();
  });

  it("walks every article exactly once with a cursor across the undated boundary", async () => {
    for (const limit of [1, 2, 3, 4]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const q: string = `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
        const r = await call("GET", `/articles${q}`, { key: lister.key });
        expect(r.status).toBe(200);
        expect(r.body.data.length).toBeLessThanOrEqual(limit);
        seen.push(...r.body.data.map((a: { id: string }) => a.id));
        cursor = r.body.next_cursor;
        pages++;
      } while (cursor && pages < 20);
      expect(seen, `limit ${limit}`).toEqual(expectedOrder);
    }
  });

  it("defaults to 25 per page", async () => {
    const many = await makeTenant(db.db);
    for (let i = 0; i < 27; i++)
      await insert({ title: `n${i}`, updatedAt: new Date(Date.UTC(2026, 0, 1, 0, i)) }, many);
    const r = await call("GET", "/articles", { key: many.key });
    expect(r.body.data).toHaveLength(25);
    const next = await call("GET", `/articles?cursor=${encodeURIComponent(r.body.next_cursor)}`, { key: many.key });
    expect(next.body.data).toHaveLength(2);
    expect(next.body.next_cursor).toBeNull();
  });

  it("filters by status, and the cursor is bound to the filter", async () => {
    const r = await call("GET", "/articles?status=draft&limit=1", { key: lister.key });
    expect(r.status).toBe(200);
    expect(r.body.data.map((a: { status: string }) => a.status)).toEqual(["draft"]);
    const rest = await call("GET", `/articles?status=draft&cursor=${encodeURIComponent(r.body.next_cursor)}`, {
      key: lister.key,
    });
    expect([...r.body.data, ...rest.body.data].map((a: { title: string }) => a.title).sort()).toEqual([
      "tie a",
      "tie b",
      "undated a",
    ]);
    const switched = await call("GET", `/articles?status=review&cursor=${encodeURIComponent(r.body.next_cursor)}`, {
      key: lister.key,
    });
    expect(switched.status).toBe(422);
    expect(switched.body.errors[0].field).toBe("/cursor");
  });

  it.each(["handed_off", "deleted", "DRAFT", ""])("refuses status=%s with 422 on /status", async (status) => {
    const r = await call("GET", `/articles?status=${status}`, { key: lister.key });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("validation_failed");
    expect(r.body.errors.map((e: { field: string }) => e.field)).toContain("/status");
  });

  it("keeps articles updated strictly after a date or date-time", async () => {
    const titles = async (v: string) =>
      (await call("GET", `/articles?updated_after=${encodeURIComponent(v)}`, { key: lister.key })).body.data.map(
        (a: { title: string }) => a.title,
      );
    expect(await titles("2026-10-03T10:00:00Z")).toEqual(["newest"]);
    const justBefore = await titles("2026-10-03T09:59:59.999Z");
    expect(justBefore[0]).toBe("newest");
    expect(justBefore.slice(1).sort()).toEqual(["tie a", "tie b"]);
    expect(await titles("2026-10-03")).toHaveLength(3);
    expect(await titles("2026-10-03T12:00:00+03:00")).toHaveLength(3);
  });

  it.each(["yesterday", "2026-13-01", "2026-10-03T10:00:00"])(
    "refuses updated_after=%s with 422 on /updated_after",
    async (v) => {
      const r = await call("GET", `/articles?updated_after=${encodeURIComponent(v)}`, { key: lister.key });
      expect(r.status).toBe(422);
      expect(r.body.errors.map((e: { field: string }) => e.field)).toContain("/updated_after");
    },
  );

  it("refuses include_deleted=true as not_supported and accepts false", async () => {
    const r = await call("GET", "/articles?include_deleted=true", { key: lister.key });
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual([expect.objectContaining({ field: "/include_deleted", code: "not_supported" })]);
    const f = await call("GET", "/articles?include_deleted=false", { key: lister.key });
    expect(f.status).toBe(200);
    expect(f.body.data).toHaveLength(expectedOrder.length);
  });

  it("refuses unknown query parameters", async () => {
    const r = await call("GET", "/articles?sort=title", { key: lister.key });
    expect(r.status).toBe(422);
    expect(r.body.errors.map((e: { field: string }) => e.field)).toContain("/sort");
  });

  it("shows only the caller's own articles", async () => {
    const r = await call("GET", "/articles", { key: other.key });
    const mine = new Set(expectedOrder);
    expect(r.body.data.some((a: { id: string }) => mine.has(a.id))).toBe(false);
  });
});

describe("GET /articles/{id}", () => {
  let hostile: string;
  beforeAll(async () => {
    hostile = await insert({ title: "Hostile HTML sample", slug: "hostile", status: "review", bodyHtml: HOSTILE });
  });
  const get = (id: string, q = "", key = t.key) => call("GET", `/articles/${id}${q}`, { key });

  it("answers the cleaned HTML by default, with no-store and every field", async () => {
    const r = await get(hostile);
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.body).toMatchObject({
      id: hostile,
      title: "Hostile HTML sample",
      slug: "hostile",
      status: "review",
      publication: null,
      published_at: null,
      word_count: 0,
    });
    expect(r.body.content).toBe("<p>Hi</p><a>x</a><p>styled</p>");
  });

  it.each(["", "?format=html", "?format=markdown", "?format=blocks"])(
    "leaves nothing dangerous of the hostile sample (%s)",
    async (q) => {
      const r = await get(hostile, q);
      expect(r.status).toBe(200);
      expect(r.headers.get("cache-control")).toBe("no-store");
      const text = typeof r.body.content === "string" ? r.body.content : JSON.stringify(r.body.content);
      expect(text).toContain("Hi");
      for (const bad of [/<script/i, /alert\(1\)/, /onclick/i, /onerror/i, /javascript:/i, /data:/i, /style=/i])
        expect(text).not.toMatch(bad);
    },
  );

  it("answers blocks as {type, html} only, per top-level element", async () => {
    const r = await get(hostile, "?format=blocks");
    expect(r.body.content).toEqual([
      { type: "paragraph", html: "<p>Hi</p>" },
      { type: "html", html: "<a>x</a>" },
      { type: "paragraph", html: "<p>styled</p>" },
    ]);
  });

  it("answers markdown with a GFM table made from an HTML table", async () => {
    const id = await insert({
      bodyHtml: `<h2>Sizes</h2><table><thead><tr><th>EU</th><th>US</th></tr></thead><tbody><tr><td>42</td><td>9</td></tr></tbody></table>`,
    });
    const r = await get(id, "?format=markdown");
    expect(r.status).toBe(200);
    expect(r.body.content).toBe("## Sizes\n\n| EU | US |\n| --- | --- |\n| 42 | 9 |");
  });

  it("converts an editor document: one html block in blocks, text escaped", async () => {
    const id = await insert({
      status: "draft",
      locale: "ru",
      bodyDoc: {
        type: "doc",
        content: [
          { type: "heading", attrs: { level: 2 }, content: [{ type: "text", text: "Care" }] },
          { type: "paragraph", content: [{ type: "text", text: "<script>alert(1)</script> & dry" }] },
        ],
      },
    });
    const expected = "<h2>Care</h2><p>&lt;script&gt;alert(1)&lt;/script&gt; &amp; dry</p>";
    const blocks = await get(id, "?format=blocks");
    expect(blocks.status).toBe(200);
    expect(blocks.body.content).toEqual([{ type: "html", html: expected }]);
    expect((await get(id)).body.content).toBe(expected);
    const md = (await get(id, "?format=markdown")).body.content as string;
    expect(md).toContain("## Care");
    expect(md).not.toMatch(/(^|[^\\])<script/);
  });

  it("answers a transferred article with empty content in every format", async () => {
    const id = await insert({ status: "transferred", bodyHtml: "<p>moved</p>" });
    expect((await get(id)).body.content).toBe("");
    expect((await get(id, "?format=markdown")).body.content).toBe("");
    expect((await get(id, "?format=blocks")).body.content).toEqual([]);
  });

  it("answers the publication record and timestamps", async () => {
    const id = await insert({
      status: "published",
      wordCount: 812,
      publishedAt: new Date("2026-10-01T08:30:00.000Z"),
      updatedAt: new Date("2026-10-02T08:30:00.000Z"),
      publication: {
        target: "connector",
        state: "applied",
        published_url: "https://shop.example.ru/blog/fit",
        error: null,
      },
      bodyHtml: "<p>Fit</p>",
    });
    const r = await get(id);
    expect(r.body).toMatchObject({
      word_count: 812,
      published_at: "2026-10-01T08:30:00.000Z",
      updated_at: "2026-10-02T08:30:00.000Z",
      publication: {
        target: "connector",
        state: "applied",
        published_url: "https://shop.example.ru/blog/fit",
        error: null,
      },
    });
  });

  describe("2,000,000-byte limit", () => {
    let atLimit: string;
    let overLimit: string;
    beforeAll(async () => {
      const exact = `<p>${"a".repeat(2_000_000 - 7)}</p>`;
      expect(Buffer.byteLength(exact)).toBe(2_000_000);
      atLimit = await insert({ bodyHtml: exact });
      const over = `<p>${"ж".repeat(999_997)}</p>`; // "ж" is 2 bytes: the limit counts UTF-8 bytes, not characters
      expect(Buffer.byteLength(over)).toBe(2_000_001);
      expect(over.length).toBeLessThan(2_000_000);
      overLimit = await insert({ bodyHtml: over });
    });

    it.each(["html", "markdown", "blocks"])("answers 422 on /content over the limit (%s)", async (format) => {
      const r = await get(overLimit, `?format=${format}`);
      expect(r.status).toBe(422);
      expect(r.body.code).toBe("validation_failed");
      expect(r.body.errors).toEqual([expect.objectContaining({ field: "/content", code: "too_large" })]);
    });

    it("answers exactly 2,000,000 bytes", async () => {
      const r = await get(atLimit);
      expect(r.status).toBe(200);
      expect(r.body.content).toHaveLength(2_000_000);
    });

    it("counts a converted editor document", async () => {
      const id = await insert({
        bodyDoc: {
          type: "doc",
          content: [{ type: "paragraph", content: [{ type: "text", text: "<".repeat(500_000) }] }],
        },
      });
      const r = await get(id, "?format=blocks"); // 500,000 "<" become 2,000,000 bytes of "&lt;", plus the <p> tags
      expect(r.status).toBe(422);
      expect(r.body.errors[0].field).toBe("/content");
    });
  });

  it.each(["pdf", "HTML", ""])("refuses format=%s with 422 on /format", async (format) => {
    const r = await get(hostile, `?format=${format}`);
    expect(r.status).toBe(422);
    expect(r.body.errors.map((e: { field: string }) => e.field)).toContain("/format");
  });

  it("refuses unknown query parameters", async () => {
    const r = await get(hostile, "?fields=title");
    expect(r.status).toBe(422);
    expect(r.body.errors.map((e: { field: string }) => e.field)).toContain("/fields");
  });

  it("answers 404 for a shared-blog article, a planned status, a missing id and a non-uuid", async () => {
    const shared = await insert({ blog: "shared", status: "published", bodyHtml: "<p>shared</p>" });
    const handedOff = await insert({ status: "handed_off", bodyHtml: "<p>h</p>" });
    for (const id of [shared, handedOff, crypto.randomUUID(), "not-a-uuid"]) {
      const r = await get(id);
      expect(r.status, id).toBe(404);
      expect(r.body.code).toBe("not_found");
    }
  });

  it("answers another tenant's article exactly like a missing one", async () => {
    const foreign = await insert({ bodyHtml: "<p>theirs</p>" }, other);
    const theirs = await get(foreign, "", other.key);
    expect(theirs.status).toBe(200);
    const r = await get(foreign);
    const missing = await get(crypto.randomUUID());
    expect(r.status).toBe(404);
    expect({ ...r.body, instance: undefined, request_id: undefined }).toEqual({
      ...missing.body,
      instance: undefined,
      request_id: undefined,
    });
    const rows = await db.db.select().from(articles).where(eq(articles.id, foreign));
    expect(rows[0].tenantId).toBe(other.tenantId);
  });

  it("needs the articles:read scope", async () => {
    const noScope = await makeTenant(db.db, { scopes: ["cards:read"] });
    const id = await insert({ bodyHtml: "<p>x</p>" }, noScope);
    for (const path of ["/articles", `/articles/${id}`]) {
      const r = await call("GET", path, { key: noScope.key });
      expect(r.status).toBe(403);
      expect(r.body.code).toBe("scope_missing");
    }
  });
});
