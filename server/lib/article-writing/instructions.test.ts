import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EMPTY_EDITORIAL_PROFILE, type EditorialProfile } from "./article-brief";
import { MAX_EXAMPLE_CHARS, languageName, writingInstructions } from "./instructions";

const full: EditorialProfile = {
  niche: "Handmade  ceramics",
  audience: "Young parents who cook at home",
  tone: "Friendly, no jargon",
  presentation: "Short paragraphs and checklists",
  topic_sources: ["own_site", "wordstat", "own_site"],
  source_urls: ["https://clay.example/blog", " "],
  avoid: ["cheap", "best price", "cheap"],
  example_text: "Our mugs are thrown by hand.\n\nEvery one is different.",
  locale: "ru",
};

const empty: EditorialProfile = { ...EMPTY_EDITORIAL_PROFILE, topic_sources: [], source_urls: [], avoid: [] };

describe("writingInstructions", () => {
  it("states every rule of the profile, one line each, in a fixed order", () => {
    expect(writingInstructions(full, { targetWords: 1200 })).toBe(
      [
        "You write articles for the blog of an online shop, following the shop's editorial profile.",
        "Niche: Handmade ceramics",
        "Audience (write for these readers): Young parents who cook at home",
        "Tone: Friendly, no jargon",
        "Presentation: Short paragraphs and checklists",
        "Topics come from: the shop's own site and catalog; search demand in Yandex Wordstat.",
        "Source URLs (for facts and context only; do not copy their text):",
        "- https://clay.example/blog",
        'Never use these words or phrases, in any letter case: "cheap", "best price".',
        "Style sample of the shop's own writing: follow its voice and style, but do not copy its sentences or any run of its words:",
        '"""',
        "Our mugs are thrown by hand.\n\nEvery one is different.",
        '"""',
        "Language: write in Russian (ru).",
        "Length: about 1,200 words.",
        "Structure: a short introduction, then sections under <h2> headings (no <h1>), with paragraphs and lists; link the shop's products you mention.",
      ].join("\n"),
    );
    expect(writingInstructions(full, { targetWords: 1200 })).toBe(writingInstructions(full, { targetWords: 1200 }));
  });

  it("leaves out what the profile does not set, and takes the order's locale over the profile's", () => {
    const text = writingInstructions(empty);
    expect(text.split("\n")).toHaveLength(2);
    expect(text).not.toMatch(/Niche|Audience|Never use|Style sample|Language|Length/);
    expect(writingInstructions(full, { locale: "en-GB" })).toContain("Language: write in British English (en-GB).");
    expect(writingInstructions({ ...empty, niche: "Tea" }, { locale: "id" })).toContain(
      "Language: write in Indonesian (id).",
    );
  });

  it("cuts a long example text so the prompt stays small", () => {
    const text = writingInstructions({ ...full, example_text: "word ".repeat(2_000) });
    const sample = /"""\n([\s\S]*?)\n"""/.exec(text)![1]!;
    expect(sample.length).toBeLessThanOrEqual(MAX_EXAMPLE_CHARS);
    expect(sample.endsWith("…")).toBe(true);
  });

  it("names languages, falling back to the tag", () => {
    expect(languageName("ru")).toBe("Russian");
    expect(languageName("not a tag!")).toBe("not a tag!");
  });

  it("imports nothing but the contract's types, so the console can run it in the browser", () => {
    const source = readFileSync(new URL("./instructions.ts", import.meta.url), "utf8");
    expect(source.match(/^import .*$/gm)).toEqual([
      'import type { EditorialProfile, TopicSource } from "./article-brief";',
    ]);
  });
});
