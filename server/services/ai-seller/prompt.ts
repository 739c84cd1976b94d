import type { ChatTurn, SellerCard, SellerInput } from "./language-model";
import { MAX_INPUT_TOKENS } from "./prices";

type Tokenizer = typeof import("gpt-tokenizer");
let tokenizer: Promise<Tokenizer> | undefined;

/**
 * gpt-tokenizer, loaded on the first count: its o200k tables take about 70 MB resident, which a server
 * that never runs an AI reply (the idle demo, a key without the preview) should not pay for.
 */
export function loadTokenizer(): Promise<Tokenizer> {
  return (tokenizer ??= import("gpt-tokenizer"));
}

/** One message of a chat prompt. */
export interface PromptMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** A prompt as a chat model receives it and its exact size. */
export interface Prompt {
  messages: PromptMessage[];
  /** Tokens of the prompt ({@link promptTokens}, o200k encoding); never more than the budget asked for. */
  tokens: number;
}

const SYSTEM = "You are the sales assistant of an online shop. Recommend at most 3 cards of the catalog.";

/** The most of a shop's name the prompt carries, characters: the header always fits the limit. */
const MAX_SHOP_NAME = 200;

/** A card as one line of the prompt's catalog (whitespace, newlines included, collapsed to one space). */
const catalogLine = (c: SellerCard) =>
  [c.code, c.name, c.priceText, c.badge, c.description].filter(Boolean).join(" | ").replace(/\s+/g, " ");

/**
 * The prompt of an AI reply, within `budget` tokens as o200k counts them (default {@link MAX_INPUT_TOKENS},
 * the size a reply's hold is priced for, server/services/ai-seller/prices.ts `maxCostMinor`): a system
 * message with the shop (its name cut to {@link MAX_SHOP_NAME} characters) and as much of its catalog as
 * fits, then the conversation's turns (oldest first) as user and assistant messages.
 *
 * What is kept when everything does not fit, in this order: the customer's last message (cut at a
 * character to what fits when it alone is too long), the cards of `first` (the seller's picks for that
 * message), older turns newest first up to half of what is left, the rest of the catalog in the input's
 * order, then older turns again. Each part is tokenized once and the whole prompt once more (issue 22: a
 * catalog of 500 cards and 20 turns cost 14 ms when the whole prompt was recounted for each turn dropped,
 * and overran the limit by a third).
 */
export async function buildPrompt(
  input: SellerInput,
  first: SellerCard[] = [],
  budget: number = MAX_INPUT_TOKENS,
): Promise<Prompt> {
  const { countTokens } = await loadTokenizer();
  const header = `${SYSTEM}\nShop: ${input.shopName.slice(0, MAX_SHOP_NAME)}\nCatalog:`;
  const turnText = (t: ChatTurn) => `${chatRole(t)}: ${t.content}`;
  // Each part's count plus one for the newline that joins it to the next: a sum near the whole's count
  // (BPE may merge a newline with a neighbour), checked exactly at the end.
  const cost = (text: string) => countTokens(text) + 1;
  let left = budget - cost(`system: ${header}`);

  const turns = input.turns;
  const lastIndex = turns.length - 1;
  let last = turns[lastIndex];
  if (last && cost(turnText(last)) > left) {
    const prefix = `${chatRole(last)}: `;
    last = { ...last, content: longestPrefix(last.content, (t) => cost(prefix + t) <= left) };
  }
  if (last) left -= cost(turnText(last));

  const firstCodes = new Set(first.map((c) => c.code));
  const lines: string[] = [];
  const takeCards = (cards: Iterable<SellerCard>) => {
    for (const c of cards) {
      // A line costs at least 2 (a token and its newline): stop counting cards that cannot fit.
      if (left < 2) return;
      const line = catalogLine(c);
      const n = cost(line);
      if (n > left) continue;
      lines.push(line);
      left -= n;
    }
  };
  let older = lastIndex - 1;
  const kept: ChatTurn[] = [];
  const takeTurns = (room: number) => {
    for (; older >= 0; older--) {
      const n = cost(turnText(turns[older]!));
      if (n > room || n > left) break;
      kept.push(turns[older]!);
      room -= n;
      left -= n;
    }
  };
  takeCards(first);
  takeTurns(Math.floor(left / 2));
  takeCards(input.cards.filter((c) => !firstCodes.has(c.code)));
  takeTurns(left);

  const assemble = (): PromptMessage[] => [
    { role: "system", content: [header, ...lines].join("\n") },
    ...[...kept].reverse().map((t) => ({ role: chatRole(t), content: t.content })),
    ...(last ? [{ role: chatRole(last), content: last.content }] : []),
  ];
  let messages = assemble();
  let tokens = promptTokensWith(countTokens, messages);
  // The estimate was short (not seen in the tests, kept as the guarantee): drop the oldest turn, else the
  // catalog's last line, else cut the last message further, until it fits.
  while (tokens > budget) {
    if (kept.length > 0) kept.pop();
    else if (lines.length > 0) lines.pop();
    else if (last?.content) {
      const allowed = countTokens(last.content) - (tokens - budget);
      last = { ...last, content: longestPrefix(last.content, (t) => countTokens(t) <= allowed) };
    } else break;
    messages = assemble();
    tokens = promptTokensWith(countTokens, messages);
  }
  return { messages, tokens };
}

/**
 * The longest prefix of `text`, cut between characters (code points), for which `fits` holds, by binary
 * search over its length (`fits` must hold for shorter prefixes when it holds for a longer one; it does
 * for token counts). Cut at a character, not at a token: decoding part of a character's tokens would
 * leave a broken character (gpt-tokenizer's decoder also keeps the cut bytes for its next call).
 */
function longestPrefix(text: string, fits: (prefix: string) => boolean): string {
  const chars = Array.from(text);
  let lo = 0;
  let hi = chars.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(chars.slice(0, mid).join(""))) lo = mid;
    else hi = mid - 1;
  }
  return chars.slice(0, lo).join("");
}

/** The prompt's messages only; see {@link buildPrompt}. */
export async function promptOf(
  input: SellerInput,
  first: SellerCard[] = [],
  budget: number = MAX_INPUT_TOKENS,
): Promise<PromptMessage[]> {
  return (await buildPrompt(input, first, budget)).messages;
}

/** Tokens of a prompt (o200k encoding), each message counted as `role: content` on its own line. */
export async function promptTokens(messages: { role: string; content: string }[]): Promise<number> {
  return promptTokensWith((await loadTokenizer()).countTokens, messages);
}

function promptTokensWith(count: Tokenizer["countTokens"], messages: { role: string; content: string }[]): number {
  return count(messages.map((m) => `${m.role}: ${m.content}`).join("\n"));
}

const chatRole = (t: ChatTurn): "user" | "assistant" => (t.role === "customer" ? "user" : "assistant");
