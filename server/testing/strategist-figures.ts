import type { PeriodPair, StrategistFigures } from "@/server/lib/strategist/analyst-io";

const pair = (w: [number, number], m: [number, number]): PeriodPair => ({
  week: { current: w[0], previous: w[1] },
  month: { current: m[0], previous: m[1] },
});

/** A tenant's figures for the analyst's and the report's unit tests; `over` replaces whole sections. */
export function sampleFigures(over: Partial<StrategistFigures> = {}): StrategistFigures {
  return {
    asOf: "2026-12-07",
    dataAsOf: { analytics: "2026-12-06", leads: "2026-12-07" },
    language: "en",
    leads: {
      total: 40,
      byStatus: { new: 20, qualified: 8, won: 7, lost: 5 },
      created: pair([12, 8], [30, 25]),
      won: pair([2, 3], [5, 4]),
      bySource: [
        { source: "site", total: 25, won: 5, created: pair([9, 4], [20, 15]) },
        { source: "telegram", total: 15, won: 2, created: pair([3, 4], [10, 10]) },
      ],
    },
    conversations: {
      total: 50,
      byStatus: { open: 10, handoff_pending: 3, resolved: 30, closed: 7 },
      withLead: 20,
      byOperator: 6,
      started: pair([14, 10], [45, 40]),
    },
    articles: {
      total: 6,
      byStatus: { draft: 2, published: 4 },
      published: pair([1, 0], [2, 2]),
      recent: [
        {
          title: "Trail shoes guide",
          status: "published",
          keyword: "trail shoes",
          publishedOn: "2026-12-05",
          wordCount: 900,
        },
      ],
      traffic: [
        { page: "/blog/trail-shoes", sessions: 340 },
        { page: "/blog/socks", sessions: 120 },
      ],
    },
    funnel: { sessions: 1200, leads: 30, won: 5 },
    dashboard: [
      { block: "kpi", availability: "ok", reason: null, metrics: { sessions: 1200 } },
      { block: "ads", availability: "not_connected", reason: "no ads account", metrics: {} },
    ],
    topics: [
      { title: "How to choose trail shoes", status: "proposed", trendScore: 70 },
      { title: "Socks for winter", status: "rejected", trendScore: null },
    ],
    keywords: [
      { keyword: "trail shoes", articles: 3 },
      { keyword: "running socks", articles: 1 },
    ],
    cards: [
      { code: "ts-1", name: "Trail Runner X", priceText: "7 990 ₽" },
      { code: "sk-2", name: "Wool socks", priceText: null },
    ],
    ...over,
  };
}
