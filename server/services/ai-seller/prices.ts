/**
 * Prices of the language models the AI seller and the article writer may use, in RUB minor units (kopecks) per one million
 * tokens (DESIGN "Money": usage is priced from a table, in RUB). A model missing from the table is priced
 * as `default`. Costs round up to a whole kopeck.
 */
export const MODEL_PRICES: Record<string, { inputPerMillionMinor: bigint; outputPerMillionMinor: bigint }> = {
  "catalog-1": { inputPerMillionMinor: 5_000n, outputPerMillionMinor: 20_000n },
  "offline-writer-1": { inputPerMillionMinor: 5_000n, outputPerMillionMinor: 20_000n },
  "offline-analyst-1": { inputPerMillionMinor: 5_000n, outputPerMillionMinor: 20_000n },
  "gpt-4o-mini": { inputPerMillionMinor: 1_500n, outputPerMillionMinor: 6_000n },
  "gpt-4o": { inputPerMillionMinor: 25_000n, outputPerMillionMinor: 100_000n },
  default: { inputPerMillionMinor: 25_000n, outputPerMillionMinor: 100_000n },
};

/** Largest prompt the AI seller sends, tokens (older messages are dropped to fit). */
export const MAX_INPUT_TOKENS = 6_000;
/** Largest reply the AI seller asks for, tokens. */
export const MAX_OUTPUT_TOKENS = 500;

function priceOf(model: string) {
  return MODEL_PRICES[model] ?? MODEL_PRICES.default!;
}

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

/** Cost of one call, RUB minor units, rounded up: tokens × price per million / 1,000,000. */
export function costMinor(model: string, usage: { inputTokens: number; outputTokens: number }): bigint {
  const p = priceOf(model);
  return ceilDiv(
    BigInt(usage.inputTokens) * p.inputPerMillionMinor + BigInt(usage.outputTokens) * p.outputPerMillionMinor,
    1_000_000n,
  );
}

/** The most one AI reply can cost with `model`, RUB minor units: the hold placed when it is queued. */
export function maxCostMinor(model: string): bigint {
  return costMinor(model, { inputTokens: MAX_INPUT_TOKENS, outputTokens: MAX_OUTPUT_TOKENS });
}

/** Largest prompt an article's writing is priced for, tokens (issue 72: the hold of a generation). */
export const MAX_WRITE_INPUT_TOKENS = 8_000;

/**
 * Largest answer an article of `targetWords` words is asked for and charged, tokens: 3 tokens a word
 * (Cyrillic takes about twice the tokens of English) and 400 for the HTML tags, title and meta.
 */
export function maxWriteOutputTokens(targetWords: number): number {
  return Math.ceil(targetWords * 3) + 400;
}

/**
 * The most writing one article of `targetWords` words can cost with `model`, RUB minor units: the hold
 * placed when its generation is queued ({@link MAX_WRITE_INPUT_TOKENS} in, {@link maxWriteOutputTokens} out).
 */
export function maxWriteCostMinor(model: string, targetWords: number): bigint {
  return costMinor(model, { inputTokens: MAX_WRITE_INPUT_TOKENS, outputTokens: maxWriteOutputTokens(targetWords) });
}

/** Largest input one strategist turn is priced for, tokens: the figures, the session's turns and the question (issue 73). */
export const MAX_ANALYST_INPUT_TOKENS = 12_000;
/** Largest answer one strategist turn asks for and is charged, tokens (the reply and its proposals). */
export const MAX_ANALYST_OUTPUT_TOKENS = 1_200;

/**
 * The most one strategist turn can cost with `model`, RUB minor units: the hold placed when the turn is
 * queued ({@link MAX_ANALYST_INPUT_TOKENS} in, {@link MAX_ANALYST_OUTPUT_TOKENS} out; issue 73).
 */
export function maxAnalystCostMinor(model: string): bigint {
  return costMinor(model, { inputTokens: MAX_ANALYST_INPUT_TOKENS, outputTokens: MAX_ANALYST_OUTPUT_TOKENS });
}
