import { describe, expect, it } from "vitest";
import { sampleFigures } from "@/server/testing/strategist-figures";
import { composeReport } from "./report-compose";

describe("composeReport", () => {
  it("writes a daily report: highlights and concerns with figures, actions with evidence, data_as_of", () => {
    const r = composeReport(sampleFigures(), "daily");
    expect(r.summaryText).toBe(
      "Daily report, 2026-12-07: 12 leads in the last 7 days (+50% on the 7 days before), 2 won, 14 conversations started, 1 article(s) published. 3 highlight(s), 3 concern(s), 3 action(s).",
    );
    expect(r.highlights[0]).toEqual({
      title: "Leads up (7 days)",
      detail: "Leads: 12 in the last 7 days vs 8 in the 7 days before (+50%).",
      metric: "leads_created_7d",
      value: 12,
      previous: 8,
    });
    expect(r.concerns.map((c) => c.metric)).toEqual([
      "leads_won_7d",
      "conversations_handoff_pending",
      "dashboard_blocks_without_data",
    ]);
    // Most urgent first, three at most for a daily report.
    expect(r.actions.map((a) => [a.priority, a.title])).toEqual([
      ["high", "Answer the 3 conversation(s) waiting for an operator"],
      ["medium", "Decide on 1 proposed topic(s)"],
      ["medium", "Write an article: Trail Runner X: how to choose and use it"],
    ]);
    for (const a of r.actions)
      expect(Object.keys(a)).toEqual([
        "title",
        "priority",
        "rationale",
        "target_ref",
        "expected_effect",
        "check_after_days",
        "basis",
      ]);
    expect(r.evidence.actions).toEqual([
      { index: 0, status: "supported", basis: "conversations", items: ["conversations_handoff_pending: 3"] },
      { index: 1, status: "supported", basis: "strategist", items: ["topics_proposed: 1"] },
      { index: 2, status: "supported", basis: "content", items: ["articles_published_7d: 1", "keywords: 2"] },
    ]);
    expect(r.evidence.validation).toEqual({
      refs_valid: true,
      excerpts_valid: true,
      relevance_checked: true,
      limitations: ["Blocks without data: ads."],
    });
    expect(r.dataAsOf).toEqual({ analytics: "2026-12-06", leads: "2026-12-07", snapshot: "2026-12-07" });
  });

  it("adds the 30-day comparisons, the top source and up to 5 actions to a weekly report", () => {
    const r = composeReport(sampleFigures(), "weekly");
    expect(r.summaryText).toMatch(/^Weekly report, 2026-12-07:/);
    expect(r.highlights.map((h) => h.metric)).toContain("leads_created_30d");
    expect(r.highlights.at(-1)).toMatchObject({ title: "Top lead source: site", value: 9, previous: 4 });
    expect(r.actions).toHaveLength(4);
    expect(r.actions.at(-1)).toMatchObject({ priority: "low", basis: "dashboard", target_ref: "/dashboards/overview" });
  });

  it("turns falling leads and a funnel without wins into high-priority actions; is deterministic", () => {
    const base = sampleFigures();
    const f = sampleFigures({
      leads: {
        ...base.leads,
        created: { week: { current: 3, previous: 9 }, month: { current: 10, previous: 12 } },
        won: { week: { current: 0, previous: 0 }, month: { current: 0, previous: 0 } },
      },
      funnel: { sessions: null, leads: 10, won: 0 },
      articles: { ...base.articles, traffic: null },
    });
    const r = composeReport(f, "daily");
    expect(r.actions.map((a) => a.title)).toEqual([
      'Review the lead source "telegram"', // the source that fell most
      "Answer the 3 conversation(s) waiting for an operator",
      "Follow up the 10 lead(s) of the last 30 days",
    ]);
    expect(r.actions[0]).toMatchObject({ target_ref: "/leads?source=telegram", basis: "crm", check_after_days: 7 });
    expect(r.concerns.map((c) => c.metric)).toContain("funnel_leads_to_won_30d");
    expect(r.evidence.validation.limitations).toEqual([
      "No sessions figure: the funnel starts at leads.",
      "No page traffic: the popular pages block has no data.",
      "Blocks without data: ads.",
    ]);
    expect(composeReport(f, "daily")).toEqual(r);
  });
});
