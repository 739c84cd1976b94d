import OpenAI from "openai";
import type { LanguageModel, SellerInput, SellerOutput } from "./language-model";
import { ModelUnavailableError } from "./language-model";
import { rankCards } from "./catalog-model";
import { promptOf } from "./prompt";
import { log } from "@/server/log";
import { MAX_INPUT_TOKENS, MAX_OUTPUT_TOKENS } from "./prices";
import { openAiWrite } from "./openai-writer";
import { openAiAnalyze } from "./openai-analyst";

/**
 * The share of {@link MAX_INPUT_TOKENS} this seller's prompt fills, as o200k counts it: the endpoint counts
 * with its own model's tokenizer (which may need more tokens for the same text, Cyrillic especially) and adds
 * a few tokens a message for the chat format, and the hold was priced on MAX_INPUT_TOKENS.
 */
export const OPENAI_PROMPT_SHARE = 0.75;

/** Settings of the OpenAI-compatible provider (`AI_BASE_URL`, `AI_API_KEY`, `AI_MODEL`, timeout, retries). */
export interface OpenAiSettings {
  baseUrl: string;
  apiKey: string;
  model: string;
  /** Per-call timeout of a seller's reply, ms (`AI_TIMEOUT_MS`). */
  timeoutMs: number;
  maxRetries: number;
  /** Per-call timeout of an article's write, ms (`AI_WRITE_TIMEOUT_MS`); default `timeoutMs`. */
  writeTimeoutMs?: number;
}

/**
 * The AI seller on any OpenAI-compatible Chat Completions endpoint (`AI_PROVIDER=openai`), through the
 * `openai` package with its timeout and retries (429, 5xx and connection errors are retried with backoff).
 * Cards are recommended as the catalog seller does (minisearch on the customer's words), and the prompt
 * lists the catalog, those cards first, so the model can speak about them (prompt.ts `buildPrompt`, within
 * {@link OPENAI_PROMPT_SHARE} of `MAX_INPUT_TOKENS`). Usage comes from the endpoint's `usage`.
 * Articles are written on the same endpoint and client (openai-writer.ts `openAiWrite`), and so are the
 * strategist's turns (openai-analyst.ts `openAiAnalyze`).
 * @throws ModelUnavailableError when the endpoint fails after the retries or answers no text (`reply`), or
 * cannot write a usable article (`write`) or a usable strategist answer (`analyze`).
 */
export function openAiModel(s: OpenAiSettings): LanguageModel {
  const client = new OpenAI({ baseURL: s.baseUrl, apiKey: s.apiKey, timeout: s.timeoutMs, maxRetries: s.maxRetries });
  return {
    model: s.model,
    async reply(input: SellerInput): Promise<SellerOutput> {
      const customer = input.turns.filter((t) => t.role === "customer");
      const picks = rankCards(input.cards, customer[customer.length - 1]?.content ?? "");
      let completion;
      try {
        completion = await client.chat.completions.create({
          model: s.model,
          messages: await promptOf(input, picks, Math.floor(MAX_INPUT_TOKENS * OPENAI_PROMPT_SHARE)),
          max_tokens: MAX_OUTPUT_TOKENS,
        });
      } catch (err) {
        throw new ModelUnavailableError(`The language model did not answer: ${(err as Error).message}`, { cause: err });
      }
      const content = completion.choices[0]?.message?.content?.trim();
      if (!content) throw new ModelUnavailableError("The language model answered no text.");
      const inputTokens = completion.usage?.prompt_tokens ?? 0;
      // Charged at most the hold (finishOperation): say so when the endpoint counted past what it was priced on.
      if (inputTokens > MAX_INPUT_TOKENS)
        log().warn(
          { model: s.model, prompt_tokens: inputTokens, max_input_tokens: MAX_INPUT_TOKENS },
          "the language model counted more prompt tokens than a reply's hold is priced for",
        );
      return {
        content,
        cardCodes: picks.map((c) => c.code),
        model: s.model,
        inputTokens,
        outputTokens: Math.min(completion.usage?.completion_tokens ?? 0, MAX_OUTPUT_TOKENS),
      };
    },
    writerModel: s.model,
    write: (brief) => openAiWrite(client, s.model, brief, s.writeTimeoutMs ?? s.timeoutMs),
    analystModel: s.model,
    analyze: (input) => openAiAnalyze(client, s.model, input),
  };
}
