import { describe, expect, it } from "vitest";
import { articleBlocks, articleMarkdown, cleanArticleHtml, htmlBytes } from "./article-html";
import { editorDocumentToHtml } from "./editor-document";

/** The hostile sample of db/seed-data.ts. */
const HOSTILE = `<p onclick="steal()">Hi<script>alert(1)</script></p><a href="javascript:alert(2)">x</a><img src="data:image/png;base64,AAAA" onerror="alert(3)"><p style="color:red">styled</p>`;

function expectHarmless(out: string) {
  expect(out).not.toMatch(/<script/i);
  expect(out).not.toMatch(/alert\(1\)/);
  expect(out).not.toMatch(/onclick|onerror/i);
  expect(out).not.toMatch(/javascript:/i);
  expect(out).not.toMatch(/data:/i);
  expect(out).not.toMatch(/style=/i);
}

describe("cleanArticleHtml", () => {
  it("removes scripts, handlers, styles, javascript: links and data: images, and keeps the text", () => {
    const out = cleanArticleHtml(HOSTILE);
    expectHarmless(out);
    expect(out).toBe("<p>Hi</p><a>x</a><p>styled</p>");
  });

  it.each([
    ["iframe with its text", `<iframe src="https://evil.example">inner</iframe><p>ok</p>`, "<p>ok</p>"],
    ["object and embed", `<object data="x.swf">fallback</object><embed src="x"><p>ok</p>`, "<p>ok</p>"],
    ["style element", `<style>p{color:red}</style><p>ok</p>`, "<p>ok</p>"],
    ["vbscript link", `<a href="vbscript:msgbox(1)">v</a>`, "<a>v</a>"],
    ["entity-obfuscated javascript link", `<a href="jav&#x61;script:alert(1)">j</a>`, "<a>j</a>"],
    ["protocol-relative link", `<a href="//evil.example/x">r</a>`, "<a>r</a>"],
    ["mailto image", `<img src="mailto:a@b.example">`, ""],
    ["unknown tag unwrapped", `<section><p>in</p></section>`, "<p>in</p>"],
  ])("drops %s", (_name, html, expected) => {
    expect(cleanArticleHtml(html)).toBe(expected);
  });

  it("keeps structural tags and safe addresses", () => {
    const html =
      `<h1>T</h1><h6>t</h6><p><strong>b</strong> <em>i</em><br /><code>c</code></p><ul><li>a</li></ul><ol start="3"><li>b</li></ol>` +
      `<blockquote>q</blockquote><pre><code>x = 1</code></pre><hr />` +
      `<figure><img src="https://cdn.example/a.png" alt="A" /><figcaption>cap</figcaption></figure>` +
      `<table><thead><tr><th>h</th></tr></thead><tbody><tr><td colspan="2">d</td></tr></tbody></table>` +
      `<p><a href="https://x.example/">s</a> <a href="http://x.example/">p</a> <a href="mailto:a@x.example">m</a></p>`;
    expect(cleanArticleHtml(html)).toBe(html);
  });
});

describe("articleMarkdown", () => {
  it("is made from the cleaned HTML of the hostile sample", () => {
    const md = articleMarkdown(HOSTILE);
    expectHarmless(md);
    expect(md).toContain("Hi");
    expect(md).toContain("styled");
  });

  it("turns an HTML table into a GFM table", () => {
    const md = articleMarkdown(
      `<table><thead><tr><th>Size</th><th>Fit</th></tr></thead><tbody><tr><td>42</td><td>wide</td></tr></tbody></table>`,
    );
    expect(md).toMatch(/\| Size \| Fit \|\n\| --- \| --- \|\n\| 42 \| wide \|/);
  });

  it("renders headings, lists and links", () => {
    const md = articleMarkdown(`<h2>Fit</h2><ul><li>Trail</li></ul><p><a href="https://x.example/c">Catalog</a></p>`);
    expect(md).toBe("## Fit\n\n-   Trail\n\n[Catalog](https://x.example/c)");
  });

  it("keeps text that looks like a tag literal (escaped), never raw HTML", () => {
    const md = articleMarkdown(`<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>`);
    expect(md).not.toMatch(/(^|[^\\])<script/);
    expect(md).toContain("\\<script>");
  });
});

describe("articleBlocks", () => {
  it("splits top-level elements and names their types", () => {
    const blocks = articleBlocks(
      `<h2>Fit</h2><p>Leave <a href="https://x.example">room</a>.</p><ul><li>Trail<ul><li>deep</li></ul></li></ul><ol><li>1</li></ol>` +
        `<img src="https://cdn.example/a.png"><figure><img src="https://cdn.example/b.png"></figure><table><tr><td>1</td></tr></table>` +
        `<blockquote><p>q</p></blockquote><pre><code>x</code></pre><hr>loose <em>text</em><p>end</p>`,
    );
    expect(blocks.map((b) => b.type)).toEqual([
      "heading",
      "paragraph",
      "list",
      "list",
      "image",
      "image",
      "table",
      "quote",
      "code",
      "html",
      "html",
      "paragraph",
    ]);
    expect(blocks[1]).toEqual({ type: "paragraph", html: `<p>Leave <a href="https://x.example">room</a>.</p>` });
    expect(blocks[2].html).toBe("<ul><li>Trail<ul><li>deep</li></ul></li></ul>");
    expect(blocks[10]).toEqual({ type: "html", html: "loose <em>text</em>" });
    for (const b of blocks) expect(Object.keys(b).sort()).toEqual(["html", "type"]);
  });

  it("cleans every block of the hostile sample", () => {
    const blocks = articleBlocks(HOSTILE);
    expect(blocks).toEqual([
      { type: "paragraph", html: "<p>Hi</p>" },
      { type: "html", html: "<a>x</a>" },
      { type: "paragraph", html: "<p>styled</p>" },
    ]);
    for (const b of blocks) expectHarmless(b.html);
  });

  it("is empty for empty HTML", () => {
    expect(articleBlocks("")).toEqual([]);
    expect(articleBlocks("  <script>x</script> ")).toEqual([]);
  });
});

describe("editorDocumentToHtml", () => {
  it("converts the seed's editor document", () => {
    const doc = {
      type: "doc",
      content: [
        { type: "heading", attrs: { level: 2 }, content: [{ type: "text", text: "Care" }] },
        { type: "paragraph", content: [{ type: "text", text: "Dry shoes away from heaters." }] },
      ],
    };
    expect(editorDocumentToHtml(doc)).toBe("<h2>Care</h2><p>Dry shoes away from heaters.</p>");
  });

  it("escapes all text and attribute values", () => {
    const doc = {
      type: "doc",
      content: [{ type: "paragraph", content: [{ type: "text", text: `<script>alert("x")</script> & 'q'` }] }],
    };
    expect(editorDocumentToHtml(doc)).toBe(
      "<p>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;</p>",
    );
  });

  it("renders lists, quotes, breaks and marks; keeps only safe link schemes", () => {
    const text = (t: string, marks?: unknown[]) => ({ type: "text", text: t, marks });
    const doc = {
      type: "doc",
      content: [
        {
          type: "bullet_list",
          content: [
            {
              type: "list_item",
              content: [{ type: "paragraph", content: [text("a", [{ type: "bold" }, { type: "italic" }])] }],
            },
          ],
        },
        { type: "orderedList", attrs: { start: 3 }, content: [{ type: "listItem", content: [text("b")] }] },
        {
          type: "blockquote",
          content: [{ type: "paragraph", content: [text("q"), { type: "hard_break" }, text("r")] }],
        },
        {
          type: "paragraph",
          content: [
            text("ok", [{ type: "link", attrs: { href: 'https://x.example/a?b=1&c="2"' } }]),
            text("js", [{ type: "link", attrs: { href: "javascript:alert(1)" } }]),
            text("mail", [{ type: "link", attrs: { href: "mailto:a@x.example" } }]),
            text("rel", [{ type: "link", attrs: { href: "/relative" } }]),
          ],
        },
        { type: "image", attrs: { src: "data:image/png;base64,AAAA" } },
        { type: "mystery", content: [text("kept")] },
      ],
    };
    expect(editorDocumentToHtml(doc)).toBe(
      `<ul><li><p><em><strong>a</strong></em></p></li></ul><ol start="3"><li>b</li></ol><blockquote><p>q<br />r</p></blockquote>` +
        `<p><a href="https://x.example/a?b=1&amp;c=%222%22">ok</a>js<a href="mailto:a@x.example">mail</a>rel</p>kept`,
    );
  });

  it("survives malformed and very deep documents", () => {
    expect(editorDocumentToHtml(null)).toBe("");
    expect(editorDocumentToHtml("text")).toBe("");
    expect(editorDocumentToHtml({ type: "doc", content: [1, null, { type: "paragraph", content: "x" }] })).toBe(
      "<p></p>",
    );
    let deep: unknown = { type: "text", text: "<deep>" };
    for (let i = 0; i < 5000; i++) deep = { type: "blockquote", content: [deep] };
    const html = editorDocumentToHtml({ type: "doc", content: [deep] });
    expect(html).toContain("&lt;deep&gt;");
    expect(html).not.toContain("<deep>");
  });
});

describe("htmlBytes", () => {
  it("counts UTF-8 bytes, not characters", () => {
    expect(htmlBytes("abc")).toBe(3);
    expect(htmlBytes("ж")).toBe(2);
    expect(htmlBytes("€")).toBe(3);
  });
});
