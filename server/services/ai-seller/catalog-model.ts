import MiniSearch from "minisearch";
import type { LanguageModel, SellerCard, SellerInput, SellerOutput } from "./language-model";
import { buildPrompt } from "./prompt";
import { countTokens } from "./token-counter";
import { offlineWriter } from "@/server/services/article-generation/offline-writer";
import { offlineAnalyst } from "@/server/services/strategist/offline-analyst";

/** Languages the catalog seller answers in (ISO 639-1); anything else is answered in English. */
export type SellerLanguage = "ru" | "en" | "id";

const INDONESIAN = /\b(apa|yang|saya|ada|berapa|harga|mau|beli|untuk|dengan|tidak|bisa|ini|itu|sepatu|baju)\b/i;

/** The customer's language from their text: Cyrillic → ru, common Indonesian words → id, else en. */
export function detectLanguage(text: string): SellerLanguage {
  if (/[а-яё]/i.test(text)) return "ru";
  if (INDONESIAN.test(text)) return "id";
  return "en";
}

const TEXT: Record<
  SellerLanguage,
  { found: (names: string, first: string) => string; none: (shop: string) => string; more: string }
> = {
  ru: {
    found: (names, first) => `Посмотрите, пожалуйста: ${names}. Советую начать с «${first}».`,
    none: (shop) => `Спасибо за вопрос! Уточните, пожалуйста, что вы ищете, и я подберу товары из каталога ${shop}.`,
    more: "Подсказать детали или помочь оформить заказ?",
  },
  en: {
    found: (names, first) => `Have a look at: ${names}. I would start with "${first}".`,
    none: (shop) =>
      `Thanks for your question! Tell me a little more about what you need and I will pick items from the ${shop} catalog.`,
    more: "Shall I tell you more or help you place an order?",
  },
  id: {
    found: (names, first) => `Silakan lihat: ${names}. Saya sarankan mulai dari "${first}".`,
    none: (shop) =>
      `Terima kasih atas pertanyaannya! Ceritakan sedikit lagi apa yang Anda cari, saya akan memilihkan produk dari katalog ${shop}.`,
    more: "Mau saya jelaskan lebih lanjut atau bantu memesan?",
  },
};

/**
 * Ranks `cards` for each query in turn and answers the first query's up to 3 cards that finds any (minisearch,
 * fuzzy and prefix); one index serves every query. [] when no query finds a card.
 */
export function rankCards(cards: SellerCard[], ...queries: string[]): SellerCard[] {
  const asked = queries.filter((q) => q.trim());
  if (!cards.length || !asked.length) return [];
  const index = new MiniSearch<SellerCard>({
    idField: "code",
    fields: ["name", "description", "badge"],
    storeFields: ["code"],
    searchOptions: { boost: { name: 2 }, fuzzy: 0.2, prefix: true, combineWith: "OR" },
  });
  index.addAll(cards);
  const byCode = new Map(cards.map((c) => [c.code, c]));
  for (const query of asked) {
    const found = index.search(query);
    if (found.length) return found.slice(0, 3).map((r) => byCode.get(String(r.id))!);
  }
  return [];
}

/**
 * The offline, deterministic AI seller (`AI_PROVIDER=catalog`, the default): answers the customer's last
 * message in their language with a short recommendation of up to 3 of the shop's active cards that match
 * their recent words, and counts the tokens of the prompt a chat model would get (prompt.ts `buildPrompt`,
 * its picks listed first) with a real tokenizer (gpt-tokenizer, o200k) so usage is priced like a real model's.
 * Articles are written by the offline writer (server/services/article-generation/offline-writer.ts, model
 * `offline-writer-1`); the strategist's turns by the offline analyst (server/services/strategist/offline-analyst.ts,
 * model `offline-analyst-1`).
 */
export function catalogModel(): LanguageModel {
  const writer = offlineWriter();
  const analyst = offlineAnalyst();
  return {
    model: "catalog-1",
    async reply(input: SellerInput): Promise<SellerOutput> {
      const customer = input.turns.filter((t) => t.role === "customer");
      const last = customer[customer.length - 1]?.content ?? "";
      const lang = detectLanguage(last);
      // The last message's words first, then all of the customer's.
      const picks = rankCards(input.cards, last, customer.map((t) => t.content).join(" "));
      const t = TEXT[lang];
      const content = picks.length
        ? `${t.found(picks.map((c) => (c.priceText ? `${c.name} (${c.priceText})` : c.name)).join(", "), picks[0]!.name)} ${t.more}`
        : t.none(input.shopName);
      return {
        content,
        cardCodes: picks.map((c) => c.code),
        model: "catalog-1",
        inputTokens: (await buildPrompt(input, picks)).tokens,
        outputTokens: (await countTokens([content]))[0]!,
      };
    },
    writerModel: writer.model,
    write: (brief) => writer.write(brief),
    analystModel: analyst.model,
    analyze: (input) => analyst.analyze(input),
  };
}
