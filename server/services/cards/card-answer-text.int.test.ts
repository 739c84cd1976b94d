import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isoText } from "@/db/iso-text";
import { rowsOf } from "@/db/rows";
import { products } from "@/db/schema";
import { makeTenant } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";

// Migration 0017: the trigger `card_answer_text` writes each card's JSON record when the row is written
// (server/services/cards/card-view.ts CARD_JSON). It must be the text the reads built before: row_to_json of
// the card's columns in this order, moments through isoText. Asserted here against that expression, on
// inserts and on updates, for cards with every field set, none set, buttons, a price beyond 2^53 and text
// that JSON escapes.
const BUILT_ON_READ = sql<string>`row_to_json(card_row)::text`;
const CARD_ROW = sql`${products} cross join lateral (select ${products.id} as id, ${products.code} as code,
  ${products.name} as name, ${products.description} as description, ${products.imageUrl} as image_url,
  ${products.priceText} as price_text, ${products.badge} as badge, ${products.pageUrl} as page_url,
  ${products.buttons} as buttons, ${products.aiEnabled} as ai_enabled, ${products.sort} as sort,
  ${products.active} as active, ${isoText(products.createdAt)} as created_at,
  ${isoText(products.updatedAt)} as updated_at, ${products.priceMinor}::text as price_minor,
  ${products.currency} as currency) card_row`;

describe("card_answer_text", () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let tenantId: string;
  beforeAll(async () => {
    database = await openTestDatabase();
    tenantId = (await makeTenant(database.db)).tenantId;
  });
  afterAll(() => database.drop());

  const stored = async () =>
    rowsOf<{ code: string | null; stored: string | null; built: string }>(
      await database.db.execute(sql`select ${products.code} as code, ${products.apiJson} as stored,
        ${BUILT_ON_READ} as built from ${CARD_ROW} where ${products.tenantId} = ${tenantId} order by code`),
    );

  it("writes on insert the text the read used to build", async () => {
    await database.db.insert(products).values([
      { tenantId, code: "bare", name: "Bare" },
      {
        tenantId,
        code: "full",
        name: 'Sock "wool" \\ \u00e9\u00e8 \u2603 \n tab\t',
        description: "Warm",
        imageUrl: "https://cdn.example.ru/a.png",
        priceText: "100 ₽",
        badge: "new",
        pageUrl: "/socks",
        buttons: [{ label: "Buy", url: "/buy" }],
        aiEnabled: true,
        sort: -3,
        active: false,
        priceMinor: 9_007_199_254_740_993n,
        currency: "RUB",
        createdAt: new Date("2026-01-02T03:04:05.006Z"),
        updatedAt: new Date("2026-11-25T04:10:15.123Z"),
      },
      { tenantId, code: null, name: "A product without a card" },
    ]);
    const rows = await stored();
    expect(rows).toHaveLength(3);
    for (const r of rows) expect(r.stored).toBe(r.built);
    const full = JSON.parse(rows.find((r) => r.code === "full")!.stored!) as Record<string, unknown>;
    expect(Object.keys(full)).toEqual([
      "id",
      "code",
      "name",
      "description",
      "image_url",
      "price_text",
      "badge",
      "page_url",
      "buttons",
      "ai_enabled",
      "sort",
      "active",
      "created_at",
      "updated_at",
      "price_minor",
      "currency",
    ]);
    expect(full).toMatchObject({
      price_minor: "9007199254740993",
      created_at: "2026-01-02T03:04:05.006Z",
      updated_at: "2026-11-25T04:10:15.123Z",
      buttons: [{ label: "Buy", url: "/buy" }],
    });
  });

  it("writes it again on every update", async () => {
    await database.db
      .update(products)
      .set({ name: "Renamed", updatedAt: new Date("2026-11-28T12:00:00.000Z"), priceMinor: null })
      .where(eq(products.code, "full"));
    const rows = await stored();
    for (const r of rows) expect(r.stored).toBe(r.built);
    const full = JSON.parse(rows.find((r) => r.code === "full")!.stored!) as Record<string, unknown>;
    expect(full).toMatchObject({ name: "Renamed", updated_at: "2026-11-28T12:00:00.000Z", price_minor: null });
  });
});
