import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { docLinkTarget, listDocPages, renderDocMarkdown, renderDocPage } from "./docs-pages";

// The guides (issue 68 item 1) as the app renders them at /docs, and as GitHub shows them: every relative
// link of README.md, SECURITY.md and docs/*.md must lead to a file of the repository, and every #anchor to
// a heading of its target, with the ids GitHub gives headings (the app renders the same ids).

const ROOT = process.cwd();
const GUIDES = [
  "README.md",
  "SECURITY.md",
  ...readdirSync(path.join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** The `[text](href)` links of a Markdown text outside code (blocks and spans), with their line. */
function linksOf(markdown: string): { href: string; line: number }[] {
  const links: { href: string; line: number }[] = [];
  let fenced = false;
  markdown.split("\n").forEach((text, i) => {
    if (/^(`{3,}|~{3,})/.test(text)) fenced = !fenced;
    if (fenced) return;
    const prose = text.replace(/`[^`]*`/g, "");
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) links.push({ href: m[1]!, line: i + 1 });
  });
  return links;
}

/** The ids of a Markdown file's headings as rendered (GitHub's slugs). */
function anchorsOf(file: string): Set<string> {
  const html = renderDocMarkdown(readFileSync(path.join(ROOT, file), "utf8"), file);
  return new Set([...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]!));
}

describe("the guides' links, as GitHub follows them", () => {
  for (const file of GUIDES) {
    it(`${file}: every relative link leads to a file, every anchor to a heading`, () => {
      const broken: string[] = [];
      for (const { href, line } of linksOf(readFileSync(path.join(ROOT, file), "utf8"))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // http(s), mailto: not ours to check here
        if (href.startsWith("/")) {
          broken.push(`${file}:${line} ${href}: a root path breaks on GitHub; write http://localhost:3000${href}`);
          continue;
        }
        const [target, anchor] = href.split("#") as [string, string | undefined];
        const resolved = target === "" ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), target));
        if (resolved.startsWith("../") || !existsSync(path.join(ROOT, resolved))) {
          broken.push(`${file}:${line} ${href}: no file ${resolved}`);
          continue;
        }
        if (anchor !== undefined && resolved.endsWith(".md") && !anchorsOf(resolved).has(anchor))
          broken.push(`${file}:${line} ${href}: ${resolved} has no heading #${anchor}`);
        if (anchor !== undefined && statSync(path.join(ROOT, resolved)).isDirectory())
          broken.push(`${file}:${line} ${href}: an anchor into a directory`);
      }
      expect(broken).toEqual([]);
    });
  }

  it("the README's map links every page of docs/", () => {
    const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
    const mapped = new Set(
      linksOf(
        readme
          .split("\n")
          .filter((l) => l.startsWith("|"))
          .join("\n"),
      ).map((l) => l.href.split("#")[0]),
    );
    const pages = readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md"));
    expect(pages.length).toBeGreaterThan(5);
    expect(pages.filter((p) => !mapped.has(`docs/${p}`))).toEqual([]);
    expect(readme.split("\n").length).toBeLessThanOrEqual(200);
  });

  it("no page takes a name the app cannot serve it under", () => {
    for (const f of readdirSync(path.join(ROOT, "docs")).filter((n) => n.endsWith(".md")))
      expect(f, "docs/api.md would be shadowed by the API reference at /docs/api").toMatch(
        /^(?!api\.md$)[a-z0-9-]+\.md$/,
      );
  });
});

describe("docLinkTarget", () => {
  it("sends links between the guides to the app's pages, keeping anchors", () => {
    expect(docLinkTarget("webhooks.md", "docs/api-tour.md")).toBe("/docs/webhooks");
    expect(docLinkTarget("./webhooks.md#the-delivery-journal", "docs/api-tour.md")).toBe(
      "/docs/webhooks#the-delivery-journal",
    );
    expect(docLinkTarget("docs/api-tour.md#errors", "README.md")).toBe("/docs/api-tour#errors");
    expect(docLinkTarget("../README.md#two-commands", "docs/api-tour.md")).toBe("/docs#two-commands");
    expect(docLinkTarget("../SECURITY.md#rights-inside-a-tenant", "docs/console.md")).toBe(
      "/docs/security#rights-inside-a-tenant",
    );
    expect(docLinkTarget("SECURITY.md", "README.md")).toBe("/docs/security");
    expect(docLinkTarget("#errors", "docs/api-tour.md")).toBe("#errors");
  });

  it("sends the demo's own addresses to the app's paths and leaves other sites alone", () => {
    expect(docLinkTarget("http://localhost:3000/developers/errors", "README.md")).toBe("/developers/errors");
    expect(docLinkTarget("http://localhost:3000/docs/api", "docs/sdk.md")).toBe("/docs/api");
    expect(docLinkTarget("https://example.com/a", "README.md")).toBe("https://example.com/a");
    expect(docLinkTarget("mailto:x@example.com", "README.md")).toBe("mailto:x@example.com");
  });

  it("gives no app address to other files of the repository", () => {
    expect(docLinkTarget("../sdk/README.md", "docs/sdk.md")).toBeNull();
    expect(docLinkTarget("bench/HISTORY.md", "README.md")).toBeNull();
    expect(docLinkTarget("../../etc/passwd", "docs/sdk.md")).toBeNull();
    expect(docLinkTarget("../docs/Bad_Name.md", "docs/sdk.md")).toBeNull();
  });
});

describe("renderDocMarkdown", () => {
  it("gives headings GitHub's ids and rewrites links", () => {
    const html = renderDocMarkdown(
      "# Title\n\n## Who receives `an` event (preview)\n\nSee [hooks](webhooks.md#x), [file](../bench/HISTORY.md) and http://localhost:3000/console.\n",
      "docs/page.md",
    );
    expect(html).toContain('<h1 id="title">Title</h1>');
    expect(html).toContain('<h2 id="who-receives-an-event-preview">');
    expect(html).toContain('<a href="/docs/webhooks#x">hooks</a>');
    expect(html).toContain('<span class="repo-path">file</span>');
    expect(html).toContain('<a href="/console">http://localhost:3000/console</a>');
  });

  it("keeps code blocks' language and drops comments, scripts, handlers and script addresses", () => {
    const html = renderDocMarkdown(
      [
        "<!-- tour -->",
        "```sh no-tour",
        "curl -s $BASE/me   # 401",
        "```",
        '<script>alert(1)</script><img src=x onerror="alert(2)"><a href="javascript:alert(3)">x</a>',
        "[y](javascript:alert(4))",
        '<div onclick="alert(5)" style="color:red">z</div>',
      ].join("\n"),
      "docs/page.md",
    );
    expect(html).toContain('<pre tabindex="0"><code class="language-sh">curl -s $BASE/me   # 401\n</code></pre>');
    expect(html).not.toMatch(/<!--|<script|onerror|onclick|javascript:|<img|style=/i);
  });
});

describe("renderDocPage and listDocPages", () => {
  it("serve docs/<name>.md, the README as the index and SECURITY.md, and nothing else", async () => {
    expect((await renderDocPage("api-tour"))?.title).toBe("API tour");
    expect((await renderDocPage(""))?.html).toContain('id="map-of-the-docs"');
    expect((await renderDocPage("security"))?.title).toBe("Security");
    for (const name of ["nope", "api", "../README", "API-TOUR", "docs/api-tour", ".env", "api-tour.md"])
      expect(await renderDocPage(name), name).toBeNull();
  });

  it("list every page in the order of the README's map", async () => {
    const pages = await listDocPages();
    const names = pages.map((p) => p.name);
    expect(names.slice(0, 3)).toEqual(["api-tour", "webhooks", "ai-seller"]);
    expect(names).toContain("security");
    expect(new Set(names).size).toBe(names.length);
    for (const f of readdirSync(path.join(ROOT, "docs")).filter((n) => n.endsWith(".md")))
      expect(names).toContain(f.slice(0, -3));
  });
});
