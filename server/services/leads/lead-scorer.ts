/**
 * The default lead scorer (issue 70, `POST /leads/{id}/score`): offline, deterministic and explainable. Six
 * features, each worth at most its weight in points; the sum (minus the penalties of the support and
 * supplier flags), clamped to 0-100, is the score. Documented in docs/leads.md "How a lead is scored";
 * a change of weights or words is a new `SCORER_MODEL` version.
 *
 * | feature      | at most | how                                                                          |
 * |--------------|---------|------------------------------------------------------------------------------|
 * | engagement   | 25      | customer messages in the linked conversation: 2.5 points each, up to 10      |
 * | buy_intent   | 25      | a buying word (price, order, invoice, delivery, купить, цена...) in the      |
 * |              |         | customer's messages, the title or the intent                                 |
 * | completeness | 15      | the contact's name, email, phone and place (country or city): 3.75 each      |
 * | value        | 15      | the lead's value: 3 points per power of ten of the amount, up to 100,000     |
 * | recency      | 10      | last activity (last customer message, else last change): 1 day 10, 7 days 6, |
 * |              |         | 30 days 3, older 0                                                           |
 * | source       | 10      | referral 10, organic or search 8, ads or paid 7, chat/widget/api/site 6,      |
 * |              |         | any other source 4, none 0                                                   |
 * | support      | −15     | a support word (refund, broken, не работает, возврат...): flag `support`     |
 * | supplier     | −30     | a supplier word (we offer, wholesale offer, поставщик...): flag `supplier`   |
 *
 * Grade: A from 75, B from 50, C from 25, else D. `reason`: the three features that gave most points, in
 * words, and the flags that took points away.
 */
export const SCORER_MODEL = "lead-score-1.0";

/** What the scorer reads of a lead. */
export interface ScorerInput {
  title: string | null;
  intent: string | null;
  source: string | null;
  /** The lead's value in minor units (any currency: the scale is what counts), null without one. */
  valueMinor: bigint | null;
  contact: {
    firstName: string | null;
    lastName: string | null;
    email: string | null;
    phone: string | null;
    geoCountry: string | null;
    geoCity: string | null;
  } | null;
  /** The customer's messages in the linked conversation, newest first (the scorer reads at most 50). */
  customerMessages: string[];
  /** Last customer message, else the lead's last change. */
  lastActivityAt: Date;
  now: Date;
}

/** The scorer's answer. */
export interface ScorerResult {
  score: number;
  grade: "A" | "B" | "C" | "D";
  reason: string;
  flags: { buy_intent: boolean; support: boolean; supplier: boolean };
  /** Points per feature (negative for the penalties), rounded to one decimal. */
  features: Record<string, number>;
  model: string;
}

const BUY_WORDS = [
  "buy",
  "price",
  "cost",
  "order",
  "invoice",
  "quote",
  "purchase",
  "how much",
  "delivery",
  "pay",
  "купить",
  "куплю",
  "цена",
  "цену",
  "стоимост",
  "сколько стоит",
  "заказ",
  "счёт",
  "счет",
  "доставк",
  "оплат",
];
const SUPPORT_WORDS = [
  "refund",
  "broken",
  "not working",
  "doesn't work",
  "complaint",
  "warranty",
  "return the",
  "не работает",
  "сломал",
  "возврат",
  "жалоб",
  "гаранти",
];
const SUPPLIER_WORDS = [
  "we offer",
  "wholesale offer",
  "our services",
  "partnership",
  "supplier",
  "предлагаем",
  "поставщик",
  "сотрудничеств",
  "коммерческое предложение",
];

const SOURCE_POINTS: [RegExp, number][] = [
  [/referr?al|recommend/i, 10],
  [/organic|search|seo/i, 8],
  [/ads?\b|paid|cpc|ppc|adwords|direct/i, 7],
  [/chat|widget|api|site|web|form/i, 6],
];

const WORDS: Record<string, string> = {
  engagement: "an engaged conversation",
  buy_intent: "buying words in the conversation",
  completeness: "a complete contact",
  value: "a sizeable value",
  recency: "recent activity",
  source: "a strong source",
};

/** The table's order: how ties between features of equal points are named in `reason`. */
const ORDER = Object.keys(WORDS);

const has = (texts: string[], words: string[]) => texts.some((t) => words.some((w) => t.includes(w)));
const round1 = (n: number) => Math.round(n * 10) / 10;
const DAY_MS = 86_400_000;

/** Scores a lead by the table above. Pure: the same input always gives the same result. */
export function scoreLead(input: ScorerInput): ScorerResult {
  const messages = input.customerMessages.slice(0, 50);
  const texts = [...messages, input.title ?? "", input.intent ?? ""].map((t) => t.toLowerCase());
  const flags = {
    buy_intent: has(texts, BUY_WORDS),
    support: has(texts, SUPPORT_WORDS),
    supplier: has(texts, SUPPLIER_WORDS),
  };
  const c = input.contact;
  const contactParts = c
    ? [c.firstName || c.lastName, c.email, c.phone, c.geoCountry || c.geoCity].filter(Boolean).length
    : 0;
  const amount = input.valueMinor !== null && input.valueMinor > 0n ? Number(input.valueMinor) / 100 : 0;
  const ageDays = (input.now.getTime() - input.lastActivityAt.getTime()) / DAY_MS;
  const source = input.source?.trim() ?? "";
  const features: Record<string, number> = {
    engagement: Math.min(messages.length, 10) * 2.5,
    buy_intent: flags.buy_intent ? 25 : 0,
    completeness: contactParts * 3.75,
    value: Math.min(15, amount > 0 ? 3 * Math.log10(1 + amount) : 0),
    recency: ageDays <= 1 ? 10 : ageDays <= 7 ? 6 : ageDays <= 30 ? 3 : 0,
    source: source ? (SOURCE_POINTS.find(([re]) => re.test(source))?.[1] ?? 4) : 0,
    support: flags.support ? -15 : 0,
    supplier: flags.supplier ? -30 : 0,
  };
  for (const k of Object.keys(features)) features[k] = round1(features[k]!);
  const sum = Object.values(features).reduce((a, b) => a + b, 0);
  const score = Math.max(0, Math.min(100, Math.round(sum)));
  const grade = score >= 75 ? "A" : score >= 50 ? "B" : score >= 25 ? "C" : "D";
  const top = Object.entries(features)
    .filter(([k, v]) => v > 0 && WORDS[k])
    .sort((a, b) => b[1] - a[1] || ORDER.indexOf(a[0]) - ORDER.indexOf(b[0]))
    .slice(0, 3)
    .map(([k]) => WORDS[k]!);
  const against = [flags.support && "it reads as a support request", flags.supplier && "it reads as a supplier's offer"]
    .filter(Boolean)
    .join("; ");
  const reason =
    (top.length ? `Grade ${grade}: ${top.join(", ")}.` : `Grade ${grade}: little is known about this lead yet.`) +
    (against ? ` Lower because ${against}.` : "");
  return { score, grade, reason, flags, features, model: SCORER_MODEL };
}
