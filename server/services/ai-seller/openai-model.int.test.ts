import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelUnavailableError } from "./language-model";
import { OPENAI_PROMPT_SHARE, openAiModel } from "./openai-model";
import { MAX_INPUT_TOKENS } from "./prices";
import { promptTokens } from "./prompt";

// The `openai` provider against a local stub server speaking the Chat Completions protocol: what it
// sends, how usage is read, and that failures are retried and then reported as the model being unavailable.

let server: Server;
let base: string;
let mode: "ok" | "flaky" | "down" | "slow" = "ok";
let calls = 0;
const seen: { auth?: string; body: Record<string, unknown> }[] = [];

async function json(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    void json(req).then((body) => {
      calls++;
      seen.push({ auth: req.headers.authorization, body });
      if (mode === "down" || (mode === "flaky" && calls === 1)) {
        res.writeHead(503, { "content-type": "application/json" }).end('{"error":{"message":"busy"}}');
        return;
      }
      if (mode === "slow") return void setTimeout(() => res.end(), 2000);
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          id: "c1",
          object: "chat.completion",
          created: 1,
          model: body.model,
          choices: [
            { index: 0, finish_reason: "stop", message: { role: "assistant", content: " Try the Wool socks. " } },
          ],
          usage: { prompt_tokens: 120, completion_tokens: 8, total_tokens: 128 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => new Promise<void>((r) => server.close(() => r())));

const input = {
  shopName: "Shop",
  turns: [{ role: "customer" as const, content: "warm socks?" }],
  cards: [{ code: "socks", name: "Wool socks", description: "warm", badge: null, priceText: null }],
};
const model = (o: Partial<{ timeoutMs: number; maxRetries: number }> = {}) =>
  openAiModel({ baseUrl: base, apiKey: "sk-stub", model: "gpt-4o-mini", timeoutMs: 1000, maxRetries: 1, ...o });

describe("the openai provider", () => {
  it("sends the prompt with the key and model, and reads the reply and usage", async () => {
    mode = "ok";
    calls = 0;
    seen.length = 0;
    const out = await model().reply(input);
    expect(out).toEqual({
      content: "Try the Wool socks.",
      cardCodes: ["socks"],
      model: "gpt-4o-mini",
      inputTokens: 120,
      outputTokens: 8,
    });
    expect(seen[0]!.auth).toBe("Bearer sk-stub");
    expect(seen[0]!.body).toMatchObject({ model: "gpt-4o-mini", max_tokens: 500 });
    expect((seen[0]!.body.messages as { role: string }[]).map((m) => m.role)).toEqual(["system", "user"]);
  });

  it("sends a large catalog cut to its share of the token limit, the cards picked for the message first", async () => {
    mode = "ok";
    seen.length = 0;
    const cards = Array.from({ length: 500 }, (_, i) => ({
      code: `card-${i}`,
      name: `Card ${i}`,
      description: "a long description of a card that the shop sells, with its sizes and colours",
      badge: null,
      priceText: "100 RUB",
    }));
    cards[321] = { ...cards[321]!, name: "Rain jacket", description: "light, for rain" };
    const out = await model().reply({ ...input, turns: [{ role: "customer", content: "a rain jacket?" }], cards });
    expect(out.cardCodes[0]).toBe("card-321");
    const sent = seen[0]!.body.messages as { role: string; content: string }[];
    const tokens = await promptTokens(sent);
    expect(tokens).toBeLessThanOrEqual(MAX_INPUT_TOKENS * OPENAI_PROMPT_SHARE);
    expect(tokens).toBeGreaterThan(MAX_INPUT_TOKENS * OPENAI_PROMPT_SHARE * 0.95);
    expect(sent[0]!.content.split("\n")[3]).toMatch(/^card-321 \| Rain jacket/);
    expect(sent[sent.length - 1]).toEqual({ role: "user", content: "a rain jacket?" });
  });

  it("retries a failed call, and reports the model unavailable once retries run out or time runs out", async () => {
    mode = "flaky";
    calls = 0;
    expect((await model().reply(input)).content).toBe("Try the Wool socks.");
    expect(calls).toBe(2);
    mode = "down";
    calls = 0;
    await expect(model().reply(input)).rejects.toBeInstanceOf(ModelUnavailableError);
    expect(calls).toBe(2);
    mode = "slow";
    await expect(model({ timeoutMs: 200, maxRetries: 0 }).reply(input)).rejects.toBeInstanceOf(ModelUnavailableError);
  });
});
