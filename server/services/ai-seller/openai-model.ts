import OpenAI from "openai";
import type { LanguageModel, SellerInput, SellerOutput } from "./language-model";
import { ModelUnavailableError } from "./language-model";
import { rankCards } from "./catalog-model";
import { promptOf } from "./prompt";
import { MAX_OUTPUT_TOKENS } from "./prices";

/** Settings of the OpenAI-compatible provider (`AI_BASE_URL`, `AI_API_KEY`, `AI_MODEL`, timeout, retries). */
export interface OpenAiSettings {
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
  maxRetries: number;
}

/**
 * The AI seller on any OpenAI-compatible Chat Completions endpoint (`AI_PROVIDER=openai`), through the
 * `openai` package with its timeout and retries (429, 5xx and connection errors are retried with backoff).
 * Cards are recommended as the catalog seller does (minisearch on the customer's words), and the prompt
 * lists the catalog, those cards first, so the model can speak about them (prompt.ts `buildPrompt`: within
 * `MAX_INPUT_TOKENS`). Usage comes from the endpoint's `usage`.
 * @throws ModelUnavailableError when the endpoint fails after the retries or answers no text.
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
          messages: await promptOf(input, picks),
          max_tokens: MAX_OUTPUT_TOKENS,
        });
      } catch (err) {
        throw new ModelUnavailableError(`The language model did not answer: ${(err as Error).message}`, { cause: err });
      }
      const content = completion.choices[0]?.message?.content?.trim();
      if (!content) throw new ModelUnavailableError("The language model answered no text.");
      return {
        content,
        cardCodes: picks.map((c) => c.code),
        model: s.model,
        inputTokens: completion.usage?.prompt_tokens ?? 0,
        outputTokens: Math.min(completion.usage?.completion_tokens ?? 0, MAX_OUTPUT_TOKENS),
      };
    },
  };
}
