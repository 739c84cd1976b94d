import { describe, expect, it } from "vitest";
import { scoreLead, type ScorerInput } from "./lead-scorer";

const now = new Date("2026-12-01T12:00:00Z");
const base: ScorerInput = {
  title: null,
  intent: null,
  source: null,
  valueMinor: null,
  contact: null,
  customerMessages: [],
  lastActivityAt: new Date("2026-10-01T00:00:00Z"),
  now,
};

describe("the offline lead scorer lead-score-1.0", () => {
  it("gives an unknown lead D with no points, and explains it", () => {
    const r = scoreLead(base);
    expect(r).toMatchObject({ score: 0, grade: "D", model: "lead-score-1.0" });
    expect(r.flags).toEqual({ buy_intent: false, support: false, supplier: false });
    expect(r.reason).toContain("little is known");
  });

  it("adds up the documented weights: an engaged, complete, valuable, recent referral with buying words is A", () => {
    const r = scoreLead({
      ...base,
      source: "referral",
      valueMinor: 10_000_000n, // 100,000.00: 15 points
      contact: { firstName: "Olga", lastName: null, email: "o@x.ru", phone: "+7", geoCountry: null, geoCity: "Kazan" },
      customerMessages: Array.from({ length: 12 }, (_, i) => (i === 0 ? "Сколько стоит доставка?" : "ok")),
      lastActivityAt: new Date(now.getTime() - 3600_000),
    });
    expect(r.features).toMatchObject({
      engagement: 25,
      buy_intent: 25,
      completeness: 15,
      value: 15,
      recency: 10,
      source: 10,
    });
    expect([r.score, r.grade, r.flags.buy_intent]).toEqual([100, "A", true]);
    expect(r.reason).toBe("Grade A: an engaged conversation, buying words in the conversation, a complete contact.");
  });

  it("takes points for support requests and supplier offers, and says so", () => {
    const r = scoreLead({
      ...base,
      source: "site",
      customerMessages: ["We offer partnership, our services are cheap"],
    });
    expect(r.flags.supplier).toBe(true);
    expect(r.score).toBe(0);
    expect(r.reason).toContain("supplier's offer");
    const s = scoreLead({ ...base, title: "Заказ не работает, нужен возврат" });
    expect([s.flags.support, s.flags.buy_intent]).toEqual([true, true]);
    expect(s.features.support).toBe(-15);
  });

  it("is deterministic", () => {
    const input = { ...base, title: "price please", source: "ads" };
    expect(scoreLead(input)).toEqual(scoreLead(input));
  });
});
