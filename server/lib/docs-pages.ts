import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { Marked, type Tokens } from "marked";
import { gfmHeadingId } from "marked-gfm-heading-id";
import sanitizeHtml from "sanitize-html";

// The guides of docs/ (issue 68 item 1), served by the app at /docs as well as read on GitHub. The
// Markdown files are the one source: their links are relative `.md` links, which GitHub follows, and
// which the app rewrites to its own addresses when it renders a page here.

/** The app's address of the guides' index, which shows the README (its map of docs/ lists every page). */
export const DOCS_PATH = "/docs";

/**
 * Names a page may not take: `/docs/api` is the API reference (app/docs/api, Swagger UI), a static route
 * that would shadow a guide of that name.
 */
const RESERVED = new Set(["api"]);

/** A page's name in `/docs/<name>`: the file name of `docs/<name>.md`, lower-case words joined by `-`. */
const PAGE_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** The demo's origin as the guides write it, so a link to one of the app's pages works from GitHub too. */
const DEMO_ORIGIN = "http://localhost:3000";

/** Root files served beside docs/: their name in `/docs/<name>` and their path in the repository. */
const ROOT_PAGES: Record<string, string> = { security: "SECURITY.md" };

/** One page of the guides as the navigation lists it. */
export interface DocPageInfo {
  /** The name in `/docs/<name>`, e.g. `api-tour`. */
  name: string;
  /** The page's first `#` heading, as plain text. */
  title: string;
  /** Its file, relative to the repository root (`docs/api-tour.md`, `SECURITY.md`). */
  file: string;
}

/** A page rendered for the app. */
export interface RenderedDoc {
  title: string;
  /** Sanitized HTML: headings carry GitHub's ids, links point at the app's addresses. */
  html: string;
}

/**
 * Where a link of a guide leads inside the app.
 * - `docs/<name>.md` (relative to the linking file, so `./webhooks.md` from docs/ and `docs/webhooks.md`
 *   from the README) → `/docs/<name>`; `README.md` → `/docs`; `SECURITY.md` → `/docs/security`; any
 *   `#fragment` is kept.
 * - `http://localhost:3000/<path>` (the demo's own pages, written so on GitHub) → `/<path>`.
 * - Other absolute addresses (`https://...`, `mailto:`) and `#fragment` alone: unchanged.
 * - Any other relative link names a file of the repository the app does not serve (`../sdk/README.md`,
 *   `../bench/HISTORY.md`): null, and the page shows its text without a link.
 * @param href the link as written in the Markdown
 * @param sourceFile the linking file, relative to the repository root (`docs/api-tour.md`, `README.md`)
 */
export function docLinkTarget(href: string, sourceFile: string): string | null {
  if (href.startsWith("#")) return href;
  if (href === DEMO_ORIGIN) return "/";
  if (href.startsWith(`${DEMO_ORIGIN}/`)) return href.slice(DEMO_ORIGIN.length);
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith("//") || href.startsWith("/")) return href;
  const hashAt = href.indexOf("#");
  const target = hashAt < 0 ? href : href.slice(0, hashAt);
  const fragment = hashAt < 0 ? "" : href.slice(hashAt);
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(sourceFile), target));
  if (resolved === "README.md") return `${DOCS_PATH}${fragment}`;
  const root = Object.entries(ROOT_PAGES).find(([, file]) => file === resolved);
  if (root) return `${DOCS_PATH}/${root[0]}${fragment}`;
  const inDocs = /^docs\/([^/]+)\.md$/.exec(resolved);
  if (inDocs && PAGE_NAME.test(inDocs[1]!)) return `${DOCS_PATH}/${inDocs[1]}${fragment}`;
  return null;
}

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, "del", "input"],
  allowedAttributes: {
    a: ["href", "title", "rel"],
    h1: ["id"],
    h2: ["id"],
    h3: ["id"],
    h4: ["id"],
    h5: ["id"],
    h6: ["id"],
    code: ["class"],
    span: ["class"],
    th: ["align"],
    td: ["align"],
    ol: ["start"],
    pre: ["tabindex"],
    table: ["tabindex"],
    // GFM task lists: a disabled checkbox.
    input: ["type", "checked", "disabled"],
  },
  allowedClasses: { code: [/^language-[a-z0-9-]+$/], span: ["repo-path"] },
  allowedSchemes: ["http", "https", "mailto"],
  // Code blocks and tables scroll sideways when wider than the page: each is a tab stop, so a keyboard
  // can scroll it too (axe-core's scrollable-region-focusable).
  transformTags: {
    pre: (tagName, attribs) => ({ tagName, attribs: { ...attribs, tabindex: "0" } }),
    table: (tagName, attribs) => ({ tagName, attribs: { ...attribs, tabindex: "0" } }),
  },
};

/**
 * Renders one guide's Markdown to HTML for the app: GitHub-flavoured Markdown (marked), each heading
 * with the id GitHub gives it (marked-gfm-heading-id, github-slugger), links rewritten by
 * {@link docLinkTarget}, external links with `rel="noopener noreferrer"`, and the result sanitized
 * (sanitize-html: no script, style, event handler or `javascript:` address survives, though the text is
 * ours, so the page stays within the app's Content-Security-Policy whatever a guide contains).
 * @param markdown the file's text
 * @param sourceFile the file, relative to the repository root, against which its links resolve
 */
export function renderDocMarkdown(markdown: string, sourceFile: string): string {
  const marked = new Marked({ gfm: true, async: false });
  marked.use(gfmHeadingId(), {
    renderer: {
      link(token: Tokens.Link) {
        const target = docLinkTarget(token.href, sourceFile);
        const text = this.parser.parseInline(token.tokens);
        if (target === null) return `<span class="repo-path">${text}</span>`;
        const external = /^https?:/i.test(target);
        const title = token.title ? ` title="${escapeAttribute(token.title)}"` : "";
        const rel = external ? ' rel="noopener noreferrer"' : "";
        return `<a href="${escapeAttribute(target)}"${title}${rel}>${text}</a>`;
      },
    },
  });
  const html = marked.parse(markdown) as string;
  return sanitizeHtml(html, SANITIZE);
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

/** The first `#` heading of a Markdown text as plain text, or `fallback`. */
export function docTitle(markdown: string, fallback: string): string {
  const h1 = /^#\s+(.+?)\s*#*\s*$/m.exec(markdown);
  return h1 ? h1[1]!.replace(/`/g, "") : fallback;
}

/** The file of page `name` relative to the repository root (`""` is the index, the README), or null. */
function pageFile(name: string): string | null {
  if (name === "") return "README.md";
  if (ROOT_PAGES[name]) return ROOT_PAGES[name];
  if (!PAGE_NAME.test(name) || RESERVED.has(name)) return null;
  return `docs/${name}.md`;
}

/**
 * Where a page's file is on disk: the app runs from the repository root. Each path is written from
 * literal parts, so the build traces these files (and docs/) into its output, not the whole project.
 */
function diskPath(file: string): string {
  if (file === "README.md") return path.join(process.cwd(), "README.md");
  if (file === "SECURITY.md") return path.join(process.cwd(), "SECURITY.md");
  return path.join(process.cwd(), "docs", path.basename(file));
}

/**
 * Every page the app serves under `/docs/<name>`: each `docs/*.md`, and SECURITY.md, in the order the
 * rows of the README's map of docs/ (its table) link them; pages it does not link follow, by name.
 */
export async function listDocPages(): Promise<DocPageInfo[]> {
  const names = (await readdir(path.join(process.cwd(), "docs")))
    .filter((f) => f.endsWith(".md"))
    .map((f) => f.slice(0, -3))
    .filter((n) => PAGE_NAME.test(n) && !RESERVED.has(n));
  names.push(...Object.keys(ROOT_PAGES).filter((n) => existsSync(diskPath(ROOT_PAGES[n]!))));
  const readme = await readFile(diskPath("README.md"), "utf8");
  // The map is the README's table: its rows' links, in order.
  const mapRows = readme.split("\n").filter((line) => line.startsWith("|"));
  const mapOrder = [...mapRows.join("\n").matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => docLinkTarget(m[1]!, "README.md"))
    .filter((t): t is string => t !== null && t.startsWith(`${DOCS_PATH}/`))
    .map((t) => t.slice(DOCS_PATH.length + 1).split("#")[0]!);
  const rank = (n: string) => {
    const i = mapOrder.indexOf(n);
    return i < 0 ? Number.MAX_SAFE_INTEGER : i;
  };
  names.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  return Promise.all(
    names.map(async (name) => {
      const file = pageFile(name)!;
      return { name, file, title: docTitle(await readFile(diskPath(file), "utf8"), name) };
    }),
  );
}

/**
 * Page `name` of the guides, rendered ({@link renderDocMarkdown}); `""` is the index (the README).
 * @returns null when there is no such page (the route answers 404): an unknown name, a name that is not
 *   a page name (so no path outside docs/ can be asked for), or a reserved one
 */
export async function renderDocPage(name: string): Promise<RenderedDoc | null> {
  const file = pageFile(name);
  if (file === null) return null;
  let markdown: string;
  try {
    markdown = await readFile(diskPath(file), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  return { title: docTitle(markdown, name), html: renderDocMarkdown(markdown, file) };
}
