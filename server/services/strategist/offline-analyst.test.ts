import { describe, expect, it } from "vitest";
import type { AnalystInput } from "@/server/lib/strategist/analyst-io";
import { catalogModel } from "@/server/services/ai-seller/catalog-model";
import {
  costMinor,
  MAX_ANALYST_INPUT_TOKENS,
  MAX_ANALYST_OUTPUT_TOKENS,
  maxAnalystCostMinor,
} from "@/server/services/ai-seller/prices";
import { sampleFigures } from "@/server/testing/strategist-figures";
import { answer, intentsOf, offlineAnalyst, proposeTopics } from "./offline-analyst";

const ask = (question: string, figures = sampleFigures()): AnalystInput => ({
  shopName: "Trail Shop",
  figures,
  turns: [],
  question,
});

describe("the offline analyst", () => {
  it("recognises subjects by English and Russian words", () => {
    expect(intentsOf("Where do my leads come from? Top sources please")).toEqual(["leads", "sources"]);
    expect(intentsOf("Какая воронка и конверсия?")).toEqual(["funnel"]);
    expect(intentsOf("Сравни лиды за эту неделю")).toEqual(["leads", "compare"]);
    expect(intentsOf("Which article brings traffic?")).toEqual(["articles"]);
    expect(intentsOf("Предложи тему для блога")).toEqual(["articles", "topics"]);
    expect(intentsOf("hello")).toEqual([]);
  });

  it("answers a leads question with this week's and last week's figures, and a month when asked", () => {
    const week = answer(ask("How many leads this week compared to last week?")).reply;
    expect(week).toContain("Trail Shop: figures as of 2026-12-07.");
    expect(week).toContain("Leads: 12 in the last 7 days vs 8 in the 7 days before (+50%)");
    expect(week).toContain("won 2 in the last 7 days vs 3 in the 7 days before (-33%)");
    const month = answer(ask("leads this month vs last month")).reply;
    expect(month).toContain("30 in the last 30 days vs 25 in the 30 days before (+20%)");
  });

  it("names the top sources, the funnel's drop-off, conversations' outcomes and pages' traffic", () => {
    expect(answer(ask("top lead sources")).reply).toContain(
      "Top lead sources in the last 7 days: site: 9 (before: 4), 25 in all, 5 won; telegram: 3 (before: 4)",
    );
    expect(answer(ask("show the funnel")).reply).toContain(
      "1200 sessions → 30 leads (2.5%) → 5 won (16.7%). The largest drop-off is sessions → leads.",
    );
    expect(answer(ask("how do conversations end?")).reply).toContain(
      "50 in all (resolved 30, open 10, closed 7, handoff pending 3); 20 produced a lead (40%)",
    );
    expect(answer(ask("which articles get traffic")).reply).toContain("/blog/trail-shoes (340 sessions)");
  });

  it("answers in Russian a Russian question", () => {
    const r = answer(ask("Сравни лиды по источникам")).reply;
    expect(r).toContain("Лиды: 12 за последние 7 дней против 8 за предыдущие 7 дней (+50%)");
    expect(r).toContain("Главные источники лидов");
  });

  it("summarises and proposes topics on a general question, never an open topic's title", () => {
    const { reply, proposals } = answer(ask("What should I do?"));
    expect(reply).toContain("Leads:");
    expect(reply).toContain("Funnel over the last 30 days");
    // "How to choose trail shoes" is proposed already (case-insensitive): skipped.
    expect(proposals.map((p) => p.title)).toEqual([
      "Trail Runner X: how to choose and use it",
      "How to choose running socks",
      "Wool socks: how to choose and use it",
    ]);
    expect(reply).toContain('I propose these topics (confirm an action to add its topic): 1) "Trail Runner X');
    for (const p of proposals) {
      expect(p.rationale).toMatch(/30 leads came in the last 30 days/);
      expect(p.trendScore).toBeGreaterThanOrEqual(0);
      expect(p.trendScore).toBeLessThanOrEqual(100);
    }
    expect(proposals[1]).toMatchObject({ clusterId: "running-socks", trendScore: 70 });
    // A rejected topic's title may come back; no proposals on a question about leads only.
    expect(answer(ask("leads?")).proposals).toEqual([]);
  });

  it("localises proposals by the tenant's language and proposes none when all are open", () => {
    // An English question of a Russian tenant: the reply in English, the topics in Russian.
    const ru = answer(ask("Propose a topic", sampleFigures({ language: "ru" })));
    expect(ru.proposals[0]!.title).toBe("Как выбрать: trail shoes");
    expect(ru.proposals[0]!.rationale).toContain("лидов за последние 30 дней: 30");
    expect(ru.reply).toContain("I propose these topics");
    expect(proposeTopics(sampleFigures(), "en", 1)).toHaveLength(1);
    const f = sampleFigures({ cards: [], keywords: [{ keyword: "trail shoes", articles: 1 }] });
    const { reply, proposals } = answer(ask("Propose a topic", f));
    expect(proposals).toEqual([]);
    expect(reply).toContain("No new topic to propose");
  });

  it("is deterministic and counts tokens within the maxima", async () => {
    const a = offlineAnalyst();
    const input = ask("What should I do?");
    const [x, y] = [await a.analyze(input), await a.analyze(input)];
    expect(x).toEqual(y);
    expect(x.model).toBe("offline-analyst-1");
    expect(x.inputTokens).toBeGreaterThan(100);
    expect(x.outputTokens).toBeGreaterThan(50);
    expect(x.outputTokens).toBeLessThanOrEqual(MAX_ANALYST_OUTPUT_TOKENS);
    // A huge session: the input is counted up to the maximum, the answer still fits.
    const big = await a.analyze({ ...input, turns: [{ role: "user", content: "leads ".repeat(20_000) }] });
    expect(big.inputTokens).toBe(MAX_ANALYST_INPUT_TOKENS);
    const many = sampleFigures({
      leads: {
        ...sampleFigures().leads,
        byStatus: Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`status-${i}`, i + 1])),
      },
    });
    const long = await a.analyze(ask("leads", many));
    expect(long.outputTokens).toBeLessThanOrEqual(MAX_ANALYST_OUTPUT_TOKENS);
    expect(long.outputTokens).toBeGreaterThan(MAX_ANALYST_OUTPUT_TOKENS - 20);
    expect(costMinor("offline-analyst-1", x)).toBeLessThanOrEqual(maxAnalystCostMinor("offline-analyst-1"));
  });

  it("is the catalog model's analyst", async () => {
    const m = catalogModel();
    expect(m.analystModel).toBe("offline-analyst-1");
    expect((await m.analyze(ask("funnel"))).reply).toContain("Funnel over the last 30 days");
    expect(maxAnalystCostMinor("offline-analyst-1")).toBe(84n);
  });
});
