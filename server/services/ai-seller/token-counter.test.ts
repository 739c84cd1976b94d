import { execFileSync } from "node:child_process";
import { countTokens as countHere } from "gpt-tokenizer";
import { afterAll, describe, expect, it } from "vitest";
import { countTokens, longestPrefixWithin, stopTokenCounter } from "./token-counter";

const TEXTS = [
  "",
  "Hello world",
  "Привет! Тёплые носки или дождевик?",
  "日本語のテキストも数えます。",
  "emoji 🧦🧥 and combining é",
  "card-1 | Bench card 1 | 100 RUB | Warm wool socks for a cold winter, knitted in the north",
];

afterAll(() => stopTokenCounter());

describe("the token counter's worker thread", () => {
  it("counts as gpt-tokenizer's o200k does, one count per text, in order", async () => {
    expect(await countTokens(TEXTS)).toEqual(TEXTS.map((t) => countHere(t)));
    expect(await countTokens([])).toEqual([]);
  });

  it("finds the longest prefix within a count, cut between characters", async () => {
    const text = "Тёплые носки 🧦 или дождевик 🧥? Warm socks or a rain jacket, which one suits a wet autumn?";
    const head = "user: ";
    for (const allowed of [0, 3, 7, 12, 20, 1000]) {
      const { prefix, tokens } = await longestPrefixWithin(text, head, allowed);
      expect(text.startsWith(prefix)).toBe(true);
      expect(tokens).toBe(countHere(head + prefix));
      if (prefix.length > 0) expect(tokens).toBeLessThanOrEqual(allowed);
      const chars = Array.from(text);
      const next = chars.slice(0, Array.from(prefix).length + 1).join("");
      // One more character would not fit (or there is none).
      if (next !== prefix) expect(countHere(head + next)).toBeGreaterThan(allowed);
    }
  });

  it("replaces a worker that was stopped, and fails a count whose worker exits under it", async () => {
    await stopTokenCounter();
    expect(await countTokens(["Hello world"])).toEqual([2]);
    const long = Array.from({ length: 20_000 }, (_, i) => `line ${i} of a long catalog: warm socks`);
    const pending = countTokens(long);
    await stopTokenCounter();
    await expect(pending).rejects.toThrow(/token counter/);
    expect(await countTokens(["Hello world"])).toEqual([2]);
  });

  it("keeps the tokenizer's tables out of the calling thread's heap", () => {
    // A fresh process, so nothing else (this test file imports gpt-tokenizer itself) is on its heap.
    const script = `
      import v8 from "node:v8";
      import { countTokens, stopTokenCounter } from "./server/services/ai-seller/token-counter.ts";
      const used = () => { globalThis.gc(); return v8.getHeapStatistics().used_heap_size; };
      const before = used();
      const [n] = await countTokens(["warm socks or a rain jacket?"]);
      const after = used();
      await stopTokenCounter();
      console.log(JSON.stringify({ n, grewMb: (after - before) / 1e6 }));
    `;
    const out = execFileSync(
      process.execPath,
      ["--expose-gc", "--import", "tsx", "--input-type=module", "-e", script],
      {
        encoding: "utf8",
      },
    );
    const { n, grewMb } = JSON.parse(out.trim().split("\n").pop()!) as { n: number; grewMb: number };
    expect(n).toBe(countHere("warm socks or a rain jacket?"));
    // gpt-tokenizer loaded in this thread grows it by about 21 MB (bench/HISTORY.md, fourteenth session).
    expect(grewMb).toBeLessThan(5);
  }, 60_000);
});
