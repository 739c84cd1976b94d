import { describe, expect, it } from "vitest";
import { isSpam } from "./spam";

// The documented spam rules of the AI seller (docs/ai-seller.md "When the AI does not answer").

const now = new Date("2026-11-24T12:00:00Z");
const ago = (min: number) => new Date(now.getTime() - min * 60_000);

describe("isSpam", () => {
  it("takes ordinary questions, three links, and a character repeated 29 times", () => {
    expect(isSpam("Do you have warm socks?", [], now)).toBe(false);
    expect(isSpam("see http://a.x https://b.x www.c.x", [], now)).toBe(false);
    expect(isSpam("a".repeat(29), [], now)).toBe(false);
  });

  it("refuses more than 3 links and a character repeated 30 times", () => {
    expect(isSpam("http://a.x http://b.x http://c.x http://d.x", [], now)).toBe(true);
    expect(isSpam(`hi ${"!".repeat(30)}`, [], now)).toBe(true);
  });

  it("refuses a repeat of one of the customer's 3 previous messages of the last 10 minutes, case and spacing ignored", () => {
    const prev = [
      { content: "first", createdAt: ago(1) },
      { content: "Buy  NOW", createdAt: ago(2) },
      { content: "third", createdAt: ago(3) },
      { content: "older", createdAt: ago(4) },
    ];
    expect(isSpam("buy now", prev, now)).toBe(true);
    expect(isSpam("older", prev, now)).toBe(false);
    expect(isSpam("first", [{ content: "first", createdAt: ago(11) }], now)).toBe(false);
    expect(isSpam("first", [{ content: null, createdAt: ago(1) }], now)).toBe(false);
  });
});
