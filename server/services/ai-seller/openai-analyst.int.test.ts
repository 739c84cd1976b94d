import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleFigures } from "@/server/testing/strategist-figures";
import { ModelUnavailableError } from "./language-model";
import { openAiModel } from "./openai-model";
import { MAX_ANALYST_OUTPUT_TOKENS } from "./prices";

// The `openai` provider's strategist against a local stub speaking Chat Completions: what it sends, how it
// reads and retries an answer, and that an unusable one is the model being unavailable.

type Body = { model: string; messages: { role: string; content: string }[]; max_tokens: number };

let server: Server;
let base: string;
let script: string[] = [];
const seen: Body[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      seen.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Body);
      const content = script[seen.length - 1] ?? "";
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          id: "c",
          object: "chat.completion",
          created: 1,
          model: "gpt-4o-mini",
          choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }],
          usage: { prompt_tokens: 3000, completion_tokens: 800, total_tokens: 3800 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => new Promise<void>((r) => server.close(() => r())));

const model = () =>
  openAiModel({ baseUrl: base, apiKey: "sk-stub", model: "gpt-4o-mini", timeoutMs: 2000, maxRetries: 0 });
const input = {
  shopName: "Trail Shop",
  figures: sampleFigures(),
  turns: [
    { role: "user" as const, content: "Hi" },
    { role: "strategist" as const, content: "Hello" },
  ],
  question: "Propose a topic",
};
const GOOD = JSON.stringify({
  reply: "12 leads in the last 7 days vs 8 before.",
  proposals: [{ title: "Wool socks guide", rationale: "2 cards", trend_score: 55, cluster_id: "wool-socks" }],
});

describe("the openai analyst", () => {
  it("sends the figures and the session, asks for JSON within the maximum, retries a bad answer once", async () => {
    seen.length = 0;
    script = ["not json", GOOD];
    const out = await model().analyze(input);
    expect(model().analystModel).toBe("gpt-4o-mini");
    const [first, second] = seen;
    expect(first).toMatchObject({ max_tokens: MAX_ANALYST_OUTPUT_TOKENS, response_format: { type: "json_object" } });
    expect(first!.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(first!.messages[0]!.content).toContain("Never name a competitor");
    expect(first!.messages[0]!.content).toContain('"byStatus":{"new":20');
    expect(second!.messages.at(-1)!.content).toContain("not a JSON object");
    expect(out).toEqual({
      reply: "12 leads in the last 7 days vs 8 before.",
      proposals: [{ title: "Wool socks guide", rationale: "2 cards", trendScore: 55, clusterId: "wool-socks" }],
      model: "gpt-4o-mini",
      inputTokens: 6000,
      outputTokens: MAX_ANALYST_OUTPUT_TOKENS,
    });
  });

  it("is unavailable when the second answer is still unusable", async () => {
    seen.length = 0;
    script = [JSON.stringify({ proposals: [] }), "{}"];
    await expect(model().analyze(input)).rejects.toThrow(ModelUnavailableError);
    expect(seen).toHaveLength(2);
  });
});
