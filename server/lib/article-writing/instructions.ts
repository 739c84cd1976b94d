/**
 * The writing instructions an editorial profile produces (issue 72): the system prompt of the
 * OpenAI-compatible writer (server/services/ai-seller/openai-writer.ts), counted as the offline writer's
 * input, and the live preview the console shows while staff edit the profile. Pure and browser-safe: it
 * imports only the contract's types.
 */
import type { EditorialProfile, TopicSource } from "./article-brief";

/** Most characters of one free-text field of the profile in the instructions (the prompt stays small). */
export const MAX_FIELD_CHARS = 500;
/** Most characters of the example text in the instructions. */
export const MAX_EXAMPLE_CHARS = 2_000;
/** Most source URLs listed, and most characters of one. */
export const MAX_SOURCE_URLS = 20;
const MAX_URL_CHARS = 300;
/** Most avoid entries listed, and most characters of one. */
export const MAX_AVOID_ENTRIES = 100;
const MAX_AVOID_CHARS = 100;

const SOURCES: Record<TopicSource, string> = {
  own_site: "the shop's own site and catalog",
  wordstat: "search demand in Yandex Wordstat",
  search_console: "the site's queries in Google Search Console",
  competitors: "competitors' sites",
  manual: "topics the shop's staff chose",
  urls: "the source URLs below",
};

/** `text`, whitespace collapsed unless `keepLines`, cut to `max` characters with `…` (at a space when it can be). */
function clip(text: string, max: number, keepLines = false): string {
  const t = keepLines
    ? text
        .replace(/\r\n?/g, "\n")
        .replace(/[^\S\n]+/g, " ")
        .replace(/\n{3,}/g, "\n\n")
        .trim()
    : text.replace(/\s+/g, " ").trim();
  if (t.length <= max) return t;
  const head = t.slice(0, max - 1);
  const space = head.search(/\s\S*$/);
  return `${(space >= max / 2 ? head.slice(0, space) : head).trimEnd()}…`;
}

/** English name of a BCP 47 tag (`ru` → Russian, `en-GB` → British English), or the tag when unknown. */
export function languageName(locale: string): string {
  try {
    const name = new Intl.DisplayNames(["en"], { type: "language", fallback: "none" }).of(locale);
    if (name) return name;
  } catch {
    // Not a well-formed tag: named as given.
  }
  return locale;
}

/** `1200` → `1,200`, without the runtime's locale data. */
const grouped = (n: number) => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/**
 * The plain-text English instructions for writing an article in `profile`'s way, one line a rule, in a
 * fixed order, a line left out when its field is unset: niche, audience, tone, presentation, where topics
 * come from, the source URLs, the words and phrases to avoid, the example text as a style sample not to
 * copy, the language (`opts.locale`, else the profile's `locale`) and the length (`opts.targetWords`).
 * Long fields are cut ({@link MAX_FIELD_CHARS}, {@link MAX_EXAMPLE_CHARS}, {@link MAX_SOURCE_URLS},
 * {@link MAX_AVOID_ENTRIES}) so the prompt stays within what a generation is priced for. Deterministic:
 * the same profile and options give the same text.
 */
export function writingInstructions(
  profile: EditorialProfile,
  opts: { locale?: string; targetWords?: number } = {},
): string {
  const lines = ["You write articles for the blog of an online shop, following the shop's editorial profile."];
  const field = (label: string, value: string | null) => {
    if (value?.trim()) lines.push(`${label}: ${clip(value, MAX_FIELD_CHARS)}`);
  };
  field("Niche", profile.niche);
  field("Audience (write for these readers)", profile.audience);
  field("Tone", profile.tone);
  field("Presentation", profile.presentation);
  const sources = [...new Set(profile.topic_sources)].map((s) => SOURCES[s]).filter(Boolean);
  if (sources.length) lines.push(`Topics come from: ${sources.join("; ")}.`);
  const urls = profile.source_urls.map((u) => u.trim()).filter(Boolean);
  if (urls.length) {
    lines.push("Source URLs (for facts and context only; do not copy their text):");
    for (const u of urls.slice(0, MAX_SOURCE_URLS)) lines.push(`- ${clip(u, MAX_URL_CHARS)}`);
  }
  const avoid = [...new Set(profile.avoid.map((a) => a.trim()).filter(Boolean))];
  if (avoid.length)
    lines.push(
      `Never use these words or phrases, in any letter case: ${avoid
        .slice(0, MAX_AVOID_ENTRIES)
        .map((a) => `"${clip(a, MAX_AVOID_CHARS)}"`)
        .join(", ")}.`,
    );
  if (profile.example_text?.trim()) {
    lines.push(
      "Style sample of the shop's own writing: follow its voice and style, but do not copy its sentences or any run of its words:",
      '"""',
      clip(profile.example_text, MAX_EXAMPLE_CHARS, true),
      '"""',
    );
  }
  const locale = (opts.locale ?? profile.locale)?.trim();
  if (locale) lines.push(`Language: write in ${languageName(locale)} (${locale}).`);
  if (opts.targetWords) lines.push(`Length: about ${grouped(opts.targetWords)} words.`);
  lines.push(
    "Structure: a short introduction, then sections under <h2> headings (no <h1>), with paragraphs and lists; link the shop's products you mention.",
  );
  return lines.join("\n");
}
