/**
 * What the article writer is given and what it answers (issue 72 item 3): the contract between the
 * generation run (server/services/article-generation/generation-run.ts) and the writers behind the
 * language-model interface (server/services/ai-seller/language-model.ts `LanguageModel.write`): the offline
 * draft writer (server/services/article-generation/offline-writer.ts) and the OpenAI-compatible one
 * (server/services/ai-seller/openai-writer.ts). Pure: the console imports them too (the profile's
 * instructions preview, instructions.ts).
 */

/** Where topics come from (spec "Articles: planned routes", editorial profile `topic_sources`). */
export const TOPIC_SOURCES = ["own_site", "wordstat", "search_console", "competitors", "manual", "urls"] as const;
export type TopicSource = (typeof TOPIC_SOURCES)[number];

/**
 * The tenant's editorial profile (spec "Articles: planned routes"): strings, except `topic_sources`,
 * `source_urls` and `avoid`, which are arrays of strings. Unset strings are null; unset arrays are [].
 * Generation needs `niche` (409 `editorial_profile_required` without it).
 */
export interface EditorialProfile {
  niche: string | null;
  audience: string | null;
  tone: string | null;
  presentation: string | null;
  topic_sources: TopicSource[];
  source_urls: string[];
  /** Words and phrases the text must not contain (matched case-insensitively). */
  avoid: string[];
  /** A sample of the tenant's own writing whose style the text follows (never copied). */
  example_text: string | null;
  /** BCP 47 language tag of the articles, such as `ru` or `en-GB`; null: the cell's language. */
  locale: string | null;
}

/** The profile of a tenant that never saved one: every field unset. */
export const EMPTY_EDITORIAL_PROFILE: Readonly<EditorialProfile> = Object.freeze({
  niche: null,
  audience: null,
  tone: null,
  presentation: null,
  topic_sources: [],
  source_urls: [],
  avoid: [],
  example_text: null,
  locale: null,
});

/** A product card of the tenant the article may link to (its matching active cards, at most 5). */
export interface BriefCard {
  code: string;
  name: string;
  description: string | null;
  priceText: string | null;
  /** The card's page on the tenant's site (absolute URL), linked from the article. */
  url: string;
}

/** What the writer writes about: one article's brief. */
export interface ArticleBrief {
  /** The tenant's shop or brand name. */
  shopName: string;
  /** The profile, with `niche` set. */
  profile: EditorialProfile & { niche: string };
  /** The strategist topic the article is ordered from, or null for a keyword order. */
  topic: { title: string; rationale: string | null } | null;
  /** The keyword the article targets: the order's `keyword`, or the topic's title. */
  keyword: string;
  /** A title the order asked for; null: the writer makes one. */
  title: string | null;
  /** Language of the article: the order's `locale`, else the profile's, else the cell's (`ru`, `en`, `id`). */
  locale: string;
  /** Words the article should have, 300-4,000. */
  targetWords: number;
  /** The tenant's cards that match the keyword, best first (at most 5). */
  cards: BriefCard[];
  /** The tenant's strategist data: open topic titles and report highlights (at most 10 each). */
  strategist: { topics: string[]; highlights: string[] };
}

/** The writer's answer: the article and what writing it used. */
export interface ArticleDraft {
  title: string;
  /** Lowercase ASCII words joined by `-`, at most 120 characters. */
  slug: string;
  /** At most 70 characters. */
  metaTitle: string;
  /** At most 170 characters. */
  metaDescription: string;
  /** HTML with `<h2>` headings (no `<h1>`: the page's title is the article's), not yet sanitized. */
  html: string;
  /** Words of the text of `html`. */
  wordCount: number;
  /** The model as priced (server/services/ai-seller/prices.ts) and reported in `usage.model`. */
  model: string;
  inputTokens: number;
  outputTokens: number;
}
