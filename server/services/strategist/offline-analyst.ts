import type { AnalystInput, AnalystOutput, StrategistFigures, TopicProposal } from "@/server/lib/strategist/analyst-io";
import { OPEN_TOPIC_STATUSES } from "@/server/schemas/strategist";
import type { LanguageModel } from "@/server/services/ai-seller/language-model";
import { MAX_ANALYST_INPUT_TOKENS, MAX_ANALYST_OUTPUT_TOKENS } from "@/server/services/ai-seller/prices";
import { countTokens, longestPrefixWithin } from "@/server/services/ai-seller/token-counter";
import { articleSlug } from "@/server/services/article-generation/article-text";
import { heading, proposalsLine, SECTIONS, type AnalystLanguage, type Period } from "./analyst-texts";

/** The offline analyst's model name, as priced (server/services/ai-seller/prices.ts). */
export const OFFLINE_ANALYST_MODEL = "offline-analyst-1";

/** What a question can ask about; `compare` only picks the period and, alone, the overview's sections. */
export type Intent = keyof typeof SECTIONS | "compare";

// Stems rather than words for Russian: JavaScript's \b knows only ASCII letters.
const INTENT_WORDS: [Intent, RegExp][] = [
  ["leads", /\b(leads?|deals?|sales|won)\b|лид|заявк|сделк|продаж/i],
  ["sources", /\b(sources?|channels?|utm)\b|where .* come from|источник|канал|откуда/i],
  ["funnel", /\b(funnel|conversions?|drop[- ]?offs?|convert)/i],
  ["funnel", /воронк|конверси/i],
  ["conversations", /\b(conversations?|chats?|dialog(ue)?s?|handoffs?|operators?)\b|диалог|переписк|чат|оператор/i],
  ["articles", /\b(articles?|posts?|blog|traffic|pages?)\b|стать|блог|трафик|страниц/i],
  ["topics", /\b(topics?|ideas?|content|write about|propos\w*)\b|тем(а|ы|у|ой|ам|ами|атик)|иде[яию]|контент|предлож/i],
  [
    "compare",
    /\b(compare|comparison|vs|versus|week|weekly|month|monthly|growth|grew|trend|change)\b|сравн|недел|месяц|рост|динамик|измен/i,
  ],
];

/** The intents a question names, in a fixed order, without repeats. */
export function intentsOf(question: string): Intent[] {
  const found = new Set<Intent>();
  for (const [intent, re] of INTENT_WORDS) if (re.test(question)) found.add(intent);
  return [...found];
}

/** The comparison a question asks for: 30 days when it names a month, else 7 days. */
export function periodOf(question: string): Period {
  return /\b(month|monthly|30 days)\b|месяц|30 дн/i.test(question) ? "month" : "week";
}

const languageOf = (text: string): AnalystLanguage => (/[а-яё]/i.test(text) ? "ru" : "en");

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1).trimEnd()}…` : s);
const clamp = (n: number) => Math.max(0, Math.min(100, Math.round(n)));

/**
 * Up to `max` topics from the tenant's keywords (most used first) and active cards (catalog order),
 * keyword and card candidates alternating, in `lang`; a title equal (case-insensitive, trimmed) to an
 * open topic's or another proposal's is skipped. The rationale cites a figure; `trendScore` (0-100) grows
 * with the keyword's articles and the last 30 days' leads; `clusterId` is the keyword's or card's slug.
 */
export function proposeTopics(f: StrategistFigures, lang: AnalystLanguage, max = 3): TopicProposal[] {
  const taken = new Set(
    f.topics
      .filter((t) => (OPEN_TOPIC_STATUSES as readonly string[]).includes(t.status))
      .map((t) => t.title.trim().toLowerCase()),
  );
  const leads30 = f.leads.created.month.current;
  const fromKeywords: TopicProposal[] = f.keywords.map((k) => ({
    title: clip(lang === "ru" ? `Как выбрать: ${k.keyword}` : `How to choose ${k.keyword}`, 200),
    rationale:
      lang === "ru"
        ? `Ключевое слово «${k.keyword}»: статей ${k.articles}; лидов за последние 30 дней: ${leads30}.`
        : `The keyword "${k.keyword}" has ${k.articles} article(s); ${leads30} leads came in the last 30 days.`,
    trendScore: clamp(40 + 10 * Math.min(k.articles, 4) + Math.min(20, leads30)),
    clusterId: articleSlug(k.keyword),
  }));
  const fromCards: TopicProposal[] = f.cards.map((c, i) => ({
    title: clip(lang === "ru" ? `${c.name}: как выбрать и пользоваться` : `${c.name}: how to choose and use it`, 200),
    rationale:
      lang === "ru"
        ? `Активная карточка «${c.name}»${c.priceText ? ` (${c.priceText})` : ""}; лидов за последние 30 дней: ${leads30}.`
        : `The active card "${c.name}"${c.priceText ? ` (${c.priceText})` : ""}; ${leads30} leads came in the last 30 days.`,
    trendScore: clamp(30 + Math.min(30, leads30) + Math.max(0, 10 - 2 * i)),
    clusterId: articleSlug(c.name),
  }));
  const out: TopicProposal[] = [];
  for (let i = 0; out.length < max && i < Math.max(fromKeywords.length, fromCards.length); i++)
    for (const p of [fromKeywords[i], fromCards[i]]) {
      if (!p || out.length >= max) continue;
      const key = p.title.trim().toLowerCase();
      if (taken.has(key)) continue;
      taken.add(key);
      out.push(p);
    }
  return out;
}

/** The reply and proposals for one question, before tokens are counted (pure; see {@link offlineAnalyst}). */
export function answer(input: AnalystInput): { reply: string; proposals: TopicProposal[] } {
  const f = input.figures;
  const lang = languageOf(input.question);
  const period = periodOf(input.question);
  const intents = intentsOf(input.question);
  const subjects = intents.filter((i): i is keyof typeof SECTIONS => i !== "compare");
  const general = subjects.length === 0;
  // A bare comparison or no subject at all: the overview's sections.
  const sections = general
    ? intents.includes("compare")
      ? (["leads", "conversations", "articles"] as const)
      : (["leads", "sources", "funnel", "conversations", "articles"] as const)
    : subjects;
  const lines = [heading(input.shopName, f.asOf, lang), ...sections.map((s) => SECTIONS[s](f, period, lang))];
  const proposing =
    (general && !intents.includes("compare")) || subjects.includes("topics") || subjects.includes("articles");
  const topicLang: AnalystLanguage = f.language === "ru" || f.language === "en" ? f.language : lang;
  const proposals = proposing ? proposeTopics(f, topicLang) : [];
  if (proposing)
    lines.push(
      proposalsLine(
        proposals.map((p) => p.title),
        lang,
      ),
    );
  return { reply: lines.join("\n"), proposals };
}

/**
 * The offline, deterministic strategist (`AI_PROVIDER=catalog`, the default; issue 73 item 3): recognises
 * the question's subjects by English and Russian words (leads, sources, funnel, conversations, articles,
 * topics, comparisons), answers in the question's language with the tenant's figures and their periods
 * (a general summary when no subject matches), and proposes 0-3 topics from the keywords and cards when
 * asked about topics, articles or content, or on a general question. Tokens are counted as a model would be
 * charged (o200k, token-counter.ts): input = the serialized input, at most `MAX_ANALYST_INPUT_TOKENS` (the
 * analyst reads no more); output = the reply and the proposals' JSON, the reply cut so the total stays
 * within `MAX_ANALYST_OUTPUT_TOKENS`.
 */
export function offlineAnalyst(): Pick<LanguageModel, "analyze"> & { model: string } {
  return {
    model: OFFLINE_ANALYST_MODEL,
    async analyze(input: AnalystInput): Promise<AnalystOutput> {
      const answered = answer(input);
      const proposals = answered.proposals;
      let reply = answered.reply;
      const proposalsJson = JSON.stringify(proposals);
      const [inputTokens, replyTokens, proposalTokens] = await countTokens([
        JSON.stringify(input),
        reply,
        proposalsJson,
      ]);
      let outputTokens = replyTokens! + proposalTokens!;
      if (outputTokens > MAX_ANALYST_OUTPUT_TOKENS) {
        const cut = await longestPrefixWithin(reply, "", MAX_ANALYST_OUTPUT_TOKENS - proposalTokens!);
        reply = cut.prefix;
        outputTokens = cut.tokens + proposalTokens!;
      }
      return {
        reply,
        proposals,
        model: OFFLINE_ANALYST_MODEL,
        inputTokens: Math.min(inputTokens!, MAX_ANALYST_INPUT_TOKENS),
        outputTokens,
      };
    },
  };
}
