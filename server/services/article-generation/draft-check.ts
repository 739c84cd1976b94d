/**
 * Whether a draft keeps its editorial profile's rules (issue 72): no word or phrase of `avoid`, and no copy
 * of `example_text`. Pure and browser-safe.
 */
import type { ArticleDraft, EditorialProfile } from "@/server/lib/article-writing/article-brief";
import { textOfHtml } from "./article-text";

/** Runs of this many consecutive words of the example text, or more, found in an article are a copy. */
export const COPY_RUN_WORDS = 12;

const WORDISH = /[\p{L}\p{N}]/u;

/** Compiled avoid entries: the offline writer checks every sentence it writes against the whole list. */
const patterns = new Map<string, RegExp | null>();

/**
 * The pattern of one avoid entry (global: `test` is only called through {@link found}, which resets it):
 * its words in order with any whitespace between, `е` and `ё` alike.
 */
function avoidPattern(entry: string): RegExp | null {
  let re = patterns.get(entry);
  if (re === undefined) {
    if (patterns.size > 5_000) patterns.clear();
    patterns.set(entry, (re = compileAvoid(entry)));
  }
  return re;
}

function found(re: RegExp, text: string): boolean {
  re.lastIndex = 0;
  return re.test(text);
}

function compileAvoid(entry: string): RegExp | null {
  const words = entry.trim().split(/\s+/).filter(Boolean);
  if (!words.length) return null;
  const body = words
    .map((w) =>
      Array.from(w)
        .map((ch) => (/[её]/i.test(ch) ? "[её]" : ch.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")))
        .join(""),
    )
    .join("\\s+");
  const first = Array.from(words[0]!)[0]!;
  const last = Array.from(words[words.length - 1]!).at(-1)!;
  // Whole words only ("art" is not found in "article"); an entry that starts or ends with punctuation
  // has no word boundary to keep on that side.
  const start = WORDISH.test(first) ? "(?<![\\p{L}\\p{N}])" : "";
  const end = WORDISH.test(last) ? "(?![\\p{L}\\p{N}])" : "";
  return new RegExp(`${start}${body}${end}`, "giu");
}

/**
 * The entries of `avoid` found in `text`, in the list's order, each once: case-insensitive, whole words,
 * any whitespace between a phrase's words, `е` and `ё` the same letter. Blank entries are ignored.
 */
export function avoidedIn(text: string, avoid: readonly string[]): string[] {
  const hits: string[] = [];
  for (const entry of avoid) {
    const re = avoidPattern(entry);
    const key = entry.trim();
    if (re && found(re, text) && !hits.some((h) => h.toLowerCase() === key.toLowerCase())) hits.push(key);
  }
  return hits;
}

/**
 * `text` without the entries of `avoid` ({@link avoidedIn}'s matching), whitespace collapsed: for labels
 * that must stay (a title, a product's name) when a sentence could be dropped instead.
 */
export function removeAvoided(text: string, avoid: readonly string[]): string {
  let out = text;
  // Removing one entry can join words into another: a few rounds until nothing is found.
  for (let round = 0; round < 5 && avoidedIn(out, avoid).length; round++)
    for (const entry of avoid) {
      const re = avoidPattern(entry);
      if (re) out = out.replace(re, " ");
    }
  return out
    .replace(/\s+([,.;:!?])/g, "$1")
    .replace(/\s+/g, " ")
    .replace(/^[\s,.;:!?\-–—]+|[\s,;:\-–—]+$/gu, "")
    .trim();
}

/** The words of `text` as the copy check compares them: lowercase runs of letters and digits, `ё` as `е`. */
export function copyWords(text: string): string[] {
  return (
    text
      .toLowerCase()
      .replace(/ё/g, "е")
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** Every run of {@link COPY_RUN_WORDS} consecutive words of `text`, joined by spaces. */
export function copyRuns(text: string): Set<string> {
  const words = copyWords(text);
  const runs = new Set<string>();
  for (let i = 0; i + COPY_RUN_WORDS <= words.length; i++) runs.add(words.slice(i, i + COPY_RUN_WORDS).join(" "));
  return runs;
}

/** Most words of a copied run that {@link copiedRun} quotes. */
const MAX_QUOTED_WORDS = 30;

/**
 * The first copied run of `text`: its words from the first run of `runs` (from {@link copyRuns}) found,
 * extended while the following runs are copied too (at most {@link MAX_QUOTED_WORDS} words, then `…`),
 * or null.
 */
export function copiedRun(text: string, runs: ReadonlySet<string>): string | null {
  if (!runs.size) return null;
  const words = copyWords(text);
  const copied = (i: number) => runs.has(words.slice(i, i + COPY_RUN_WORDS).join(" "));
  for (let i = 0; i + COPY_RUN_WORDS <= words.length; i++) {
    if (!copied(i)) continue;
    let end = i + COPY_RUN_WORDS;
    while (end < words.length && copied(end - COPY_RUN_WORDS + 1)) end++;
    const quoted = words.slice(i, Math.min(end, i + MAX_QUOTED_WORDS)).join(" ");
    return end - i > MAX_QUOTED_WORDS ? `${quoted}…` : quoted;
  }
  return null;
}

/**
 * What in a draft breaks its profile's rules, as short English sentences a model can act on (the
 * OpenAI-compatible writer sends them back for one retry); empty when nothing does:
 * - each entry of `avoid` found ({@link avoidedIn}) in the text of `html`, the title or the meta title or
 *   description: `uses the avoided word or phrase "…"`;
 * - the example text copied: a run of {@link COPY_RUN_WORDS} or more consecutive words of `example_text`
 *   in the text of `html` or in the title or a meta field: `copies the example text: "…"`.
 */
export function draftViolations(
  draft: Pick<ArticleDraft, "html" | "title" | "metaTitle" | "metaDescription">,
  profile: Pick<EditorialProfile, "avoid" | "example_text">,
): string[] {
  const fields = [textOfHtml(draft.html), draft.title, draft.metaTitle, draft.metaDescription];
  // Field by field: a phrase is not found across the end of the title and the start of the text.
  const avoided = profile.avoid.map((e) => e.trim()).filter((e) => fields.some((f) => avoidedIn(f, [e]).length));
  const out = [...new Set(avoided)].map((e) => `uses the avoided word or phrase "${e}"`);
  const runs = copyRuns(profile.example_text ?? "");
  for (const field of fields) {
    const run = copiedRun(field, runs);
    if (run) {
      out.push(`copies the example text: "${run}"`);
      break;
    }
  }
  return out;
}
