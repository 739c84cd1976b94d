import { describe, expect, it } from "vitest";
import { catalogModel, detectLanguage, rankCards } from "./catalog-model";
import { costMinor, maxCostMinor } from "./prices";

const cards = [
  { code: "socks", name: "Wool socks", description: "Warm winter socks", badge: null, priceText: "990 ₽" },
  {
    code: "jacket",
    name: "Rain jacket",
    description: "Light jacket for rain; куртка от дождя",
    badge: "New",
    priceText: null,
  },
  { code: "mug", name: "Coffee mug", description: null, badge: null, priceText: null },
];

describe("the catalog seller", () => {
  it("answers in the customer's language with up to 3 matching cards, deterministically", async () => {
    const m = catalogModel();
    const input = { shopName: "Shop", turns: [{ role: "customer" as const, content: "Нужна куртка от дождя" }], cards };
    const a = await m.reply(input);
    expect(a.cardCodes[0]).toBe("jacket");
    expect(a.content).toMatch(/Посмотрите/);
    expect(a.inputTokens).toBeGreaterThan(10);
    expect(a.outputTokens).toBeGreaterThan(3);
    expect(await m.reply(input)).toEqual(a);
    const en = await m.reply({ ...input, turns: [{ role: "customer", content: "warm socks please" }] });
    expect(en.content).toMatch(/^Have a look at: Wool socks \(990 ₽\)/);
    const id = await m.reply({ ...input, turns: [{ role: "customer", content: "berapa harga mug ini" }] });
    expect(id.content).toMatch(/Silakan lihat/);
    const none = await m.reply({ ...input, turns: [{ role: "customer", content: "hello" }] });
    expect(none.cardCodes).toEqual([]);
    expect(none.content).toContain("Shop catalog");
  });

  it("detects languages and ranks by relevance", () => {
    expect(detectLanguage("Привет")).toBe("ru");
    expect(detectLanguage("saya mau beli")).toBe("id");
    expect(detectLanguage("hi")).toBe("en");
    expect(rankCards(cards, "coffee").map((c) => c.code)).toEqual(["mug"]);
    expect(rankCards(cards, "")).toEqual([]);
    // Queries in turn on one index: the first that finds a card answers.
    expect(rankCards(cards, "hello", "coffee").map((c) => c.code)).toEqual(["mug"]);
    expect(rankCards(cards, "coffee", "socks").map((c) => c.code)).toEqual(["mug"]);
    expect(rankCards(cards, "", "hello")).toEqual([]);
  });

  it("prices tokens from the table in kopecks, rounding up", () => {
    expect(costMinor("catalog-1", { inputTokens: 1, outputTokens: 0 })).toBe(1n);
    expect(costMinor("catalog-1", { inputTokens: 1_000_000, outputTokens: 1_000_000 })).toBe(25_000n);
    expect(maxCostMinor("catalog-1")).toBe(40n);
    expect(costMinor("unknown-model", { inputTokens: 1_000_000, outputTokens: 0 })).toBe(25_000n);
  });
});
