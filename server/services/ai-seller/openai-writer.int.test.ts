import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ArticleBrief } from "@/server/lib/article-writing/article-brief";
import { ModelUnavailableError } from "./language-model";
import { openAiModel } from "./openai-model";
import { maxWriteOutputTokens } from "./prices";

// The `openai` provider's article writer against a local stub server speaking the Chat Completions
// protocol: what it sends, how it checks an answer against the editorial profile and retries once, how
// usage adds up, and that failures are reported as the model being unavailable.

type Message = { role: string; content: string };
type Body = { model: string; messages: Message[]; max_tokens: number; response_format?: { type: string } };

let server: Server;
let base: string;
/** What the stub answers, call by call: an article's JSON text, "hang" (never answers) or 503. */
let script: (string | "hang" | 503)[] = [];
const seen: { auth?: string; body: Body }[] = [];

async function json(req: IncomingMessage): Promise<Body> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8")) as Body;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    void json(req).then((body) => {
      seen.push({ auth: req.headers.authorization, body });
      const next = script[seen.length - 1] ?? 503;
      if (next === "hang") return void setTimeout(() => res.end(), 2000);
      if (next === 503) {
        res.writeHead(503, { "content-type": "application/json" }).end('{"error":{"message":"busy"}}');
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          id: `c${seen.length}`,
          object: "chat.completion",
          created: 1,
          model: body.model,
          choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: next } }],
          usage: { prompt_tokens: 700 * seen.length, completion_tokens: 900, total_tokens: 700 * seen.length + 900 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  seen.length = 0;
  script = [];
});

const brief: ArticleBrief = {
  shopName: "Clay & Co",
  profile: {
    niche: "Handmade ceramics",
    audience: "Young parents",
    tone: "Warm",
    presentation: null,
    topic_sources: ["own_site"],
    source_urls: ["https://clay.example/blog"],
    avoid: ["cheap", "best price"],
    example_text: "Our mugs are thrown by hand in a small studio by the sea, glazed twice and fired slowly overnight.",
    locale: "en",
  },
  topic: null,
  keyword: "ceramic mugs",
  title: null,
  locale: "en",
  targetWords: 300,
  cards: [
    {
      code: "mug",
      name: "Stoneware mug",
      description: "Glazed, 300 ml",
      priceText: "990 ₽",
      url: "https://clay.example/p/mug",
    },
  ],
  strategist: { topics: ["Caring for glazed ceramics"], highlights: ["Mug searches grew 20% in October"] },
};

const answer = (html: string, more: Record<string, unknown> = {}) =>
  JSON.stringify({
    title: "Ceramic mugs: how to choose",
    slug: "Ceramic Mugs: how to choose",
    meta_title: "Ceramic mugs: how to choose",
    meta_description: "What matters when you choose a ceramic mug.",
    html,
    ...more,
  });
const GOOD = answer(
  '<h1>Mugs</h1><p>A good mug keeps tea warm.</p><h2>Ours</h2><p>See the <a href="https://clay.example/p/mug">Stoneware mug</a>.</p>',
);
const CHEAP = answer("<h2>Mugs</h2><p>A CHEAP mug keeps tea warm.</p>");

const model = (o: Partial<{ timeoutMs: number; maxRetries: number }> = {}) =>
  openAiModel({ baseUrl: base, apiKey: "sk-stub-secret", model: "gpt-4o-mini", timeoutMs: 1000, maxRetries: 0, ...o });

describe("the openai writer", () => {
  it("sends the profile's instructions and the brief, asks for JSON, and reads the article", async () => {
    script = [GOOD];
    const d = await model().write(brief);
    expect(seen).toHaveLength(1);
    const { auth, body } = seen[0]!;
    expect(auth).toBe("Bearer sk-stub-secret");
    expect(body).toMatchObject({
      model: "gpt-4o-mini",
      max_tokens: maxWriteOutputTokens(300),
      response_format: { type: "json_object" },
    });
    expect(body.messages.map((m) => m.role)).toEqual(["system", "user"]);
    const [system, user] = body.messages.map((m) => m.content);
    expect(system).toContain("Niche: Handmade ceramics");
    expect(system).toContain('Never use these words or phrases, in any letter case: "cheap", "best price".');
    expect(system).toContain(`"""\n${brief.profile.example_text}\n"""`);
    expect(system).toContain("do not copy");
    expect(system).toMatch(/"meta_description"/);
    expect(user).toContain("Keyword: ceramic mugs");
    expect(user).toContain("- Stoneware mug | https://clay.example/p/mug | 990 ₽ | Glazed, 300 ml");
    expect(user).toContain("- Caring for glazed ceramics");
    expect(d).toEqual({
      title: "Ceramic mugs: how to choose",
      slug: "ceramic-mugs-how-to-choose",
      metaTitle: "Ceramic mugs: how to choose",
      metaDescription: "What matters when you choose a ceramic mug.",
      // The page's title is the article's: an <h1> of the answer becomes an <h2>.
      html: '<h2>Mugs</h2><p>A good mug keeps tea warm.</p><h2>Ours</h2><p>See the <a href="https://clay.example/p/mug">Stoneware mug</a>.</p>',
      wordCount: 12,
      model: "gpt-4o-mini",
      inputTokens: 700,
      outputTokens: 900,
    });
  });

  it("retries once, naming the violation, when the first answer uses an avoided word; usage adds up", async () => {
    script = [CHEAP, GOOD];
    const d = await model().write(brief);
    expect(seen).toHaveLength(2);
    const retry = seen[1]!.body.messages;
    expect(retry.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(retry.slice(0, 2)).toEqual(seen[0]!.body.messages);
    expect(retry[2]!.content).toBe(CHEAP);
    expect(retry[3]!.content).toContain('uses the avoided word or phrase "cheap"');
    expect(d.html).toContain("A good mug keeps tea warm.");
    // 700 + 1,400 prompt tokens; 900 + 900 completion tokens, capped at what the hold is priced on.
    expect(d.inputTokens).toBe(2_100);
    expect(d.outputTokens).toBe(maxWriteOutputTokens(300));
    expect(maxWriteOutputTokens(300)).toBeLessThan(1_800);
  });

  it("retries a copy of the example text and an answer that is not the JSON asked for", async () => {
    script = [answer(`<p>${brief.profile.example_text}</p>`), GOOD];
    await model().write(brief);
    expect(seen[1]!.body.messages[3]!.content).toContain("copies the example text");
    seen.length = 0;
    script = ["Sure! Here is your article: <h2>Mugs</h2>", GOOD];
    expect((await model().write(brief)).title).toBe("Ceramic mugs: how to choose");
    expect(seen[1]!.body.messages[3]!.content).toContain("not a JSON object");
    seen.length = 0;
    script = [JSON.stringify({ title: "Mugs" }), GOOD];
    await model().write(brief);
    expect(seen[1]!.body.messages[3]!.content).toMatch(/not as asked \(html: /);
  });

  it("fails as unavailable when the second answer is still wrong, without a third call", async () => {
    script = [CHEAP, answer("<p>The best   price for mugs.</p>"), GOOD];
    const err = await model()
      .write(brief)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelUnavailableError);
    expect((err as Error).message).toContain('"best price"');
    expect(seen).toHaveLength(2);
  });

  it("fails as unavailable when the endpoint fails or does not answer in time, never naming the key", async () => {
    script = ["hang"];
    const slow = await model({ timeoutMs: 200, maxRetries: 0 })
      .write(brief)
      .catch((e: unknown) => e);
    expect(slow).toBeInstanceOf(ModelUnavailableError);
    expect((slow as Error).message).not.toContain("sk-stub-secret");
    seen.length = 0;
    script = [503, 503];
    const down = await model({ maxRetries: 1 })
      .write(brief)
      .catch((e: unknown) => e);
    expect(down).toBeInstanceOf(ModelUnavailableError);
    expect((down as Error).message).not.toContain("sk-stub-secret");
    expect(seen).toHaveLength(2);
  });

  it("keeps the title the order asked for, less an avoided word", async () => {
    script = [GOOD];
    const d = await model().write({ ...brief, title: "Cheap mugs that last" });
    expect(d.title).toBe("Mugs that last");
    expect(d.slug).toBe("mugs-that-last");
    expect(seen[0]!.body.messages[1]!.content).toContain('Title: use exactly "Mugs that last"');
  });
});
