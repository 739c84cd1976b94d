import { describe, expect, it } from "vitest";
import { articleSlug, clipText, countWords, escapeHtml, textOfHtml } from "./article-text";

describe("article text helpers", () => {
  it("reads the text of HTML as a reader sees it and counts its words", () => {
    const html =
      "<h2>Mugs</h2><p>Hand<b>made</b> mugs &amp; cups&nbsp;— from&#32;us</p><!-- note --><script>x()</script><ul><li>one</li><li>two</li></ul>";
    expect(textOfHtml(html)).toBe("Mugs Handmade mugs & cups — from us one two");
    expect(countWords(textOfHtml(html))).toBe(8);
    expect(countWords("  Привет, мир! — 2025 ")).toBe(3);
    expect(countWords("")).toBe(0);
  });

  it("clips text to a length at a space, with an ellipsis", () => {
    expect(clipText("Short title", 70)).toBe("Short title");
    const clipped = clipText("Ceramic mugs for tea and coffee: how to choose, care for and store them at home", 40);
    expect(clipped).toBe("Ceramic mugs for tea and coffee: how to…");
    expect(clipped.length).toBeLessThanOrEqual(40);
    expect(clipText("x".repeat(100), 10)).toBe(`${"x".repeat(9)}…`);
  });

  it("makes slugs: Cyrillic transliterated, lowercase ASCII words joined by hyphens, at most 120 characters", () => {
    expect(articleSlug("Как выбрать керамическую кружку: щётка и ёж")).toBe(
      "kak-vybrat-keramicheskuyu-kruzhku-shchetka-i-ezh",
    );
    expect(articleSlug("Crème brûlée — 10 recipes!")).toBe("creme-brulee-10-recipes");
    expect(articleSlug("kak-vybrat-kruzhku")).toBe("kak-vybrat-kruzhku");
    expect(articleSlug("!!!")).toBe("article");
    const long = articleSlug("очень длинный заголовок статьи ".repeat(10));
    expect(long.length).toBeLessThanOrEqual(120);
    expect(long).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  it("escapes HTML", () => {
    expect(escapeHtml('<a href="x">&</a>')).toBe("&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;");
  });
});
