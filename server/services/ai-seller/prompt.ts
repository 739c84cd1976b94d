import type { ChatTurn, SellerCard, SellerInput } from "./language-model";
import { MAX_INPUT_TOKENS } from "./prices";
import { countTokens, longestPrefixWithin } from "./token-counter";

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
 * and overran the limit by a third). The counts come from the token counter's worker thread
 * (token-counter.ts): every part in one message, the whole prompt in a second.
 * @throws Error when the token counter's worker fails
 */
export async function buildPrompt(
  input: SellerInput,
  first: SellerCard[] = [],
  budget: number = MAX_INPUT_TOKENS,
): Promise<Prompt> {
  const header = `${SYSTEM}\nShop: ${input.shopName.slice(0, MAX_SHOP_NAME)}\nCatalog:`;
  const turnText = (t: ChatTurn) => `${chatRole(t)}: ${t.content}`;
  const turns = input.turns;
  // Every distinct part's count in one message to the token counter's worker (token-counter.ts), looked up
  // below; `first` is normally drawn from the catalog, so its lines are counted once, not twice.
  const parts = [
    ...new Set([
      `system: ${header}`,
      ...turns.map(turnText),
      ...first.map(catalogLine),
      ...input.cards.map(catalogLine),
    ]),
  ];
  const counted = await countTokens(parts);
  const known = new Map(parts.map((text, i) => [text, counted[i]!]));
  // Each part's count plus one for the newline that joins it to the next: a sum near the whole's count
  // (BPE may merge a newline with a neighbour), checked exactly at the end.
  const cost = (text: string) => known.get(text)! + 1;
  let left = budget - cost(`system: ${header}`);

  const lastIndex = turns.length - 1;
  let last = turns[lastIndex];
  if (last) {
    let lastCost = cost(turnText(last));
    if (lastCost > left) {
      // The longest prefix whose `role: prefix` line costs at most what is left (its count + 1 ≤ left).
      const cut = await longestPrefixWithin(last.content, `${chatRole(last)}: `, left - 1);
      last = { ...last, content: cut.prefix };
      lastCost = cut.tokens + 1;
    }
    left -= lastCost;
  }

  const firstCodes = new Set(first.map((c) => c.code));
  const lines: string[] = [];
  const takeCards = (cards: Iterable<SellerCard>) => {
    for (const c of cards) {
      // A line costs at least 2 (a token and its newline): stop looking at cards that cannot fit.
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
  let tokens = await promptTokens(messages);
  // The estimate was short (not seen in the tests, kept as the guarantee): drop the oldest turn, else the
  // catalog's last line, else cut the last message further, until it fits.
  while (tokens > budget) {
    if (kept.length > 0) kept.pop();
    else if (lines.length > 0) lines.pop();
    else if (last?.content) {
      const [whole] = await countTokens([last.content]);
      const cut = await longestPrefixWithin(last.content, "", whole! - (tokens - budget));
      last = { ...last, content: cut.prefix };
    } else break;
    messages = assemble();
    tokens = await promptTokens(messages);
  }
  return { messages, tokens };
}

/** The prompt's messages only; see {@link buildPrompt}. */
export async function promptOf(
  input: SellerInput,
  first: SellerCard[] = [],
  budget: number = MAX_INPUT_TOKENS,
): Promise<PromptMessage[]> {
  return (await buildPrompt(input, first, budget)).messages;
}

/**
 * Tokens of a prompt (o200k encoding), each message counted as `role: content` on its own line; counted in
 * the token counter's worker thread (token-counter.ts).
 */
export async function promptTokens(messages: { role: string; content: string }[]): Promise<number> {
  const [n] = await countTokens([messages.map((m) => `${m.role}: ${m.content}`).join("\n")]);
  return n!;
}

const chatRole = (t: ChatTurn): "user" | "assistant" => (t.role === "customer" ? "user" : "assistant");
