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

/** A language model behind the AI seller (DESIGN "Money": `catalog` offline, or OpenAI-compatible). */
export interface LanguageModel {
  /** Model name as priced (server/services/ai-seller/prices.ts) and reported in `usage.model`. */
  readonly model: string;
  /**
   * Answers the customer's last message.
   * @throws ModelUnavailableError when the model cannot answer (after its own retries).
   */
  reply(input: SellerInput): Promise<SellerOutput>;
}

/** The model could not answer: the operation fails and the conversation is handed to an operator. */
export class ModelUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ModelUnavailableError";
  }
}
