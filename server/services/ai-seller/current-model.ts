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
          writeTimeoutMs: ai.writeTimeoutMs,
          maxRetries: ai.maxRetries,
        })
      : catalogModel());
}

/** Replaces the language model (tests); `undefined` goes back to the configured one. */
export function setLanguageModel(model: LanguageModel | undefined): void {
  (globalThis as Holder)[KEY] = model;
}

// Stateless (each reply builds its own index), so one instance serves every test-mode operation.
const offline = catalogModel();

/**
 * The model an operation of this mode runs (issue 76 item 3; DESIGN "Test mode": the offline
 * implementation is used in test mode): a live operation gets the process's model ({@link languageModel},
 * `AI_PROVIDER`), a test-mode one (`operations.livemode` false: a test key's, in the tenant's sandbox or,
 * without the preview `test-mode`, in live data; and any reply in a sandbox conversation) always the offline
 * `catalog` model, whatever `AI_PROVIDER`, the preview flags or {@link setLanguageModel} say, so a test key
 * can never make the process call an external model.
 */
export function languageModelFor(livemode: boolean): LanguageModel {
  return livemode ? languageModel() : offline;
}
