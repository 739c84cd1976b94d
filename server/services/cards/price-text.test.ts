import { expect, it } from "vitest";
import { formatPrice } from "./price-text";

// formatPrice keeps the texts it made (a catalogue has few prices): each cell, currency and amount must
// still answer its own text, however often and in whatever order they are asked.
it("answers each cell, currency and amount its own text, asked twice", () => {
  const asks: [bigint, string, string, string][] = [
    [199000n, "RUB", "ru", "1 990 ₽"],
    [199000n, "RUB", "en", "RUB 1,990"],
    [199050n, "RUB", "ru", "1 990,50 ₽"],
    [199000n, "USD", "en", "US$1,990"],
  ];
  for (let round = 0; round < 2; round++)
    for (const [minor, currency, cell, text] of asks) expect(formatPrice(minor, currency, cell)).toBe(text);
});

it("stays right past its 10,000 kept texts", () => {
  for (let i = 0; i < 10_050; i++)
    expect(formatPrice(BigInt(i * 100), "RUB", "ru")).toBe(
      `${i.toLocaleString("ru-RU").replace(/\u00a0|\u202f/g, " ")} ₽`,
    );
});
