import { afterAll, describe, expect, it } from "vitest";
import { catalogModel } from "@/server/services/ai-seller/catalog-model";
import {
  costMinor,
  MAX_WRITE_INPUT_TOKENS,
  maxWriteCostMinor,
  maxWriteOutputTokens,
} from "@/server/services/ai-seller/prices";
import { countTokens, stopTokenCounter } from "@/server/services/ai-seller/token-counter";
import type { ArticleBrief, EditorialProfile } from "@/server/lib/article-writing/article-brief";
import { countWords, textOfHtml } from "./article-text";
import { briefText } from "./brief-text";
import { draftViolations } from "./draft-check";
import { writingInstructions } from "@/server/lib/article-writing/instructions";
import { offlineWriter } from "./offline-writer";

afterAll(() => stopTokenCounter());

const profile: EditorialProfile & { niche: string } = {
  niche: "Handmade ceramics",
  audience: "Young parents who cook at home",
  tone: "Friendly",
  presentation: "Checklists",
  topic_sources: ["own_site"],
  source_urls: [],
  avoid: [],
  example_text: null,
  locale: null,
};

const cards = Array.from({ length: 5 }, (_, i) => ({
  code: `mug-${i}`,
  name: `Stoneware mug ${i + 1}`,
  description: `A handmade stoneware mug with a double glaze, for tea and coffee, dishwasher safe. `.repeat(4),
  priceText: "1 990 ₽",
  url: `https://clay.example/p/mug-${i}?ref=blog&x="1"`,
}));

const strategist = {
  topics: Array.from({ length: 10 }, (_, i) => `How to care for glazed ceramics, part ${i + 1}`),
  highlights: Array.from(
    { length: 10 },
    (_, i) =>
      `Searches for glazed mugs grew by ${i + 10}% in October, mostly in large cities and among returning buyers`,
  ),
};

const brief = (over: Partial<ArticleBrief> = {}): ArticleBrief => ({
  shopName: "Clay & Co",
  profile,
  topic: null,
  keyword: "ceramic mugs",
  title: null,
  locale: "en",
  targetWords: 1200,
  cards,
  strategist,
  ...over,
});

const writer = offlineWriter();

describe("the offline writer", () => {
  it("writes the same draft for the same brief, and the catalog model writes through it", async () => {
    const a = await writer.write(brief());
    expect(await writer.write(brief())).toEqual(a);
    expect(await catalogModel().write(brief())).toEqual(a);
    expect(a.model).toBe("offline-writer-1");
    expect(writer.model).toBe("offline-writer-1");
  });

  it("writes a structured article: intro, <h2> sections, lists, the cards linked, strategist topics, no <h1>", async () => {
    const d = await writer.write(brief());
    expect(d.html.startsWith("<p>")).toBe(true);
    expect(d.html).not.toMatch(/<h1/i);
    const headings = [...d.html.matchAll(/<h2>(.*?)<\/h2>/g)].map((m) => m[1]);
    expect(headings.length).toBeGreaterThanOrEqual(5);
    expect(headings).toEqual(
      expect.arrayContaining([
        "Ceramic mugs: what matters",
        "How to choose: a checklist",
        "What Clay &amp; Co offers",
        "Related topics",
        "Frequently asked questions",
        "Conclusion",
      ]),
    );
    expect(d.html).toMatch(/<ul>\n<li>/);
    for (const c of cards)
      expect(d.html).toContain(`<a href="${c.url.replace(/&/g, "&amp;").replace(/"/g, "&quot;")}">${c.name}</a>`);
    expect(d.html).toContain("<li>How to care for glazed ceramics, part 1</li>");
    expect(d.html).toContain("From our data: Searches for glazed mugs grew by 10%");
    expect(d.title).toBe("Ceramic mugs: a practical guide");
    expect(d.slug).toBe("ceramic-mugs-a-practical-guide");
    expect(d.wordCount).toBe(countWords(textOfHtml(d.html)));
  });

  it("keeps the length within a quarter of the target, in Russian and English, with and without cards", async () => {
    for (const locale of ["en", "ru"])
      for (const targetWords of [300, 1200, 4000])
        for (const full of [true, false]) {
          const d = await writer.write(
            brief({
              locale,
              targetWords,
              keyword: locale === "ru" ? "керамические кружки" : "ceramic mugs",
              cards: full ? cards : [],
              strategist: full ? strategist : { topics: [], highlights: [] },
              profile: full
                ? { ...profile, niche: "Handmade ceramics for everyday cooking and serving", audience: "x ".repeat(60) }
                : profile,
            }),
          );
          const ratio = d.wordCount / targetWords;
          expect({ locale, targetWords, full, ok: ratio >= 0.75 && ratio <= 1.25 }).toEqual({
            locale,
            targetWords,
            full,
            ok: true,
          });
        }
  });

  it("writes Russian for ru locales (slug transliterated) and English for any other", async () => {
    const ru = await writer.write(brief({ locale: "ru-RU", keyword: "керамические кружки" }));
    expect(ru.title).toBe("Керамические кружки: практическое руководство");
    expect(ru.slug).toBe("keramicheskie-kruzhki-prakticheskoe-rukovodstvo");
    expect(ru.html).toContain("<h2>Как выбрать: чек-лист</h2>");
    expect(textOfHtml(ru.html).match(/[а-яё]+/gi)!.length).toBeGreaterThan(ru.wordCount / 2);
    const asked = await writer.write(brief({ locale: "ru", title: "Как выбрать кружку на каждый день" }));
    expect(asked.title).toBe("Как выбрать кружку на каждый день");
    expect(asked.slug).toBe("kak-vybrat-kruzhku-na-kazhdyy-den");
    const id = await writer.write(brief({ locale: "id" }));
    expect(id.html).toContain("<h2>How to choose: a checklist</h2>");
  });

  it("keeps meta titles within 70 characters and descriptions within 170", async () => {
    const d = await writer.write(
      brief({ title: "A very long title about ceramic mugs ".repeat(5), keyword: "mugs ".repeat(40) }),
    );
    expect(d.metaTitle.length).toBeLessThanOrEqual(70);
    expect(d.metaTitle.length).toBeGreaterThan(40);
    expect(d.metaDescription.length).toBeLessThanOrEqual(170);
    expect(d.metaDescription.length).toBeGreaterThan(60);
    expect(d.slug.length).toBeLessThanOrEqual(120);
  });

  it("never writes a word of the avoid list, in the keyword, the cards or its own templates", async () => {
    const plain = await writer.write(brief({ keyword: "cheap ceramic mugs" }));
    const avoid = ["cheap", "quality", "practical guide", "Dishwasher", "Stoneware mug 2"];
    // Without the list the draft has every one of them: the test below can fail.
    expect(draftViolations(plain, { avoid, example_text: null })).toHaveLength(avoid.length);
    const d = await writer.write(brief({ keyword: "cheap ceramic mugs", profile: { ...profile, avoid } }));
    expect(draftViolations(d, { avoid, example_text: null })).toEqual([]);
    expect(d.title).toBe("Ceramic mugs");
    expect(d.wordCount / 1200).toBeGreaterThan(0.75);
    // The card whose whole name is avoided is left out; the others stay linked.
    expect(d.html).not.toContain(cards[1]!.url.split("?")[0]);
    expect(d.html).toContain(cards[0]!.url.split("?")[0]);
  });

  it("never copies the example text, even when it is the writer's own sentences", async () => {
    const plain = await writer.write(brief());
    // The profile's example text is a stretch of what the writer would otherwise write.
    const example_text = textOfHtml(plain.html).split(" ").slice(40, 120).join(" ");
    expect(draftViolations(plain, { avoid: [], example_text })).toHaveLength(1);
    const d = await writer.write(brief({ profile: { ...profile, example_text } }));
    expect(draftViolations(d, { avoid: [], example_text })).toEqual([]);
    expect(d.wordCount / 1200).toBeGreaterThan(0.75);
  });

  it("counts tokens as a model is charged: the instructions and brief in, the HTML out, within the caps", async () => {
    const b = brief();
    const d = await writer.write(b);
    const [prompt, html] = await countTokens([
      `${writingInstructions(b.profile, { locale: b.locale, targetWords: b.targetWords })}\n\n${briefText(b)}`,
      d.html,
    ]);
    expect(d.inputTokens).toBe(prompt);
    expect(d.outputTokens).toBe(html);
    for (const locale of ["ru", "en"]) {
      const huge = await writer.write(
        brief({
          locale,
          keyword: locale === "ru" ? "керамические кружки" : "ceramic mugs",
          targetWords: 4000,
          profile: {
            ...profile,
            audience: "родители ".repeat(200),
            example_text: "Пример текста магазина. ".repeat(500),
            source_urls: Array.from({ length: 50 }, (_, i) => `https://clay.example/${"a".repeat(200)}/${i}`),
            avoid: Array.from({ length: 300 }, (_, i) => `word${i}`),
          },
        }),
      );
      expect(huge.inputTokens).toBeLessThanOrEqual(MAX_WRITE_INPUT_TOKENS);
      expect(huge.outputTokens).toBeLessThanOrEqual(maxWriteOutputTokens(4000));
      expect(huge.outputTokens).toBeGreaterThan(4000);
    }
  });

  it("is priced: a generation's hold covers the caps", () => {
    expect(maxWriteOutputTokens(1000)).toBe(3_400);
    expect(maxWriteCostMinor("offline-writer-1", 1000)).toBe(
      costMinor("offline-writer-1", { inputTokens: MAX_WRITE_INPUT_TOKENS, outputTokens: 3_400 }),
    );
    // 8,000 × 5,000 + 3,400 × 20,000 per million tokens, rounded up: 108 kopecks.
    expect(maxWriteCostMinor("offline-writer-1", 1000)).toBe(108n);
  });
});
