import type OpenAI from "openai";
import { z } from "zod";
import { readJsonAnswer } from "./json-answer";
import { ModelUnavailableError } from "./language-model";
import { MAX_WRITE_INPUT_TOKENS, maxWriteOutputTokens } from "./prices";
import { log } from "@/server/log";
import type { ArticleBrief, ArticleDraft } from "@/server/lib/article-writing/article-brief";
import { articleSlug, clipText, countWords, textOfHtml } from "@/server/services/article-generation/article-text";
import { briefText, wishedTitle } from "@/server/services/article-generation/brief-text";
import { draftViolations } from "@/server/services/article-generation/draft-check";
import { writingInstructions } from "@/server/lib/article-writing/instructions";

/** What the model is asked to answer with, after the profile's instructions (the system prompt's end). */
export const WRITER_OUTPUT_SPEC = [
  "Answer with one JSON object and nothing else, with these string fields:",
  '- "title": the article\'s title;',
  '- "slug": its URL slug, lowercase ASCII words joined by hyphens (transliterate other alphabets), at most 120 characters;',
  '- "meta_title": the page\'s meta title, at most 70 characters;',
  '- "meta_description": the page\'s meta description, at most 170 characters;',
  '- "html": the article\'s body in HTML: <h2> section headings (never <h1>), <p> paragraphs, <ul>/<ol> lists, and an <a href="…"> link to each product you mention, with the URL given; no <html>, <head>, <body>, scripts or styles.',
].join("\n");

/** The answer's JSON: title and html required; slug and meta made from them when missing. */
const AnswerSchema = z.object({
  title: z.string().trim().min(1),
  slug: z.string().trim().optional(),
  meta_title: z.string().trim().optional(),
  meta_description: z.string().trim().optional(),
  html: z.string().trim().min(1),
});

type Written = Pick<ArticleDraft, "title" | "slug" | "metaTitle" | "metaDescription" | "html" | "wordCount">;

/** The draft in one answer, or what makes the answer unusable (a sentence the model is told). */
function readAnswer(content: string, brief: ArticleBrief): { draft: Written } | { problem: string } {
  const read = readJsonAnswer(content, AnswerSchema);
  if (!("value" in read)) return read;
  const a = read.value;
  // The page's title is the article's: headings inside the body start at <h2>.
  const html = a.html.replace(/<(\/?)h1\b/gi, "<$1h2");
  const text = textOfHtml(html);
  const wordCount = countWords(text);
  if (!wordCount) return { problem: 'the "html" field has no text' };
  // A title the order asked for is the article's (less any word the profile avoids), and names its slug.
  const wished = wishedTitle(brief);
  const title = wished ?? a.title;
  return {
    draft: {
      title,
      slug: articleSlug((!wished && a.slug) || title),
      metaTitle: clipText(a.meta_title || title, 70),
      metaDescription: clipText(a.meta_description || text, 170),
      html,
      wordCount,
    },
  };
}

/**
 * Writes one article on an OpenAI-compatible Chat Completions endpoint (issue 72; `openAiModel`'s `write`,
 * openai-model.ts): the system message is the profile's instructions (instructions.ts, with the brief's
 * locale and length) and {@link WRITER_OUTPUT_SPEC}, the user message the brief (brief-text.ts); the answer
 * is asked as a JSON object (`response_format: json_object`) of at most `maxWriteOutputTokens(targetWords)`
 * tokens. The answer is validated (title and html required; slug, meta title and description normalized to
 * their limits, the word count ours, from the html's text) and checked against the profile
 * (draft-check.ts `draftViolations`). An answer that is not the JSON asked for or that breaks the profile
 * gets one more try: the answer and a message naming its problems are sent back, and the second answer
 * is used if it is right. Usage is the sum of both calls' `usage`, output capped at
 * `maxWriteOutputTokens(targetWords)` (what the generation's hold is priced on); an input past
 * `MAX_WRITE_INPUT_TOKENS` is logged (the charge stops at the hold).
 * Each call may take `timeoutMs` (the provider's `AI_WRITE_TIMEOUT_MS`, 180 s by default: a model writes an
 * article of 1,200 words, ~4,000 tokens, in a minute or more where a reply takes seconds); the
 * generation's own deadline (5 minutes, run-generation.ts) bounds the whole write.
 * @throws ModelUnavailableError when the endpoint fails or times out after the client's retries, or the
 * second answer is still unusable (its message names the problems, never the API key)
 */
export async function openAiWrite(
  client: OpenAI,
  model: string,
  brief: ArticleBrief,
  timeoutMs: number,
): Promise<ArticleDraft> {
  const maxOutput = maxWriteOutputTokens(brief.targetWords);
  const instructions = writingInstructions(brief.profile, { locale: brief.locale, targetWords: brief.targetWords });
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
    { role: "system", content: `${instructions}\n\n${WRITER_OUTPUT_SPEC}` },
    { role: "user", content: briefText(brief) },
  ];
  let inputTokens = 0;
  let outputTokens = 0;
  let problems: string[] = [];
  for (let attempt = 0; attempt < 2; attempt++) {
    let completion;
    try {
      completion = await client.chat.completions.create(
        { model, messages, max_tokens: maxOutput, response_format: { type: "json_object" } },
        { timeout: timeoutMs },
      );
    } catch (err) {
      throw new ModelUnavailableError(`The language model did not answer: ${(err as Error).message}`, { cause: err });
    }
    inputTokens += completion.usage?.prompt_tokens ?? 0;
    outputTokens += completion.usage?.completion_tokens ?? 0;
    const content = completion.choices[0]?.message?.content?.trim() ?? "";
    const answer = readAnswer(content, brief);
    problems = "problem" in answer ? [answer.problem] : draftViolations(answer.draft, brief.profile);
    if ("draft" in answer && !problems.length) {
      if (inputTokens > MAX_WRITE_INPUT_TOKENS)
        log().warn(
          { model, prompt_tokens: inputTokens, max_input_tokens: MAX_WRITE_INPUT_TOKENS },
          "the language model counted more prompt tokens than an article's hold is priced for",
        );
      return {
        ...answer.draft,
        model,
        inputTokens,
        outputTokens: Math.min(outputTokens, maxOutput),
      };
    }
    messages.push(
      { role: "assistant", content: content || "(no answer)" },
      {
        role: "user",
        content: [
          "Your answer cannot be used:",
          ...problems.map((p) => `- ${p}`),
          "Write the article again without these problems, and answer with the whole JSON object as asked.",
        ].join("\n"),
      },
    );
  }
  throw new ModelUnavailableError(`The language model wrote no usable article: ${problems.join("; ")}.`);
}
