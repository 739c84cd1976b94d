import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { products } from "@/db/schema";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { sandboxKey } from "@/server/testing/sandbox-key";
import { openTestDatabase } from "@/server/testing/test-db";

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let other: TenantFixture;
let noDomain: TenantFixture;
let n = 0;

/** POST /cards with a fresh Idempotency-Key. */
const create = (json: unknown, key = t.key) =>
  call("POST", "/cards", { key, json, idempotencyKey: `k-${++n}-${Date.now()}` });

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  other = await makeTenant(db.db);
  noDomain = await makeTenant(db.db, { mainDomain: null });
});
afterAll(async () => db.drop());

describe("POST /cards", () => {
  it("creates a card, expands site paths against the main domain and answers 201", async () => {
    const r = await create({
      code: "shoe-1",
      name: "Shoe",
      page_url: "/p/shoe",
      buttons: [
        { label: "Buy", url: "/cart?sku=1" },
        { label: "Site", url: "https://shop.example.ru/x" },
      ],
      ai_enabled: true,
      sort: 5,
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      code: "shoe-1",
      name: "Shoe",
      description: null,
      image_url: null,
      price_text: null,
      badge: null,
      page_url: "https://shop.example.ru/p/shoe",
      buttons: [
        { label: "Buy", url: "https://shop.example.ru/cart?sku=1" },
        { label: "Site", url: "https://shop.example.ru/x" },
      ],
      ai_enabled: true,
      sort: 5,
      active: true,
    });
    expect(r.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(r.body.created_at)).not.toBeNaN();
    const rows = await db.db.select().from(products).where(eq(products.tenantId, t.tenantId));
    expect(rows.filter((p) => p.code === "shoe-1")).toHaveLength(1);
  });

  it("needs an Idempotency-Key (400 idempotency_key_required) and writes nothing without it", async () => {
    const r = await call("POST", "/cards", { key: t.key, json: { code: "no-key", name: "X" } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("idempotency_key_required");
    const rows = await db.db
      .select()
      .from(products)
      .where(and(eq(products.tenantId, t.tenantId), eq(products.code, "no-key")));
    expect(rows).toHaveLength(0);
  });

  it("answers a taken code with 422 on /code", async () => {
    await create({ code: "taken", name: "A" });
    const r = await create({ code: "taken", name: "B" });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("validation_failed");
    expect(r.body.errors).toEqual([expect.objectContaining({ field: "/code", code: "taken" })]);
  });

  it("leaves no trace of a taken code's request and frees its Idempotency-Key", async () => {
    // The unique index refuses the insert (no lookup first): its transaction rolls back whole.
    expect((await create({ code: "taken-once", name: "A" })).status).toBe(201);
    const idempotencyKey = `taken-retry-${Date.now()}`;
    const refused = await call("POST", "/cards", {
      key: t.key,
      json: { code: "taken-once", name: "B" },
      idempotencyKey,
    });
    expect(refused.status).toBe(422);
    const rows = await db.db
      .select()
      .from(products)
      .where(and(eq(products.tenantId, t.tenantId), eq(products.code, "taken-once")));
    expect(rows.map((p) => p.name)).toEqual(["A"]);
    // The failed run freed the key: once the code is free, the same key and body create the card.
    expect((await call("DELETE", "/cards/taken-once", { key: t.key })).status).toBe(204);
    const retried = await call("POST", "/cards", {
      key: t.key,
      json: { code: "taken-once", name: "B" },
      idempotencyKey,
    });
    expect(retried.status).toBe(201);
    expect(retried.body).toMatchObject({ code: "taken-once", name: "B" });
  });

  it("lets another tenant use the same code", async () => {
    expect((await create({ code: "shared-code", name: "A" })).status).toBe(201);
    expect((await create({ code: "shared-code", name: "B" }, other.key)).status).toBe(201);
  });

  const long = (k: number) => "x".repeat(k);
  const btn = (url: string) => [{ label: "Go", url }];
  it.each([
    ["code with capitals", { code: "Shoe", name: "A" }, "/code"],
    ["code with a space", { code: "a b", name: "A" }, "/code"],
    ["code of 41 chars", { code: long(41), name: "A" }, "/code"],
    ["empty code", { code: "", name: "A" }, "/code"],
    ["missing code", { name: "A" }, "/code"],
    ["missing name", { code: "ok" }, "/name"],
    ["name of 121 chars", { code: "ok", name: long(121) }, "/name"],
    ["description of 501 chars", { code: "ok", name: "A", description: long(501) }, "/description"],
    ["badge of 31 chars", { code: "ok", name: "A", badge: long(31) }, "/badge"],
    ["price_text of 41 chars", { code: "ok", name: "A", price_text: long(41) }, "/price_text"],
    [
      "four buttons",
      { code: "ok", name: "A", buttons: [...btn("/a"), ...btn("/b"), ...btn("/c"), ...btn("/d")] },
      "/buttons",
    ],
    ["javascript: page_url", { code: "ok", name: "A", page_url: "javascript:alert(1)" }, "/page_url"],
    ["data: page_url", { code: "ok", name: "A", page_url: "data:text/html,hi" }, "/page_url"],
    ["http: page_url", { code: "ok", name: "A", page_url: "http://shop.example.ru/p" }, "/page_url"],
    ["scheme-relative page_url", { code: "ok", name: "A", page_url: "//evil.example/p" }, "/page_url"],
    ["relative page_url without /", { code: "ok", name: "A", page_url: "p/1" }, "/page_url"],
    ["javascript: button url", { code: "ok", name: "A", buttons: btn("javascript:alert(1)") }, "/buttons/0/url"],
    ["http: button url", { code: "ok", name: "A", buttons: btn("http://x.example") }, "/buttons/0/url"],
    ["button without label", { code: "ok", name: "A", buttons: [{ url: "/a" }] }, "/buttons/0/label"],
    ["data: image", { code: "ok", name: "A", image_url: "data:image/png;base64,AAAA" }, "/image_url"],
    ["http: image", { code: "ok", name: "A", image_url: "http://cdn.example/a.png" }, "/image_url"],
    [
      "foreign storage path",
      { code: "ok", name: "A", image_url: "/storage/00000000-0000-0000-0000-000000000000/a.png" },
      "/image_url",
    ],
    [
      "foreign storage address of this cell",
      { code: "ok", name: "A", image_url: "https://api.example.ru/storage/00000000-0000-0000-0000-000000000000/a.png" },
      "/image_url",
    ],
    ["sort not an integer", { code: "ok", name: "A", sort: 1.5 }, "/sort"],
    ["ai_enabled as a string", { code: "ok", name: "A", ai_enabled: "yes" }, "/ai_enabled"],
    ["unknown field", { code: "ok", name: "A", colour: "red" }, "/colour"],
    ["read-only id", { code: "ok", name: "A", id: "00000000-0000-0000-0000-000000000000" }, "/id"],
  ])("refuses %s with 422 on the field", async (_name, body, field) => {
    const r = await create(body);
    expect(r.status).toBe(422);
    expect(r.headers.get("content-type")).toBe("application/problem+json");
    expect(r.body.code).toBe("validation_failed");
    expect(r.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    for (const e of r.body.errors)
      expect(e).toEqual({ field: expect.any(String), code: expect.any(String), message: expect.any(String) });
    const rows = await db.db
      .select()
      .from(products)
      .where(and(eq(products.tenantId, t.tenantId), eq(products.code, "ok")));
    expect(rows).toHaveLength(0);
  });

  it("accepts limits exactly at their maximum", async () => {
    const r = await create({
      code: long(40),
      name: long(120),
      description: long(500),
      badge: long(30),
      price_text: long(40),
      buttons: [...btn("/a"), ...btn("/b"), ...btn("https://x.example/c")],
    });
    expect(r.status).toBe(201);
  });

  it("accepts an image in the tenant's own storage", async () => {
    const r = await create({ code: "own-image", name: "A", image_url: `/storage/${t.tenantId}/a.png` });
    expect(r.status).toBe(201);
    expect(r.body.image_url).toBe(`/storage/${t.tenantId}/a.png`);
  });

  it("refuses a site path when the tenant has no main domain", async () => {
    const r = await create({ code: "p", name: "A", page_url: "/p" }, noDomain.key);
    expect(r.status).toBe(422);
    expect(r.body.errors[0].field).toBe("/page_url");
    expect((await create({ code: "p", name: "A", page_url: "https://x.example/p" }, noDomain.key)).status).toBe(201);
  });
});

describe("price_text", () => {
  it("is derived from the product price when unset, and the set text wins", async () => {
    const [p] = await db.db
      .insert(products)
      .values({ tenantId: t.tenantId, name: "Priced", priceMinor: 1299000n, currency: "RUB", code: "priced" })
      .returning();
    const r = await call("GET", "/cards/priced", { key: t.key });
    expect(r.status).toBe(200);
    expect(r.body.id).toBe(p.id);
    expect(r.body.price_text.replace(/\s/g, " ")).toBe("12 990 ₽");
    const u = await call("PATCH", "/cards/priced", { key: t.key, json: { price_text: "from 10 000 ₽" } });
    expect(u.body.price_text).toBe("from 10 000 ₽");
  });
});

describe("GET /cards", () => {
  let lt: TenantFixture;
  beforeAll(async () => {
    lt = await makeTenant(db.db);
    for (const [code, sort, ai] of [
      ["c", 2, false],
      ["a", 1, true],
      ["d", 2, true],
      ["b", 1, false],
      ["e", 0, false],
    ] as const) {
      expect((await create({ code, name: code, sort, ai_enabled: ai }, lt.key)).status).toBe(201);
    }
  });

  it("orders by sort, then creation, default page 50", async () => {
    const r = await call("GET", "/cards", { key: lt.key });
    expect(r.status).toBe(200);
    expect(r.body.data.map((c: { code: string }) => c.code)).toEqual(["e", "a", "b", "c", "d"]);
    expect(r.body.next_cursor).toBeNull();
  });

  // `limit` is not in a cursor's filter set (spec "Limits: pagination rules"), and each limit is its own
  // prepared statement (db/prepared.ts literalLimit): a walk may change it between pages.
  it("walks on from the cursor's position when the limit changes between pages", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (const limit of [1, 3, 2, 1]) {
      const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
      const r = await call("GET", `/cards?limit=${limit}${q}`, { key: lt.key });
      expect(r.status).toBe(200);
      seen.push(...r.body.data.map((c: { code: string }) => c.code));
      cursor = r.body.next_cursor;
      if (!cursor) break;
    }
    expect(seen).toEqual(["e", "a", "b", "c", "d"]);
    expect(cursor).toBeNull();
  });

  it("walks pages with the cursor and keeps the filter", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
      const r = await call("GET", `/cards?limit=2${q}`, { key: lt.key });
      expect(r.status).toBe(200);
      expect(r.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.data.map((c: { code: string }) => c.code));
      cursor = r.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(["e", "a", "b", "c", "d"]);
    const ai = await call("GET", "/cards?ai_enabled=true&limit=1", { key: lt.key });
    expect(ai.body.data.map((c: { code: string }) => c.code)).toEqual(["a"]);
    const next = await call("GET", `/cards?ai_enabled=true&limit=1&cursor=${encodeURIComponent(ai.body.next_cursor)}`, {
      key: lt.key,
    });
    expect(next.body.data.map((c: { code: string }) => c.code)).toEqual(["d"]);
    // The cursor is bound to its filter set and its tenant.
    const changed = await call("GET", `/cards?ai_enabled=false&cursor=${encodeURIComponent(ai.body.next_cursor)}`, {
      key: lt.key,
    });
    expect(changed.status).toBe(422);
    expect(changed.body.errors[0].field).toBe("/cursor");
    const foreign = await call("GET", `/cards?ai_enabled=true&cursor=${encodeURIComponent(ai.body.next_cursor)}`, {
      key: t.key,
    });
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors[0].field).toBe("/cursor");
  });

  it.each([
    ["limit=0", "/limit"],
    ["limit=101", "/limit"],
    ["limit=abc", "/limit"],
    ["ai_enabled=maybe", "/ai_enabled"],
    ["cursor=garbage", "/cursor"],
    ["colour=red", "/colour"],
  ])("refuses %s with 422", async (q, field) => {
    const r = await call("GET", `/cards?${q}`, { key: lt.key });
    expect(r.status).toBe(422);
    expect(r.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it("accepts limit=1 and limit=100", async () => {
    expect((await call("GET", "/cards?limit=1", { key: lt.key })).body.data).toHaveLength(1);
    expect((await call("GET", "/cards?limit=100", { key: lt.key })).body.data).toHaveLength(5);
  });

  it("shows each card as GET /cards/{code} does: derived price, expanded addresses, buttons, moments", async () => {
    const lt2 = await makeTenant(db.db);
    await db.db.insert(products).values({
      tenantId: lt2.tenantId,
      name: "Priced",
      description: 'Two lines\nand a "quote"',
      priceMinor: 1299050n,
      currency: "RUB",
      code: "priced",
      pageUrl: "/p/priced",
      badge: "new",
      buttons: [{ label: "Buy", url: "/cart?sku=2" }],
      aiEnabled: true,
      sort: -3,
      createdAt: new Date("2026-01-02T03:04:05.006Z"),
    });
    expect((await create({ code: "plain", name: "Plain", price_text: "from 1 ₽" }, lt2.key)).status).toBe(201);
    const list = await call("GET", "/cards", { key: lt2.key });
    expect(list.body.data.map((c: { code: string }) => c.code)).toEqual(["priced", "plain"]);
    for (const card of list.body.data) {
      expect(card).toEqual((await call("GET", `/cards/${card.code}`, { key: lt2.key })).body);
    }
    const [priced] = list.body.data;
    expect(priced.price_text.replace(/\s/g, " ")).toBe("12 990,50 ₽");
    expect(priced).toMatchObject({
      description: 'Two lines\nand a "quote"',
      page_url: "https://shop.example.ru/p/priced",
      buttons: [{ label: "Buy", url: "https://shop.example.ru/cart?sku=2" }],
      created_at: "2026-01-02T03:04:05.006Z",
      sort: -3,
    });
  });

  // A page is spliced from PostgreSQL's texts (card-view.ts cardText); each card must still read as
  // GET /cards/{code} answers it, with the Card's fields in the spec's order and nothing else.
  it("answers each kind of card as read by code: derived prices, texts that look like fields, no main domain", async () => {
    const fields = [
      ...["id", "code", "name", "description", "image_url", "price_text", "badge", "page_url", "buttons"],
      ...["ai_enabled", "sort", "active", "created_at", "updated_at"],
    ];
    for (const [tenant, domain] of [
      [await makeTenant(db.db), "shop.example.ru"],
      [await makeTenant(db.db, { mainDomain: null }), null],
    ] as const) {
      await db.db.insert(products).values([
        { tenantId: tenant.tenantId, name: "Derived", code: "derived", priceMinor: 1299050n, currency: "RUB", sort: 1 },
        {
          tenantId: tenant.tenantId,
          name: "Whole",
          code: "whole",
          priceMinor: 2_000_000_000_000_00n,
          currency: "RUB",
          sort: 2,
        },
        { tenantId: tenant.tenantId, name: "No currency", code: "no-currency", priceMinor: 500n, sort: 3 },
        {
          tenantId: tenant.tenantId,
          // Texts that look like the card's own keys must not move them.
          name: ',"price_text":null,"price_minor":"1",',
          description: 'a "/path" and ,"buttons":[], in text',
          badge: ',"price_minor":"9","currency":"USD"}',
          code: "lookalike",
          priceMinor: 701n,
          currency: "USD",
          sort: 4,
        },
        {
          tenantId: tenant.tenantId,
          name: "Stored image",
          code: "stored-image",
          imageUrl: `/storage/${tenant.tenantId}/a.png`,
          priceText: "set",
          priceMinor: 100n,
          currency: "RUB",
          sort: 5,
        },
        { tenantId: tenant.tenantId, name: "Site path", code: "site-path", pageUrl: "/p/1", sort: 6 },
        {
          tenantId: tenant.tenantId,
          name: "Buttons",
          code: "buttons",
          buttons: [{ label: "Buy", url: "https://pay.example/buy" }],
          sort: 7,
        },
      ]);
      const list = await call("GET", "/cards", { key: tenant.key });
      expect(list.status).toBe(200);
      expect(list.body.data.map((c: { code: string }) => c.code)).toEqual([
        "derived",
        "whole",
        "no-currency",
        "lookalike",
        "stored-image",
        "site-path",
        "buttons",
      ]);
      for (const card of list.body.data) {
        expect(Object.keys(card)).toEqual(fields);
        expect(card).toEqual((await call("GET", `/cards/${card.code}`, { key: tenant.key })).body);
      }
      const byCode = Object.fromEntries(list.body.data.map((c: { code: string }) => [c.code, c]));
      expect(byCode.derived.price_text.replace(/\s/g, " ")).toBe("12 990,50 ₽");
      expect(byCode.whole.price_text.replace(/\s/g, " ")).toBe("2 000 000 000 000 ₽");
      expect(byCode["no-currency"].price_text).toBeNull();
      expect(byCode.lookalike).toMatchObject({
        name: ',"price_text":null,"price_minor":"1",',
        description: 'a "/path" and ,"buttons":[], in text',
        badge: ',"price_minor":"9","currency":"USD"}',
      });
      expect(byCode.lookalike.price_text.replace(/\s/g, " ")).toMatch(/^7,01 (US)?\$$/);
      expect(byCode["stored-image"]).toMatchObject({
        price_text: "set",
        image_url: `/storage/${tenant.tenantId}/a.png`,
      });
      expect(byCode["site-path"].page_url).toBe(domain ? `https://${domain}/p/1` : "/p/1");
      expect(byCode.buttons.buttons.map((b: object) => Object.keys(b))).toEqual([["label", "url"]]);
    }
  });

  it("never shows products without a card", async () => {
    await db.db.insert(products).values({ tenantId: lt.tenantId, name: "No card" });
    const r = await call("GET", "/cards", { key: lt.key });
    expect(r.body.data.map((c: { name: string }) => c.name)).not.toContain("No card");
  });
});

describe("GET, PATCH and DELETE /cards/{code}", () => {
  it("reads a card and answers another tenant's code as missing", async () => {
    await create({ code: "mine", name: "Mine" });
    expect((await call("GET", "/cards/mine", { key: t.key })).status).toBe(200);
    const foreign = await call("GET", "/cards/mine", { key: other.key });
    const missing = await call("GET", "/cards/never-was", { key: other.key });
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe("not_found");
    expect(missing.status).toBe(404);
    expect((await call("GET", "/cards/NOT%20A%20CODE", { key: t.key })).status).toBe(404);
  });

  it("changes only the given fields, renames, and refuses an empty body", async () => {
    const c = await create({ code: "edit-me", name: "Before", badge: "Old" });
    const r = await call("PATCH", "/cards/edit-me", { key: t.key, json: { name: "After", code: "edited" } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: c.body.id, code: "edited", name: "After", badge: "Old" });
    expect(Date.parse(r.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(c.body.updated_at));
    expect((await call("GET", "/cards/edit-me", { key: t.key })).status).toBe(404);
    const empty = await call("PATCH", "/cards/edited", { key: t.key, json: {} });
    expect(empty.status).toBe(422);
    const nulls = await call("PATCH", "/cards/edited", { key: t.key, json: { badge: null } });
    expect(nulls.body.badge).toBeNull();
  });

  it("applies the same rules on PATCH", async () => {
    await create({ code: "rules", name: "R" });
    await create({ code: "rules-2", name: "R2" });
    const cases: [unknown, string][] = [
      [{ code: "rules-2" }, "/code"],
      [{ page_url: "javascript:alert(1)" }, "/page_url"],
      [{ image_url: "/storage/00000000-0000-0000-0000-000000000000/a.png" }, "/image_url"],
      [
        {
          buttons: [
            { label: "a", url: "/a" },
            { label: "b", url: "/b" },
            { label: "c", url: "/c" },
            { label: "d", url: "/d" },
          ],
        },
        "/buttons",
      ],
      [{ name: "" }, "/name"],
    ];
    for (const [json, field] of cases) {
      const r = await call("PATCH", "/cards/rules", { key: t.key, json });
      expect(r.status, JSON.stringify(json)).toBe(422);
      expect(r.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    expect((await call("PATCH", "/cards/never-was", { key: t.key, json: { name: "x" } })).status).toBe(404);
    expect((await call("PATCH", "/cards/rules", { key: other.key, json: { name: "x" } })).status).toBe(404);
  });

  // A page reads each card's JSON as stored when the row was written (migration 0017, card_answer_text):
  // after a PATCH and a DELETE the list must answer the card as it now is, as GET /cards/{code} does.
  it("lists a card as changed by PATCH and no longer after DELETE", async () => {
    const lt = await makeTenant(db.db);
    expect((await create({ code: "listed", name: "Before", badge: "Old", price_text: "1 ₽" }, lt.key)).status).toBe(
      201,
    );
    const patched = await call("PATCH", "/cards/listed", {
      key: lt.key,
      json: { name: "After", badge: null, price_text: null, sort: 7, buttons: [{ label: "Go", url: "/go" }] },
    });
    expect(patched.status).toBe(200);
    const listed = await call("GET", "/cards", { key: lt.key });
    expect(listed.body.data).toEqual([patched.body]);
    expect(listed.body.data[0]).toMatchObject({
      name: "After",
      badge: null,
      sort: 7,
      buttons: [{ label: "Go", url: "https://shop.example.ru/go" }],
    });
    expect((await call("GET", "/cards/listed", { key: lt.key })).body).toEqual(patched.body);
    expect((await call("DELETE", "/cards/listed", { key: lt.key })).status).toBe(204);
    expect((await call("GET", "/cards", { key: lt.key })).body.data).toEqual([]);
  });

  it("deletes the card and keeps the product; a repeat is 404", async () => {
    const c = await create({
      code: "delete-me",
      name: "Kept product",
      ai_enabled: true,
      buttons: [{ label: "a", url: "/a" }],
    });
    expect((await call("DELETE", "/cards/delete-me", { key: other.key })).status).toBe(404);
    const d = await call("DELETE", "/cards/delete-me", { key: t.key });
    expect(d.status).toBe(204);
    expect(d.text).toBe("");
    const [p] = await db.db.select().from(products).where(eq(products.id, c.body.id));
    expect(p).toMatchObject({ name: "Kept product", code: null, imageUrl: null, buttons: [], aiEnabled: false });
    expect((await call("DELETE", "/cards/delete-me", { key: t.key })).status).toBe(404);
    expect((await call("GET", "/cards/delete-me", { key: t.key })).status).toBe(404);
  });
});

// Issue 69: a test key of a tenant with the preview `test-mode` lives in the tenant's sandbox. Cards of
// one mode are invisible to the other: a read is 404, a list omits them, a write lands in the key's mode.
describe("test mode", () => {
  let live: TenantFixture;
  let sandbox: string;
  const modeOf = async (id: string) =>
    (await db.db.select({ livemode: products.livemode }).from(products).where(eq(products.id, id)))[0]?.livemode;

  beforeAll(async () => {
    live = await makeTenant(db.db);
    sandbox = await sandboxKey(db.db, live);
  });

  it("writes a card in the key's mode; the same code may exist once in each mode", async () => {
    const l = await create({ code: "mode-both", name: "Live one" }, live.key);
    const s = await create({ code: "mode-both", name: "Sandbox one" }, sandbox);
    expect([l.status, s.status]).toEqual([201, 201]);
    expect(s.body.id).not.toBe(l.body.id);
    expect(await modeOf(l.body.id)).toBe(true);
    expect(await modeOf(s.body.id)).toBe(false);
    expect((await call("GET", "/cards/mode-both", { key: live.key })).body.name).toBe("Live one");
    expect((await call("GET", "/cards/mode-both", { key: sandbox })).body.name).toBe("Sandbox one");
    // A code is unique within a mode.
    const again = await create({ code: "mode-both", name: "Twice" }, sandbox);
    expect(again.status).toBe(422);
    expect(again.body.errors).toEqual([expect.objectContaining({ field: "/code", code: "taken" })]);
  });

  it("answers a card of the other mode as missing on GET, PATCH and DELETE, and leaves it unchanged", async () => {
    const l = await create({ code: "mode-live-only", name: "Live" }, live.key);
    const s = await create({ code: "mode-sandbox-only", name: "Sandbox" }, sandbox);
    for (const [code, key] of [
      ["mode-live-only", sandbox],
      ["mode-sandbox-only", live.key],
    ] as const) {
      for (const r of [
        await call("GET", `/cards/${code}`, { key }),
        await call("PATCH", `/cards/${code}`, { key, json: { name: "Changed" } }),
        await call("DELETE", `/cards/${code}`, { key }),
      ]) {
        expect(r.status).toBe(404);
        expect(r.body.code).toBe("not_found");
      }
    }
    const rows = await db.db.select().from(products).where(eq(products.tenantId, live.tenantId));
    expect(rows.find((p) => p.id === l.body.id)).toMatchObject({ code: "mode-live-only", name: "Live" });
    expect(rows.find((p) => p.id === s.body.id)).toMatchObject({ code: "mode-sandbox-only", name: "Sandbox" });
  });

  it("changes and deletes a card of the key's own mode only", async () => {
    await create({ code: "mode-edit", name: "Live" }, live.key);
    const s = await create({ code: "mode-edit", name: "Sandbox" }, sandbox);
    const p = await call("PATCH", "/cards/mode-edit", { key: sandbox, json: { name: "Sandbox changed" } });
    expect(p.body).toMatchObject({ id: s.body.id, name: "Sandbox changed" });
    expect((await call("GET", "/cards/mode-edit", { key: live.key })).body.name).toBe("Live");
    // A rename onto a code the other mode uses is no clash.
    await create({ code: "mode-live-code", name: "Live" }, live.key);
    const renamed = await call("PATCH", "/cards/mode-edit", { key: sandbox, json: { code: "mode-live-code" } });
    expect(renamed.status).toBe(200);
    expect((await call("DELETE", "/cards/mode-live-code", { key: sandbox })).status).toBe(204);
    expect((await call("GET", "/cards/mode-live-code", { key: live.key })).body.name).toBe("Live");
    expect((await call("GET", "/cards/mode-edit", { key: live.key })).body.name).toBe("Live");
  });

  it("lists only the cards of the key's mode", async () => {
    await create({ code: "mode-list-live", name: "Live" }, live.key);
    await create({ code: "mode-list-sandbox", name: "Sandbox" }, sandbox);
    const listed = async (key: string) => {
      const r = await call("GET", "/cards?limit=100", { key });
      expect(r.status).toBe(200);
      return r.body.data as { id: string; code: string }[];
    };
    const liveCards = await listed(live.key);
    const sandboxCards = await listed(sandbox);
    expect(liveCards.map((c) => c.code)).toContain("mode-list-live");
    expect(liveCards.map((c) => c.code)).not.toContain("mode-list-sandbox");
    expect(sandboxCards.map((c) => c.code)).toContain("mode-list-sandbox");
    expect(sandboxCards.map((c) => c.code)).not.toContain("mode-list-live");
    // Every card listed is a row of the key's mode.
    expect(await Promise.all(liveCards.map((c) => modeOf(c.id)))).toEqual(liveCards.map(() => true));
    expect(await Promise.all(sandboxCards.map((c) => modeOf(c.id)))).toEqual(sandboxCards.map(() => false));
  });
});
