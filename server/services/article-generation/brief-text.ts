/**
 * An article's brief as the writer's request (issue 72): the user message of the OpenAI-compatible writer
 * (server/services/ai-seller/openai-writer.ts), counted as part of the offline writer's input. Pure.
 */
import type { ArticleBrief } from "@/server/lib/article-writing/article-brief";
import { removeAvoided } from "./draft-check";

/** Most characters of a card's description, of a strategist topic or highlight, and of the topic's rationale. */
export const MAX_BRIEF_ITEM_CHARS = 300;

const line = (text: string, max = MAX_BRIEF_ITEM_CHARS) => {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length <= max ? t : `${t.slice(0, max - 1).trimEnd()}…`;
};

/** Most characters of an article's title. */
export const MAX_TITLE_CHARS = 200;

/**
 * The title the order asked for, as the article carries it: whitespace collapsed, cut to
 * {@link MAX_TITLE_CHARS}, the profile's avoided words cut out (draft-check.ts `removeAvoided`), a capital
 * first letter; null when the order asked for none (or nothing is left of it).
 */
export function wishedTitle(brief: Pick<ArticleBrief, "title" | "profile">): string | null {
  if (!brief.title?.trim()) return null;
  const title = removeAvoided(line(brief.title, MAX_TITLE_CHARS), brief.profile.avoid);
  return title ? title.charAt(0).toUpperCase() + title.slice(1) : null;
}

/**
 * The brief in plain English lines: the shop, the keyword, the strategist topic and why it was chosen, the
 * title wished for ({@link wishedTitle}; or that the writer makes one), language and length, the product cards to link (name,
 * URL, price, description) and the strategist's open topics and report highlights. Long items are cut to
 * {@link MAX_BRIEF_ITEM_CHARS}; the brief holds at most 5 cards and 10 topics and highlights.
 */
export function briefText(brief: ArticleBrief): string {
  const lines = [`Shop: ${line(brief.shopName)}`, `Keyword: ${line(brief.keyword)}`];
  if (brief.topic) {
    lines.push(`Topic: ${line(brief.topic.title)}`);
    if (brief.topic.rationale?.trim()) lines.push(`Why this topic: ${line(brief.topic.rationale)}`);
  }
  const title = wishedTitle(brief);
  lines.push(
    title ? `Title: use exactly "${title}"` : "Title: write one that fits the keyword",
    `Language: ${brief.locale}`,
    `Length: about ${brief.targetWords} words`,
  );
  if (brief.cards.length) {
    lines.push("Products of the shop to mention, each linked to its URL:");
    for (const c of brief.cards.slice(0, 5))
      lines.push(
        `- ${[line(c.name), c.url, c.priceText && line(c.priceText), c.description && line(c.description)].filter(Boolean).join(" | ")}`,
      );
  }
  if (brief.strategist.topics.length) {
    lines.push("Other topics of the shop's content plan (mention them where related):");
    for (const t of brief.strategist.topics.slice(0, 10)) lines.push(`- ${line(t)}`);
  }
  if (brief.strategist.highlights.length) {
    lines.push("Highlights of the shop's reports (facts you may use):");
    for (const h of brief.strategist.highlights.slice(0, 10)) lines.push(`- ${line(h)}`);
  }
  return lines.join("\n");
}
