/**
 * Converter of the article editor's document (ProseMirror-like JSON stored in `articles.body_doc`) to HTML.
 * Shape: `{type: "doc", content: Node[]}` where a Node is `{type, attrs?, content?, text?, marks?}`.
 * Known nodes: paragraph, heading (`attrs.level` 1-6), bullet_list, ordered_list (`attrs.start`),
 * list_item, blockquote, code_block, horizontal_rule, hard_break, image (`attrs.src`, `attrs.alt`), text
 * with marks bold/strong, italic/em, code, strike, underline, link (`attrs.href`). camelCase spellings
 * (bulletList, hardBreak, ...) are read the same. An unknown node keeps its children's content.
 */

/** One node of an editor document as stored; every field may be missing or of a wrong type. */
interface DocNode {
  type?: unknown;
  attrs?: Record<string, unknown>;
  content?: unknown;
  text?: unknown;
  marks?: unknown;
}

/** Escapes text for HTML content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** A link or image address when it is absolute with an allowed scheme, else null (the mark or image is dropped). */
function safeUrl(value: unknown, schemes: readonly string[]): string | null {
  if (typeof value !== "string") return null;
  try {
    const u = new URL(value.trim());
    return schemes.includes(u.protocol.slice(0, -1)) ? u.href : null;
  } catch {
    return null;
  }
}

const isNode = (v: unknown): v is DocNode => typeof v === "object" && v !== null && !Array.isArray(v);
const children = (n: DocNode): DocNode[] => (Array.isArray(n.content) ? n.content.filter(isNode) : []);
const norm = (type: unknown): string =>
  typeof type === "string" ? type.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase() : "";

/** Deeper nesting than this is rendered as plain text: a hostile document must not exhaust the stack. */
const MAX_DEPTH = 64;

function plainText(root: DocNode): string {
  let out = "";
  const stack: DocNode[] = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (typeof n.text === "string") out += escapeHtml(n.text);
    stack.push(...children(n).reverse());
  }
  return out;
}

function renderText(n: DocNode): string {
  let html = escapeHtml(typeof n.text === "string" ? n.text : "");
  const marks = Array.isArray(n.marks) ? n.marks.filter(isNode) : [];
  for (const mark of marks) {
    switch (norm(mark.type)) {
      case "bold":
      case "strong":
        html = `<strong>${html}</strong>`;
        break;
      case "italic":
      case "em":
        html = `<em>${html}</em>`;
        break;
      case "code":
        html = `<code>${html}</code>`;
        break;
      case "strike":
        html = `<s>${html}</s>`;
        break;
      case "underline":
        html = `<u>${html}</u>`;
        break;
      case "link": {
        const href = safeUrl(mark.attrs?.href, ["http", "https", "mailto"]);
        if (href) html = `<a href="${escapeHtml(href)}">${html}</a>`;
        break;
      }
    }
  }
  return html;
}

function render(n: DocNode, depth: number): string {
  if (depth > MAX_DEPTH) return plainText(n);
  const inner = () =>
    children(n)
      .map((c) => render(c, depth + 1))
      .join("");
  switch (norm(n.type)) {
    case "text":
      return renderText(n);
    case "paragraph":
      return `<p>${inner()}</p>`;
    case "heading": {
      const level = Number(n.attrs?.level);
      const h = Number.isInteger(level) && level >= 1 && level <= 6 ? level : 2;
      return `<h${h}>${inner()}</h${h}>`;
    }
    case "bullet_list":
      return `<ul>${inner()}</ul>`;
    case "ordered_list": {
      const start = Number(n.attrs?.start);
      return Number.isInteger(start) && start !== 1 ? `<ol start="${start}">${inner()}</ol>` : `<ol>${inner()}</ol>`;
    }
    case "list_item":
      return `<li>${inner()}</li>`;
    case "blockquote":
      return `<blockquote>${inner()}</blockquote>`;
    case "code_block":
      return `<pre><code>${plainText(n)}</code></pre>`;
    case "horizontal_rule":
      return "<hr />";
    case "hard_break":
      return "<br />";
    case "image": {
      const src = safeUrl(n.attrs?.src, ["http", "https"]);
      const alt = typeof n.attrs?.alt === "string" ? ` alt="${escapeHtml(n.attrs.alt)}"` : "";
      return src ? `<img src="${escapeHtml(src)}"${alt} />` : "";
    }
    default:
      // doc and unknown nodes: their content still counts.
      return inner();
  }
}

/**
 * HTML of an editor document (see the module comment). All text is escaped; links keep only
 * http/https/mailto addresses and images only http/https ones. Anything not a document gives "".
 */
export function editorDocumentToHtml(doc: unknown): string {
  return isNode(doc) ? render(doc, 0) : "";
}
