/**
 * The offline article writer (issue 72, `AI_PROVIDER=catalog`, the default; test mode always): a
 * deterministic draft built from templates (offline-texts.ts), the brief's keyword, the profile and the
 * shop's cards and strategist data, with no network. It keeps the profile's rules as the model writers are
 * asked to (draft-check.ts) and counts tokens as a model would be charged for them.
 */
import type { ArticleBrief, ArticleDraft, BriefCard } from "@/server/lib/article-writing/article-brief";
import { articleSlug, clipText, countWords, escapeHtml, textOfHtml } from "./article-text";
import { briefText, wishedTitle } from "./brief-text";
import { avoidedIn, copiedRun, copyRuns, copyWords, COPY_RUN_WORDS, removeAvoided } from "./draft-check";
import { writingInstructions } from "@/server/lib/article-writing/instructions";
import { writerLanguage, writerTexts, type TextContext, type WriterTexts } from "./offline-texts";
import type { LanguageModel } from "@/server/services/ai-seller/language-model";
import { MAX_WRITE_INPUT_TOKENS, maxWriteOutputTokens } from "@/server/services/ai-seller/prices";
import { countTokens } from "@/server/services/ai-seller/token-counter";

/** The offline writer's model name, as priced (server/services/ai-seller/prices.ts). */
export const OFFLINE_WRITER_MODEL = "offline-writer-1";

/** A writer of articles: the article half of a language model. */
export type ArticleWriter = Pick<LanguageModel, "model" | "write">;

/** An article's HTML written block by block, each piece checked against the profile's rules as it comes. */
class ArticleHtml {
  private readonly blocks: string[] = [];
  private open: { tag: "p" | "ul"; parts: string[] } | null = null;
  /** The last words written, as the copy check compares them: a copied run may start in earlier text. */
  private tail: string[] = [];
  /** Words written so far (article-text.ts `countWords`). */
  words = 0;

  constructor(
    private readonly avoid: readonly string[],
    private readonly runs: ReadonlySet<string>,
  ) {}

  /** Takes `text` when it has no avoided word and does not complete a run of the example text. */
  private accept(text: string): boolean {
    if (!text.trim() || avoidedIn(text, this.avoid).length) return false;
    const all = this.tail.concat(copyWords(text));
    if (this.runs.size)
      for (let i = 0; i + COPY_RUN_WORDS <= all.length; i++)
        if (this.runs.has(all.slice(i, i + COPY_RUN_WORDS).join(" "))) return false;
    this.tail = all.slice(-(COPY_RUN_WORDS - 1));
    this.words += countWords(text);
    return true;
  }

  private end(): void {
    if (this.open?.parts.length) {
      const { tag, parts } = this.open;
      this.blocks.push(tag === "p" ? `<p>${parts.join(" ")}</p>` : `<ul>\n${parts.join("\n")}\n</ul>`);
    }
    this.open = null;
  }

  private into(tag: "p" | "ul"): string[] {
    if (this.open?.tag !== tag) {
      this.end();
      this.open = { tag, parts: [] };
    }
    return this.open.parts;
  }

  /** Ends the paragraph being written: the next sentence starts a new one. */
  paragraphBreak(): void {
    if (this.open?.tag === "p") this.end();
  }

  /** A sentence of the current paragraph; false (dropped) when it breaks the rules. */
  sentence(text: string): boolean {
    if (!this.accept(text)) return false;
    this.into("p").push(escapeHtml(text));
    return true;
  }

  /**
   * A heading: with `scrub` (a label that must stay) the avoided words are cut out of it; false when
   * nothing acceptable is left (or, without `scrub`, when it breaks a rule).
   */
  heading(text: string, tag: "h2" | "h3" = "h2", scrub = true): boolean {
    const clean = scrub ? removeAvoided(text, this.avoid) : text;
    this.end();
    if (!this.accept(clean)) return false;
    this.blocks.push(`<${tag}>${escapeHtml(clean)}</${tag}>`);
    return true;
  }

  /** A list item: the first of `alternatives` (its text and its HTML) that keeps the rules; false if none. */
  item(alternatives: { text: string; html: string }[]): boolean {
    for (const alt of alternatives)
      if (this.accept(alt.text)) {
        this.into("ul").push(`<li>${alt.html}</li>`);
        return true;
      }
    return false;
  }

  html(): string {
    this.end();
    return this.blocks.join("\n");
  }
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
/** `Young parents` → `young parents` inside a sentence; `IT teams` stays. */
const lowerFirst = (s: string) => (/^\p{Lu}\p{Ll}/u.test(s) ? s.charAt(0).toLowerCase() + s.slice(1) : s);
const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));
/** The first `max` words of `text`, with `…` when some were cut. */
const firstWords = (text: string, max: number) => {
  const words = text.trim().split(/\s+/).filter(Boolean);
  return words.length <= max
    ? words.join(" ")
    : `${words
        .slice(0, max)
        .join(" ")
        .replace(/[,;:.\-–—]+$/u, "")}…`;
};
/** `text` ending with a sentence's punctuation. */
const closed = (text: string) => (/[.!?…]$/u.test(text) ? text : `${text}.`);
const wordsOf = (texts: (string | null | undefined)[]) => texts.reduce((n, t) => n + (t ? countWords(t) : 0), 0);

const FALLBACK = { ru: { k: "эта тема", s: "наш магазин" }, en: { k: "this topic", s: "our shop" } };

/** One card as a list item: name linked to its page, a short description and the price, or less of them. */
function cardItem(card: BriefCard, avoid: readonly string[], descWords: number) {
  const name = removeAvoided(clipText(card.name, 80), avoid);
  if (!name) return null;
  const desc = card.description?.trim() ? firstWords(card.description.replace(/\s+/g, " "), descWords) : "";
  const price = card.priceText?.trim() ? removeAvoided(clipText(card.priceText, 40), avoid) : "";
  const link = `<a href="${escapeHtml(card.url)}">${escapeHtml(name)}</a>`;
  const priced = price ? ` (${escapeHtml(price)})` : "";
  const alternatives = [
    ...(desc
      ? [{ text: `${name} — ${desc}${price ? ` (${price})` : ""}`, html: `${link} — ${escapeHtml(desc)}${priced}` }]
      : []),
    { text: `${name}${price ? ` (${price})` : ""}`, html: `${link}${priced}` },
    { text: name, html: link },
  ];
  return { name, alternatives };
}

/** The parts of an article that do not grow with its length, written in order around the growing ones. */
interface Fixed {
  intro: string[];
  products: {
    heading: string;
    intro: string;
    items: NonNullable<ReturnType<typeof cardItem>>[];
    sentences: string[];
  } | null;
  related: { topics: string[]; highlights: string[] } | null;
  conclusion: string[];
}

function fixedParts(brief: ArticleBrief, t: WriterTexts, c: TextContext, target: number): Fixed {
  const avoid = brief.profile.avoid;
  const items = brief.cards
    .slice(0, 5)
    .map((card) => cardItem(card, avoid, clamp(Math.round(target / 60), 6, 40)))
    .filter((i) => i !== null);
  const own = new Set([brief.keyword, brief.topic?.title ?? ""].map((s) => s.trim().toLowerCase()));
  const topics = brief.strategist.topics
    .map((s) => clipText(s, 120))
    .filter((s) => s && !own.has(s.toLowerCase()))
    .slice(0, clamp(Math.floor(target / 150), 1, 10))
    .map(cap);
  const highlights = brief.strategist.highlights
    .map((h) => clipText(h, target < 1_000 ? 160 : 300))
    .filter(Boolean)
    .slice(0, clamp(Math.floor(target / 400), 1, 10))
    .map((h) => t.highlight(closed(h)));
  return {
    intro: t.intro.slice(0, target >= 600 ? 3 : 2).map((f) => f(c)),
    products: items.length
      ? {
          heading: t.productsHeading(c),
          intro: t.productsIntro(c),
          items,
          // A sentence for the first two cards: more would read as a list a second time.
          sentences: target >= 600 ? items.slice(0, 2).map((it, i) => t.card[i % t.card.length]!(c, it.name)) : [],
        }
      : null,
    related: topics.length || highlights.length ? { topics, highlights } : null,
    conclusion: t.conclusion.slice(0, target >= 600 ? 2 : 1).map((f) => f(c)),
  };
}

/** Estimated words of the fixed parts: what they hold before any sentence is dropped. */
function fixedWords(
  f: Fixed,
  t: WriterTexts,
): { intro: number; products: number; related: number; conclusion: number } {
  return {
    intro: wordsOf(f.intro),
    products: f.products
      ? wordsOf([
          f.products.heading,
          f.products.intro,
          ...f.products.sentences,
          ...f.products.items.map((i) => i.alternatives[0]!.text),
        ])
      : 0,
    related: f.related ? wordsOf([t.relatedHeading, ...f.related.topics, ...f.related.highlights]) : 0,
    conclusion: wordsOf([t.conclusionHeading, ...f.conclusion]),
  };
}

/** Most sentences one growing section tries before it gives up (every template dropped by the avoid list). */
const MAX_TRIES = 2_000;

/** The article's title, meta and HTML: deterministic in the brief. */
export function composeArticle(
  brief: ArticleBrief,
): Pick<ArticleDraft, "title" | "slug" | "metaTitle" | "metaDescription" | "html"> {
  const lang = writerLanguage(brief.locale);
  const t = writerTexts(lang);
  const avoid = brief.profile.avoid;
  const runs = copyRuns(brief.profile.example_text ?? "");
  const clean = (s: string | null | undefined, max: number) =>
    s?.trim() ? removeAvoided(clipText(s, max), avoid) : "";
  const k =
    clean(brief.keyword, 120) || clean(brief.topic?.title, 120) || clean(brief.profile.niche, 120) || FALLBACK[lang].k;
  // The niche and the audience go inside sentences, several times: a long one would crowd the article out.
  const audience = clean(brief.profile.audience && firstWords(brief.profile.audience, 12), 100);
  const c: TextContext = {
    k,
    K: cap(k),
    n: clean(brief.profile.niche && firstWords(brief.profile.niche, 10), 100) || k,
    au: audience ? lowerFirst(audience) : null,
    s: clean(brief.shopName, 80) || FALLBACK[lang].s,
  };
  const target = Math.max(50, Math.round(brief.targetWords));
  const fixed = fixedParts(brief, t, c, target);
  const est = fixedWords(fixed, t);
  const headings = wordsOf([t.aboutHeading(c), t.chooseHeading, t.faqHeading]);
  const flex = Math.max(0, target - est.intro - est.products - est.related - est.conclusion - headings);
  const share = { about: 0.45, choose: 0.25, faq: 0.3 };
  const a = new ArticleHtml(avoid, runs);
  const aspects = t.aspects;

  // Intro.
  for (const s of fixed.intro) a.sentence(s);

  // What matters: blocks of one aspect each, a heading and up to 12 sentences in paragraphs of 3; a new
  // block (a new heading) only when there is room for more than a sentence or two.
  let goal = target - (share.choose + share.faq) * flex - est.products - est.related - est.conclusion - 3;
  a.heading(t.aboutHeading(c));
  for (let b = 0, written = 0, tries = 0; tries < MAX_TRIES; b++) {
    const aspect = aspects[b % aspects.length]!;
    const round = Math.floor(b / aspects.length);
    if (b > 0) {
      if (a.words >= goal) break;
      a.heading(t.aspectHeading(aspect.name, round));
    }
    a.paragraphBreak();
    let j = 0;
    for (; j < 12 && tries < MAX_TRIES; j++, tries++) {
      if (written >= 2 && a.words >= goal) break;
      if (j >= 6 && goal - a.words >= 40) break;
      if (j > 0 && j % 3 === 0) a.paragraphBreak();
      const template = t.about[(6 * ((b % aspects.length) + round) + j) % t.about.length]!;
      if (a.sentence(template(c, aspect.name))) written++;
    }
    if (written >= 2 && a.words >= goal) break;
  }

  // How to choose: a checklist of the aspects, then more advice in paragraphs.
  goal = target - share.faq * flex - est.products - est.related - est.conclusion - 2;
  a.heading(t.chooseHeading);
  if (target >= 600) a.sentence(t.chooseIntro);
  let items = 0;
  for (const aspect of aspects) {
    if (items >= 2 && a.words >= goal) break;
    const text = `${cap(aspect.name)}: ${aspect.hint}.`;
    const html = `<strong>${escapeHtml(cap(aspect.name))}</strong>: ${escapeHtml(aspect.hint)}.`;
    if (a.item([{ text, html }])) items++;
  }
  for (let m = 0; m < MAX_TRIES && a.words < goal; m++) {
    if (m % 4 === 0) a.paragraphBreak();
    const template = t.chooseMore[(m + Math.floor(m / aspects.length)) % t.chooseMore.length]!;
    a.sentence(template(c, aspects[(m * 7) % aspects.length]!.name));
  }

  // The shop's products, each linked to its page.
  if (fixed.products) {
    a.heading(fixed.products.heading);
    a.sentence(fixed.products.intro);
    for (const it of fixed.products.items) a.item(it.alternatives);
    for (const s of fixed.products.sentences) a.sentence(s);
  }

  // Related topics and highlights from the strategist.
  if (fixed.related) {
    a.heading(t.relatedHeading);
    if (fixed.related.topics.length) {
      if (target >= 600) a.sentence(t.relatedIntro);
      for (const topic of fixed.related.topics) a.item([{ text: topic, html: escapeHtml(topic) }]);
    }
    for (const h of fixed.related.highlights) a.sentence(h);
  }

  // Questions and answers: at least one pair, unless a short article has no room left for it.
  goal = target - est.conclusion;
  const minPairs = target >= 600 || goal - a.words >= 20 ? 1 : 0;
  for (let i = 0, pairs = 0; i < MAX_TRIES; i++) {
    if (pairs >= minPairs && a.words >= goal) break;
    if (i === 0) a.heading(t.faqHeading);
    const aspect = aspects[(5 * i + 2) % aspects.length]!.name;
    const asked = i % t.questions.length;
    if (!a.heading(t.questions[asked]!(c, aspect), "h3", false)) continue;
    a.sentence(t.answers[asked]!(c, aspect));
    a.sentence(t.generalAnswers[(i + Math.floor(i / t.questions.length)) % t.generalAnswers.length]!);
    pairs++;
  }

  a.heading(t.conclusionHeading);
  for (const s of fixed.conclusion) a.sentence(s);

  const html = a.html();
  const fits = (s: string) => Boolean(s) && !avoidedIn(s, avoid).length && !copiedRun(s, runs);
  // A title the order asked for keeps what is left of it; a template that would lose words gives way to the keyword.
  const title = [wishedTitle(brief) ?? "", t.title(c), c.K].find(fits) ?? (lang === "ru" ? "Статья" : "Article");
  const description = [t.metaDescription(c), title].find(fits) ?? title;
  return {
    title,
    slug: articleSlug(title),
    metaTitle: clipText(title, 70),
    metaDescription: clipText(description, 170),
    html,
  };
}

/**
 * The offline writer: {@link composeArticle}'s draft of the brief, in Russian for a `ru` locale and in
 * English otherwise, near `targetWords` words (within a quarter for 300-4,000), keeping the profile's avoid
 * list and never copying its example text. Usage as a model would be charged: the input is the o200k count
 * of the instructions (instructions.ts) and the brief (brief-text.ts) a model would be sent, at most
 * `MAX_WRITE_INPUT_TOKENS`; the output is the count of the HTML, at most `maxWriteOutputTokens(targetWords)`.
 * Same brief, same draft.
 * @throws Error only when the token counter's worker fails
 */
export function offlineWriter(): ArticleWriter {
  return {
    model: OFFLINE_WRITER_MODEL,
    async write(brief: ArticleBrief): Promise<ArticleDraft> {
      const article = composeArticle(brief);
      const prompt = `${writingInstructions(brief.profile, { locale: brief.locale, targetWords: brief.targetWords })}\n\n${briefText(brief)}`;
      const [inputTokens, outputTokens] = await countTokens([prompt, article.html]);
      return {
        ...article,
        wordCount: countWords(textOfHtml(article.html)),
        model: OFFLINE_WRITER_MODEL,
        inputTokens: Math.min(inputTokens!, MAX_WRITE_INPUT_TOKENS),
        outputTokens: Math.min(outputTokens!, maxWriteOutputTokens(brief.targetWords)),
      };
    },
  };
}
