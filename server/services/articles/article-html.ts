import sanitizeHtml from "sanitize-html";
import TurndownService from "turndown";
import { gfm } from "turndown-plugin-gfm";
import type { ArticleBlock } from "@/server/schemas/articles";

/** Schemes a link may use in article HTML (../shared/DESIGN.md, spec "GET /articles/{id}"). */
export const LINK_SCHEMES = ["http", "https", "mailto"] as const;
/** Schemes an image address may use: no `data:`, no `mailto:`. */
export const IMAGE_SCHEMES = ["http", "https"] as const;

/** Structural tags kept in article HTML; everything else is unwrapped (its text kept) or dropped. */
const ALLOWED_TAGS = [
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "p",
  "ul",
  "ol",
  "li",
  "a",
  "img",
  "blockquote",
  "pre",
  "code",
  "strong",
  "em",
  "b",
  "i",
  "u",
  "s",
  "del",
  "sub",
  "sup",
  "br",
  "hr",
  "figure",
  "figcaption",
  "table",
  "thead",
  "tbody",
  "tfoot",
  "tr",
  "th",
  "td",
  "caption",
  "colgroup",
  "col",
];

const SANITIZE_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: ALLOWED_TAGS,
  // No `on*` and no `style` anywhere: only the attributes listed here survive.
  allowedAttributes: {
    a: ["href", "title"],
    img: ["src", "alt", "title", "width", "height"],
    ol: ["start"],
    th: ["colspan", "rowspan", "scope"],
    td: ["colspan", "rowspan"],
    col: ["span"],
    colgroup: ["span"],
  },
  allowedSchemes: [...LINK_SCHEMES],
  allowedSchemesByTag: { img: [...IMAGE_SCHEMES] },
  allowedSchemesAppliedToAttributes: ["href", "src"],
  // "//host/x" inherits the page's scheme; refusing it keeps every kept address explicit.
  allowProtocolRelative: false,
  // Tags whose text must not leak into the article when the tag itself is removed.
  nonTextTags: [
    "script",
    "style",
    "textarea",
    "option",
    "noscript",
    "iframe",
    "object",
    "embed",
    "template",
    "svg",
    "math",
    "title",
    "head",
  ],
  // An image whose address was refused (e.g. `data:`) is dropped whole rather than left without `src`.
  exclusiveFilter: (frame) => frame.tag === "img" && !frame.attribs.src,
};

/**
 * Cleans stored or converted article HTML for answering: no script/style/iframe/object, no `on*` or
 * `style` attributes, links only http/https/mailto, images only http/https (spec "GET /articles/{id}").
 * @param html any HTML; @returns well-formed HTML where text `<` is escaped as `&lt;`.
 */
export function cleanArticleHtml(html: string): string {
  return sanitizeHtml(html, SANITIZE_OPTIONS);
}

let turndown: TurndownService | undefined;
function markdownService(): TurndownService {
  if (turndown) return turndown;
  const service = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
    emDelimiter: "*",
  });
  service.use(gfm);
  // Turndown leaves `<` of text as is, so text "<script>" would become raw HTML in the markdown;
  // a backslash escape keeps it literal for every CommonMark renderer.
  const escape = service.escape.bind(service);
  service.escape = (text: string) => escape(text).replace(/</g, "\\<");
  turndown = service;
  return service;
}

/**
 * Markdown (GFM: tables, strikethrough) of article HTML. Cleans first, so the markdown holds only what
 * the html format would; tables with merged cells and nested lists may simplify.
 */
export function articleMarkdown(html: string): string {
  return markdownService().turndown(cleanArticleHtml(html));
}

/**
 * Block type of a top-level element of cleaned HTML:
 * h1-h6 → `heading`; p → `paragraph`; ul, ol → `list`; img, figure → `image`; table → `table`;
 * blockquote → `quote`; pre → `code`; anything else (hr, stray li, a run of inline content or text
 * between blocks) → `html`.
 */
const BLOCK_TYPES: Record<string, string> = {
  h1: "heading",
  h2: "heading",
  h3: "heading",
  h4: "heading",
  h5: "heading",
  h6: "heading",
  p: "paragraph",
  ul: "list",
  ol: "list",
  img: "image",
  figure: "image",
  table: "table",
  blockquote: "quote",
  pre: "code",
  hr: "html",
};

/** Tags that start a block of their own when at the top level; other top-level content is grouped into `html` runs. */
const BLOCK_TAGS = new Set([
  ...Object.keys(BLOCK_TYPES),
  "li",
  "thead",
  "tbody",
  "tfoot",
  "tr",
  "th",
  "td",
  "caption",
  "colgroup",
  "col",
  "figcaption",
]);
const VOID_TAGS = new Set(["br", "hr", "img", "col"]);

/**
 * Splits article HTML into `{type, html}` blocks, one per top-level block element (see BLOCK_TYPES), each
 * cleaned. Relies on the cleaner's output being well-formed (balanced tags, `<` and `>` escaped in text
 * and attribute values), so a tag scan tracking depth finds the top-level boundaries.
 */
export function articleBlocks(html: string): ArticleBlock[] {
  const clean = cleanArticleHtml(html);
  const blocks: ArticleBlock[] = [];
  let runStart = 0; // start of pending inline content at the top level
  let blockStart = -1; // start of the open top-level block element
  let blockTag = "";
  let depth = 0;
  const flushRun = (end: number) => {
    const run = clean.slice(runStart, end);
    if (run.trim()) blocks.push({ type: "html", html: run.trim() });
  };
  const tagRe = /<(\/?)([a-zA-Z0-9]+)[^>]*?(\/?)>/g;
  for (let m = tagRe.exec(clean); m; m = tagRe.exec(clean)) {
    const [whole, closing, rawName, selfClosing] = m;
    const name = rawName.toLowerCase();
    const isVoid = VOID_TAGS.has(name) || selfClosing === "/";
    if (closing) {
      depth--;
      if (depth === 0 && blockStart >= 0 && name === blockTag) {
        const end = m.index + whole.length;
        blocks.push({ type: BLOCK_TYPES[blockTag] ?? "html", html: clean.slice(blockStart, end) });
        blockStart = -1;
        runStart = end;
      }
      continue;
    }
    if (depth === 0 && BLOCK_TAGS.has(name)) {
      flushRun(m.index);
      if (isVoid) {
        const end = m.index + whole.length;
        blocks.push({ type: BLOCK_TYPES[name] ?? "html", html: clean.slice(m.index, end) });
        runStart = end;
        continue;
      }
      blockStart = m.index;
      blockTag = name;
    }
    if (!isVoid) depth++;
  }
  // The cleaner's output is balanced, so an open block at the end means a parsing surprise: keep its content.
  if (blockStart >= 0) blocks.push({ type: BLOCK_TYPES[blockTag] ?? "html", html: clean.slice(blockStart) });
  else flushRun(clean.length);
  return blocks;
}

/** Size of HTML as the spec's "Limits" counts it: UTF-8 bytes. */
export function htmlBytes(html: string): number {
  return Buffer.byteLength(html, "utf8");
}
