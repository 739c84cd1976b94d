import { describe, expect, it } from "vitest";
import { avoidedIn, draftViolations, removeAvoided } from "./draft-check";

const draft = (html: string, more: Partial<{ title: string; metaTitle: string; metaDescription: string }> = {}) => ({
  html,
  title: "Ceramic mugs",
  metaTitle: "Ceramic mugs",
  metaDescription: "How to choose a mug",
  ...more,
});
const profile = (avoid: string[], example_text: string | null = null) => ({ avoid, example_text });

// Twelve and more words of a tenant's own writing, used as the profile's example text.
const EXAMPLE =
  "Our mugs are thrown by hand in a small studio by the sea, glazed twice and fired slowly overnight. Every one is different.";

describe("draftViolations", () => {
  it("is empty for a draft that keeps the profile", () => {
    expect(
      draftViolations(draft("<h2>Mugs</h2><p>A good mug keeps tea warm.</p>"), profile(["cheap"], EXAMPLE)),
    ).toEqual([]);
  });

  it("names each avoided word or phrase found in the text, title or meta, whatever the letter case", () => {
    const d = draft("<p>A CHEAP mug, <b>best</b>\n  <i>price</i> ever.</p>", {
      metaDescription: "Buy now, Guaranteed!",
    });
    expect(draftViolations(d, profile(["cheap", "best price", "guaranteed", "luxury", "  "]))).toEqual([
      'uses the avoided word or phrase "cheap"',
      'uses the avoided word or phrase "best price"',
      'uses the avoided word or phrase "guaranteed"',
    ]);
    expect(draftViolations(draft("<p>fine</p>", { title: "Cheap mugs" }), profile(["cheap"]))).toEqual([
      'uses the avoided word or phrase "cheap"',
    ]);
    expect(draftViolations(draft("<p>fine</p>", { metaTitle: "Дешёвые кружки" }), profile(["дешевые"]))).toHaveLength(
      1,
    );
  });

  it("matches whole words of the text only: not inside longer words, not in tags or attributes", () => {
    expect(draftViolations(draft("<p>An article about cheapness.</p>"), profile(["art", "cheap"]))).toEqual([]);
    expect(draftViolations(draft('<p><a href="https://x.example/cheap">Mugs</a></p>'), profile(["cheap"]))).toEqual([]);
    expect(draftViolations(draft("<p>Fish &amp; chips</p>"), profile(["fish & chips"]))).toHaveLength(1);
    // A phrase is not found across the end of the title and the start of the text.
    expect(draftViolations(draft("<p>mugs here</p>", { title: "Best" }), profile(["best mugs"]))).toEqual([]);
  });

  it("finds the example text copied: a run of 12 consecutive words, whatever the case, punctuation or tags", () => {
    const copied =
      "<p>Intro.</p><p>our MUGS are thrown by hand — in a small <b>studio</b></p><p>by the sea, glazed twice!</p>";
    expect(draftViolations(draft(copied), profile([], EXAMPLE))).toEqual([
      'copies the example text: "our mugs are thrown by hand in a small studio by the sea glazed twice"',
    ]);
    // Eleven words in a row are not a copy.
    expect(
      draftViolations(
        draft("<p>Yes, our mugs are thrown by hand in a small studio by a lake.</p>"),
        profile([], EXAMPLE),
      ),
    ).toEqual([]);
    expect(
      draftViolations(
        draft("<p>x</p>", {
          metaDescription: "glazed twice and fired slowly overnight every one is different and thrown by hand in",
        }),
        profile([], EXAMPLE),
      ),
    ).toEqual([]);
    expect(
      draftViolations(
        draft("<p>x</p>", { metaDescription: "in a small studio by the sea glazed twice and fired slowly overnight" }),
        profile([], EXAMPLE),
      ),
    ).toHaveLength(1);
    expect(draftViolations(draft(copied), profile([], null))).toEqual([]);
  });
});

describe("avoid helpers", () => {
  it("lists the entries found once each, in the list's order", () => {
    expect(avoidedIn("Cheap and cheap, very good", ["good", "cheap", "Cheap", "bad"])).toEqual(["good", "cheap"]);
    expect(avoidedIn("price (!)", ["(!)"])).toEqual(["(!)"]);
  });

  it("cuts avoided entries out of a label and tidies what is left", () => {
    expect(removeAvoided("Cheap ceramic mugs: the best choice", ["cheap", "the best"])).toBe("ceramic mugs: choice");
    expect(removeAvoided("Ёлка и елка", ["елка"])).toBe("и");
    expect(removeAvoided("cheap", ["cheap"])).toBe("");
  });
});
