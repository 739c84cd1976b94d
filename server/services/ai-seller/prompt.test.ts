import { describe, expect, it } from "vitest";
import { catalogModel } from "./catalog-model";
import type { ChatTurn, SellerCard } from "./language-model";
import { costMinor, MAX_INPUT_TOKENS, maxCostMinor } from "./prices";
import { buildPrompt, promptTokens } from "./prompt";

const card = (i: number): SellerCard => ({
  code: `card-${i}`,
  name: `Bench card ${i}`,
  description: i % 2 ? "Warm wool socks for a cold winter, knitted in the north" : null,
  badge: null,
  priceText: "100 RUB",
});
const turn = (i: number): ChatTurn => ({
  role: i % 2 ? "ai" : "customer",
  content: `turn ${i}: warm socks or a rain jacket? Have a look at: Bench card (100 RUB). Shall I tell you more?`,
});
const catalogOf = (system: string) => system.split("\n").slice(3);

describe("the AI seller's prompt", () => {
  it("holds everything, in order, when it fits", async () => {
    const cards = [card(1), card(2), card(3)];
    const turns = [turn(0), turn(1), turn(2)];
    const p = await buildPrompt({ shopName: "Shop", turns, cards });
    expect(p.messages[0]!.role).toBe("system");
    expect(p.messages[0]!.content.split("\n").slice(0, 3)).toEqual([
      "You are the sales assistant of an online shop. Recommend at most 3 cards of the catalog.",
      "Shop: Shop",
      "Catalog:",
    ]);
    expect(catalogOf(p.messages[0]!.content)).toEqual([
      "card-1 | Bench card 1 | 100 RUB | Warm wool socks for a cold winter, knitted in the north",
      "card-2 | Bench card 2 | 100 RUB",
      "card-3 | Bench card 3 | 100 RUB | Warm wool socks for a cold winter, knitted in the north",
    ]);
    expect(p.messages.slice(1)).toEqual([
      { role: "user", content: turns[0]!.content },
      { role: "assistant", content: turns[1]!.content },
      { role: "user", content: turns[2]!.content },
    ]);
    expect(p.tokens).toBe(await promptTokens(p.messages));
  });

  it("stays within MAX_INPUT_TOKENS with a large catalog: the last message, the picks first, newer turns kept", async () => {
    const cards = Array.from({ length: 1000 }, (_, i) => card(i));
    const turns = Array.from({ length: 21 }, (_, i) => turn(i));
    const picks = [cards[700]!, cards[3]!];
    const p = await buildPrompt({ shopName: "Shop", turns, cards }, picks);
    expect(p.tokens).toBe(await promptTokens(p.messages));
    expect(p.tokens).toBeLessThanOrEqual(MAX_INPUT_TOKENS);
    // Not far under it either: the space is used.
    expect(p.tokens).toBeGreaterThan(MAX_INPUT_TOKENS * 0.95);
    const catalog = catalogOf(p.messages[0]!.content);
    expect(catalog.slice(0, 2).map((l) => l.split(" | ")[0])).toEqual(["card-700", "card-3"]);
    expect(catalog.length).toBeGreaterThan(50);
    expect(catalog.length).toBeLessThan(1000);
    // The rest of the catalog in the input's order, the picks not twice.
    const rest = catalog.slice(2).map((l) => l.split(" | ")[0]);
    expect(rest.slice(0, 4)).toEqual(["card-0", "card-1", "card-2", "card-4"]);
    expect(new Set(catalog).size).toBe(catalog.length);
    const said = p.messages.slice(1).map((m) => m.content);
    expect(said[said.length - 1]).toBe(turns[20]!.content);
    // The turns kept are the newest, oldest first, with none skipped between them.
    const first = turns.findIndex((t) => t.content === said[0]);
    expect(said).toEqual(turns.slice(first).map((t) => t.content));
  });

  it("gives older turns at most half of the room the catalog could use", async () => {
    const cards = Array.from({ length: 1000 }, (_, i) => card(i));
    const turns = Array.from({ length: 201 }, (_, i) => turn(i));
    const p = await buildPrompt({ shopName: "Shop", turns, cards });
    const systemTokens = await promptTokens([p.messages[0]!]);
    expect(p.tokens).toBeLessThanOrEqual(MAX_INPUT_TOKENS);
    expect(systemTokens).toBeGreaterThan(MAX_INPUT_TOKENS * 0.45);
    expect(p.messages.length - 1).toBeLessThan(201);
    expect(p.messages.length - 1).toBeGreaterThan(20);
  });

  it("cuts a last message that alone is too long", async () => {
    const long: ChatTurn = { role: "customer", content: "🧦".repeat(4000) };
    const p = await buildPrompt({ shopName: "Shop", turns: [turn(1), long], cards: [card(1)] });
    expect(await promptTokens([{ role: "user", content: long.content }])).toBeGreaterThan(MAX_INPUT_TOKENS);
    expect(p.tokens).toBeLessThanOrEqual(MAX_INPUT_TOKENS);
    expect(p.tokens).toBe(await promptTokens(p.messages));
    const last = p.messages[p.messages.length - 1]!;
    expect(last.role).toBe("user");
    expect(long.content.startsWith(last.content.slice(0, 100))).toBe(true);
  });

  it("cuts at a character, the same way however often it cuts (no broken character carried to the next prompt)", async () => {
    const long: ChatTurn = { role: "customer", content: "🧦a".repeat(3000) };
    for (const shopName of ["Shop AB", "Shop", "Магазин у дома"]) {
      const p = await buildPrompt({ shopName, turns: [long], cards: [card(1)] });
      const said = p.messages[p.messages.length - 1]!.content;
      expect(p.tokens).toBeLessThanOrEqual(MAX_INPUT_TOKENS);
      expect(said).not.toContain("\uFFFD");
      expect(long.content.startsWith(said)).toBe(true);
      expect(said.length).toBeGreaterThan(1000);
    }
  });

  it("writes a card on one line and cuts a shop name that would not fit", async () => {
    const multiline = { ...card(1), description: "Warm\nwool\r\n  socks" };
    const p = await buildPrompt({ shopName: "Shop ".repeat(5000), turns: [turn(0)], cards: [multiline, card(2)] });
    expect(p.tokens).toBeLessThanOrEqual(MAX_INPUT_TOKENS);
    expect(p.messages[0]!.content.split("\n")[1]!.length).toBeLessThanOrEqual(206);
    expect(catalogOf(p.messages[0]!.content)).toEqual([
      "card-1 | Bench card 1 | 100 RUB | Warm wool socks",
      "card-2 | Bench card 2 | 100 RUB",
    ]);
    expect(p.messages[1]).toEqual({ role: "user", content: turn(0).content });
  });

  it("the catalog seller's usage never costs more than the hold", async () => {
    const cards = Array.from({ length: 500 }, (_, i) => card(i));
    const turns = Array.from({ length: 21 }, (_, i) => turn(i));
    const out = await catalogModel().reply({ shopName: "Shop", turns, cards });
    expect(out.cardCodes.length).toBeGreaterThan(0);
    expect(out.inputTokens).toBeLessThanOrEqual(MAX_INPUT_TOKENS);
    expect(costMinor("catalog-1", out)).toBeLessThanOrEqual(maxCostMinor("catalog-1"));
  });
});
