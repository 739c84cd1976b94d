/**
 * Text helpers of the article writers (issue 72): the text of an article's HTML, its word count, clipping
 * to a length, slugs and HTML escaping. Pure and browser-safe.
 */

/** Inline elements: their tags join the text around them without a break (`foo<b>bar</b>` is one word). */
const INLINE = new Set(["a", "abbr", "b", "code", "em", "i", "mark", "small", "span", "strong", "sub", "sup", "u"]);

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** Decodes the named entities of {@link ENTITIES} and numeric ones (`&#1234;`, `&#x4D2;`); others stay. */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, code: string) => {
    if (code[0] === "#") {
      const n = code[1] === "x" || code[1] === "X" ? parseInt(code.slice(2), 16) : parseInt(code.slice(1), 10);
      return Number.isFinite(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : whole;
    }
    return ENTITIES[code.toLowerCase()] ?? whole;
  });
}

/**
 * The text of `html` as a reader sees it: tags removed (block tags leave a space, inline ones nothing),
 * comments, scripts and styles dropped, entities decoded, whitespace collapsed to single spaces.
 */
export function textOfHtml(html: string): string {
  return decodeEntities(
    html
      .replace(/<!--[\s\S]*?-->/g, " ")
      .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, " ")
      .replace(/<\/?([a-z][a-z0-9]*)\b[^>]*>/gi, (_, name: string) => (INLINE.has(name.toLowerCase()) ? "" : " ")),
  )
    .replace(/\s+/g, " ")
    .trim();
}

/** Words of `text`: whitespace-separated pieces with at least one letter or digit (a lone `—` is none). */
export function countWords(text: string): number {
  let n = 0;
  for (const piece of text.split(/\s+/)) if (/[\p{L}\p{N}]/u.test(piece)) n++;
  return n;
}

/**
 * `text` with its whitespace collapsed, cut to at most `max` characters (UTF-16 units, as JavaScript and
 * the database's varchar count them for these alphabets): at the last space that leaves a reasonable
 * start, with `…` in place of what was cut.
 */
export function clipText(text: string, max: number): string {
  const t = text.replace(/\s+/g, " ").trim();
  if (t.length <= max) return t;
  const head = t.slice(0, max - 1);
  // Cut at the last space of what fits, or right after it when it ends a word.
  const space = t[max - 1] === " " ? head.length : head.lastIndexOf(" ");
  const cut = space >= max / 2 ? head.slice(0, space) : head;
  return `${cut.replace(/[\s,;:.\-–—]+$/u, "")}…`;
}

/** Cyrillic letters (Russian, Ukrainian, Belarusian) in ASCII, after the common Russian passport style. */
const TRANSLIT: Record<string, string> = {
  а: "a",
  б: "b",
  в: "v",
  г: "g",
  д: "d",
  е: "e",
  ё: "e",
  ж: "zh",
  з: "z",
  и: "i",
  й: "y",
  к: "k",
  л: "l",
  м: "m",
  н: "n",
  о: "o",
  п: "p",
  р: "r",
  с: "s",
  т: "t",
  у: "u",
  ф: "f",
  х: "kh",
  ц: "ts",
  ч: "ch",
  ш: "sh",
  щ: "shch",
  ъ: "",
  ы: "y",
  ь: "",
  э: "e",
  ю: "yu",
  я: "ya",
  і: "i",
  ї: "yi",
  є: "ye",
  ґ: "g",
  ў: "u",
};

/** Longest slug, characters (ArticleDraft `slug`). */
export const MAX_SLUG_LENGTH = 120;

/**
 * A URL slug of `text`: Cyrillic transliterated, other accents dropped, lowercase ASCII letters and digits
 * in words joined by `-`, at most {@link MAX_SLUG_LENGTH} characters (cut between words when it can be);
 * `article` when nothing is left. A slug comes back unchanged.
 */
export function articleSlug(text: string): string {
  const ascii = Array.from(text.toLowerCase())
    .map((ch) => TRANSLIT[ch] ?? ch)
    .join("")
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "");
  let slug = ascii.replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  if (slug.length > MAX_SLUG_LENGTH) {
    const head = slug.slice(0, MAX_SLUG_LENGTH + 1);
    const dash = head.lastIndexOf("-");
    slug = (dash > MAX_SLUG_LENGTH / 2 ? head.slice(0, dash) : head.slice(0, MAX_SLUG_LENGTH)).replace(/-+$/, "");
  }
  return slug || "article";
}

/** `text` safe inside HTML text and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
