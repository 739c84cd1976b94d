import { env } from "@/server/env";
import { catalogModel } from "./catalog-model";
import type { LanguageModel } from "./language-model";
import { openAiModel } from "./openai-model";

const KEY = Symbol.for("platform.languageModel");
type Holder = { [KEY]?: LanguageModel };

/** The language model of this process, made from `AI_PROVIDER` (server/env.ts) on first use. */
export function languageModel(): LanguageModel {
  const g = globalThis as Holder;
  if (g[KEY]) return g[KEY];
  const ai = env().ai;
  return (g[KEY] =
    ai.provider === "openai"
      ? openAiModel({
          baseUrl: ai.baseUrl!,
          apiKey: ai.apiKey!,
          model: ai.model,
          timeoutMs: ai.timeoutMs,
          maxRetries: ai.maxRetries,
        })
      : catalogModel());
}

/** Replaces the language model (tests); `undefined` goes back to the configured one. */
export function setLanguageModel(model: LanguageModel | undefined): void {
  (globalThis as Holder)[KEY] = model;
}
