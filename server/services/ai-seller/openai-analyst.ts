import type OpenAI from "openai";
import { z } from "zod";
import { readJsonAnswer } from "./json-answer";
import { ModelUnavailableError } from "./language-model";
import { MAX_ANALYST_INPUT_TOKENS, MAX_ANALYST_OUTPUT_TOKENS } from "./prices";
import { log } from "@/server/log";
import type { AnalystInput, AnalystOutput } from "@/server/lib/strategist/analyst-io";

/** The strategist's system prompt: answer from the figures only, never name a competitor, answer as JSON. */
export const ANALYST_SYSTEM_PROMPT = [
  "You are the marketing strategist of an online shop. You answer the shop owner's question about the shop.",
  "Answer only from the figures given in the FIGURES JSON below: cite the numbers you use with their period",
  '(e.g. "12 leads in the last 7 days vs 8 in the 7 days before"); if the figures do not hold the answer, say so.',
  'Never name a competitor or a competitor\'s domain (they appear as "a competitor").',
  "Answer in the language of the question.",
  "When the owner asks about topics, articles or content, propose up to 3 new article topics from the shop's",
  "keywords and cards; never repeat the title of a topic already proposed, approved or generating.",
  "Answer with one JSON object and nothing else:",
  '{"reply": "<your answer, plain text>", "proposals": [{"title": "<at most 200 characters>",',
  '"rationale": "<why, citing a figure>", "trend_score": <0-100 or null>, "cluster_id": "<a slug or null>"}]}',
].join("\n");

const ProposalSchema = z.object({
  title: z.string().trim().min(1).max(200),
  rationale: z.string().trim().default(""),
  trend_score: z.number().min(0).max(100).nullable().default(null),
  cluster_id: z.string().trim().min(1).max(120).nullable().default(null),
});

/** The answer's JSON: `reply` required, `proposals` at most 3 (more are cut, not refused). */
const AnswerSchema = z.object({
  reply: z.string().trim().min(1),
  proposals: z.array(ProposalSchema).default([]),
});

type Answer = z.infer<typeof AnswerSchema>;

/** The answer in one completion's text, or its problem (a sentence the model is told). */
function readAnswer(content: string): { answer: Answer } | { problem: string } {
  const r = readJsonAnswer(content, AnswerSchema);
  return "value" in r ? { answer: r.value } : r;
}

/**
 * One strategist turn on an OpenAI-compatible Chat Completions endpoint (issue 73 item 3; `openAiModel`'s
 * `analyze`): the system message is {@link ANALYST_SYSTEM_PROMPT} with the tenant's figures as JSON, then the
 * session's earlier turns and the question; the answer is asked as a JSON object (`response_format:
 * json_object`) of at most `MAX_ANALYST_OUTPUT_TOKENS` tokens and validated with zod (reply required, up to
 * 3 proposals kept). An unusable answer gets one more try with a message naming its problem. Usage is the
 * sum of both calls', output capped at `MAX_ANALYST_OUTPUT_TOKENS`; an input past
 * `MAX_ANALYST_INPUT_TOKENS` is logged (the charge stops at the hold).
 * @throws ModelUnavailableError when the endpoint fails after the client's retries, or the second answer
 * is still unusable
 */
export async function openAiAnalyze(client: OpenAI, model: string, input: AnalystInput): Promise<AnalystOutput> {
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
    {
      role: "system",
      content: `${ANALYST_SYSTEM_PROMPT}\n\nSHOP: ${input.shopName}\nFIGURES:\n${JSON.stringify(input.figures)}`,
    },
    ...input.turns.map((t): OpenAI.Chat.Completions.ChatCompletionMessageParam =>
      t.role === "user" ? { role: "user", content: t.content } : { role: "assistant", content: t.content },
    ),
    { role: "user", content: input.question },
  ];
  let inputTokens = 0;
  let outputTokens = 0;
  let problem = "";
  for (let attempt = 0; attempt < 2; attempt++) {
    let completion;
    try {
      completion = await client.chat.completions.create({
        model,
        messages,
        max_tokens: MAX_ANALYST_OUTPUT_TOKENS,
        response_format: { type: "json_object" },
      });
    } catch (err) {
      throw new ModelUnavailableError(`The language model did not answer: ${(err as Error).message}`, { cause: err });
    }
    inputTokens += completion.usage?.prompt_tokens ?? 0;
    outputTokens += completion.usage?.completion_tokens ?? 0;
    const content = completion.choices[0]?.message?.content?.trim() ?? "";
    const read = readAnswer(content);
    if ("answer" in read) {
      if (inputTokens > MAX_ANALYST_INPUT_TOKENS)
        log().warn(
          { model, prompt_tokens: inputTokens, max_input_tokens: MAX_ANALYST_INPUT_TOKENS },
          "the language model counted more prompt tokens than a strategist turn's hold is priced for",
        );
      return {
        reply: read.answer.reply,
        proposals: read.answer.proposals.slice(0, 3).map((p) => ({
          title: p.title,
          rationale: p.rationale,
          trendScore: p.trend_score,
          clusterId: p.cluster_id,
        })),
        model,
        inputTokens,
        outputTokens: Math.min(outputTokens, MAX_ANALYST_OUTPUT_TOKENS),
      };
    }
    problem = read.problem;
    messages.push(
      { role: "assistant", content: content || "(no answer)" },
      {
        role: "user",
        content: `Your answer cannot be used: ${problem}. Answer again with the whole JSON object as asked.`,
      },
    );
  }
  throw new ModelUnavailableError(`The language model gave no usable answer: ${problem}.`);
}
