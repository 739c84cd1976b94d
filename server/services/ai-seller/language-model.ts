import type { ArticleBrief, ArticleDraft } from "@/server/lib/article-writing/article-brief";
import type { AnalystInput, AnalystOutput } from "@/server/lib/strategist/analyst-io";

/** One turn of the conversation as the model sees it, oldest first. */
export interface ChatTurn {
  role: "customer" | "ai" | "operator";
  content: string;
}

/** A product card the seller may recommend (the tenant's active cards). */
export interface SellerCard {
  code: string;
  name: string;
  description: string | null;
  badge: string | null;
  priceText: string | null;
}

/** What the AI seller is asked: the shop, the conversation so far (last turn = the customer's message) and the catalog. */
export interface SellerInput {
  shopName: string;
  turns: ChatTurn[];
  cards: SellerCard[];
}

/** The model's reply: text, up to 3 card codes of the input's catalog, tokens used and the model's name. */
export interface SellerOutput {
  content: string;
  cardCodes: string[];
  model: string;
  inputTokens: number;
  outputTokens: number;
}

/**
 * A language model behind the AI seller and the article writer (DESIGN "Money": `catalog` offline, or
 * OpenAI-compatible; issue 72: "the writer, behind the same language-model interface as the AI seller").
 */
export interface LanguageModel {
  /** Model name as priced (server/services/ai-seller/prices.ts) and reported in `usage.model`. */
  readonly model: string;
  /**
   * The model that writes articles (`write`), as priced and reported in a generation's `usage.model`: the
   * hold of an order is priced on it before the writer runs (issue 72). The offline provider's writer is a
   * different program from its seller (`offline-writer-1`); an OpenAI-compatible one is the same model.
   */
  readonly writerModel: string;
  /**
   * Answers the customer's last message.
   * @throws ModelUnavailableError when the model cannot answer (after its own retries).
   */
  reply(input: SellerInput): Promise<SellerOutput>;
  /**
   * Writes one article from its brief (server/services/article-generation/article-brief.ts): the draft's
   * `model`, `inputTokens` and `outputTokens` are what writing it used (priced with prices.ts `costMinor`;
   * never more output tokens than prices.ts `maxWriteOutputTokens(brief.targetWords)`).
   * @throws ModelUnavailableError when the model cannot write the article after its retries.
   */
  write(brief: ArticleBrief): Promise<ArticleDraft>;
  /**
   * The model that answers the strategist's chat turns (`analyze`), as priced and reported in a turn's
   * `usage.model` (issue 73): the hold of a turn is priced on it (prices.ts `maxAnalystCostMinor`). The
   * offline provider's analyst is its own program (`offline-analyst-1`); an OpenAI-compatible one is the same model.
   */
  readonly analystModel: string;
  /**
   * Answers one strategist chat turn from the tenant's figures only (server/lib/strategist/analyst-io.ts):
   * a reply citing figures and 0-3 topic proposals; never more than prices.ts `MAX_ANALYST_INPUT_TOKENS`
   * in and `MAX_ANALYST_OUTPUT_TOKENS` out counted.
   * @throws ModelUnavailableError when the model cannot answer after its retries.
   */
  analyze(input: AnalystInput): Promise<AnalystOutput>;
}

/** The model could not answer: the operation fails and the conversation is handed to an operator. */
export class ModelUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ModelUnavailableError";
  }
}
