import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { and, eq, inArray } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { operations, wallets } from "@/db/schema";
import { startLocalDriver, type LocalDriver } from "@/server/jobs/local-driver";
import { setLanguageModel } from "@/server/services/ai-seller/current-model";
import { createCard } from "@/server/services/cards/cards";
import { issueKey } from "@/server/services/keys/keys";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { setPreview } from "@/server/services/tenants/previews";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";

// Issue 76 item 3, "test mode cannot spend the model", as an attacker with test keys tries it through the
// API: the process is configured with an external model (AI_PROVIDER=openai, here a fake OpenAI-compatible
// server on 127.0.0.1 that counts what it is asked and answers after MODEL_DELAY_MS, a slow model), and:
// - a test key's customer message never reaches that model (the offline catalog model answers it);
// - test-mode messages count in the tenant's paid concurrency (402) and paid rate (429);
// - 30 queued test-mode messages of other tenants do not delay a live tenant's reply.

/** How long the fake external model takes to answer, ms. */
const MODEL_DELAY_MS = 2000;

let server: Server;
let db: Awaited<ReturnType<typeof openTestDatabase>>;
let driver: LocalDriver | null = null;
/** The customer messages the fake external model was asked to answer, in order. */
const asked: string[] = [];
let n = 0;
const P = { preview: "conversation-writes" as const };

async function body(req: IncomingMessage): Promise<{ messages: { role: string; content: string }[] }> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8")) as { messages: { role: string; content: string }[] };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    void body(req).then((b) => {
      asked.push(b.messages.map((m) => m.content).join("\n"));
      setTimeout(
        () =>
          res.writeHead(200, { "content-type": "application/json" }).end(
            JSON.stringify({
              id: "c1",
              object: "chat.completion",
              created: 1,
              model: "gpt-4o-mini",
              choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "Try the socks." } }],
              usage: { prompt_tokens: 120, completion_tokens: 8, total_tokens: 128 },
            }),
          ),
        MODEL_DELAY_MS,
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  db = await openTestDatabase({
    AI_PROVIDER: "openai",
    AI_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    AI_API_KEY: "sk-fake",
    AI_MODEL: "gpt-4o-mini",
    AI_MAX_RETRIES: "0",
    AI_TIMEOUT_MS: "20000",
  });
  // The process's model is made from the environment above on first use.
  setLanguageModel(undefined);
});
afterEach(async () => {
  await driver?.stop();
  driver = null;
});
afterAll(async () => {
  setLanguageModel(undefined);
  await db.drop();
  await new Promise<void>((r) => server.close(() => r()));
});

/** A tenant with the preview on and a card, and its key of `mode`. */
async function shop(mode: "live" | "test"): Promise<TenantFixture> {
  const s = await makeTenant(db.db, { key: { mode } });
  await setPreview(db.db, s.tenantId, "conversation-writes", true);
  await createCard(db.db, { tenantId: s.tenantId, via: "operator" }, { code: "socks", name: "Wool socks" });
  return s;
}
async function conv(key: string): Promise<string> {
  const r = await call("POST", "/conversations", { key, json: { external_customer_id: `c-${++n}` }, ...P });
  expect(r.status).toBe(201);
  return r.body.id as string;
}
const say = (key: string, id: string, content: string, wait?: number) =>
  call("POST", `/conversations/${id}/messages${wait === undefined ? "" : `?wait=${wait}`}`, {
    key,
    json: { content },
    idempotencyKey: `m-${++n}`,
    ...P,
  });
const balanceOf = async (tenantId: string) =>
  (
    await db.db
      .select()
      .from(wallets)
      .where(and(eq(wallets.tenantId, tenantId), eq(wallets.livemode, true)))
  )[0]!;

describe("a test key's customer message with AI_PROVIDER=openai", () => {
  it("is answered by the offline catalog model: the external model gets no request, nothing is held or charged", async () => {
    driver = startLocalDriver(db.db, { pollMs: 20 });
    const s = await shop("test");
    const before = await balanceOf(s.tenantId);
    asked.length = 0;
    const r = await say(s.key, await conv(s.key), "Do you have warm socks? (test mode)", 20);
    expect(r.status).toBe(200);
    expect(r.body.ai_reply).toEqual({ status: "replied" });
    expect(r.body.operation).toMatchObject({
      status: "succeeded",
      usage: { model: "catalog-1", cost: { amount: "0.00" } },
    });
    expect(r.body.reply.content).toContain("Wool socks");
    expect(asked).toEqual([]);
    expect(await balanceOf(s.tenantId)).toMatchObject({
      balanceMinor: before.balanceMinor,
      heldMinor: before.heldMinor,
    });

    // The same message from a live key does reach the configured model: the fake is what a call would hit.
    const live = await shop("live");
    const lr = await say(live.key, await conv(live.key), "Do you have warm socks? (live)", 20);
    expect(lr.status).toBe(200);
    expect(lr.body.operation).toMatchObject({ status: "succeeded", usage: { model: "gpt-4o-mini" } });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain("(live)");
  });
});

describe("test-mode messages count in the tenant's paid limits", () => {
  it("402 spend_limit_reached past the paid concurrency, counted apart from the tenant's live operations", async () => {
    const s = await shop("test");
    const live = await issueKey(db.db, { integrationId: s.integrationId, mode: "live", ipAllowlist: ["127.0.0.1"] });
    await setLimitOverride(db.db, { tenantId: s.tenantId }, { paidConcurrency: 2 });
    const id = await conv(s.key);
    // No driver runs: the operations stay queued.
    expect((await say(s.key, id, "socks one")).status).toBe(202);
    expect((await say(s.key, id, "socks two")).status).toBe(202);
    const third = await say(s.key, id, "socks three");
    expect(third.status).toBe(402);
    expect(third.body).toMatchObject({
      code: "spend_limit_reached",
      detail: expect.stringContaining("limit of 2 simultaneous paid operations of the tenant in test mode"),
    });
    // The refused message was not kept.
    const mine = await db.db.select().from(operations).where(eq(operations.conversationId, id));
    expect(mine).toHaveLength(2);
    expect(mine.every((o) => !o.livemode && o.status === "queued")).toBe(true);
    // Queued test work never refuses the tenant's live replies: live operations count on their own.
    const liveConv = await conv(live.key);
    expect((await say(live.key, liveConv, "live socks one")).status).toBe(202);
    expect((await say(live.key, liveConv, "live socks two")).status).toBe(202);
    expect((await say(live.key, liveConv, "live socks three")).status).toBe(402);
    // Leave no queued work behind for the drivers of the next tests.
    await db.db.update(operations).set({ status: "canceled" }).where(eq(operations.tenantId, s.tenantId));
  });

  it("429 rate_limited past the paid rate, with Retry-After", async () => {
    const s = await shop("test");
    await setLimitOverride(db.db, { tenantId: s.tenantId }, { paidPerMin: 1 });
    const id = await conv(s.key);
    expect((await say(s.key, id, "socks please")).status).toBe(202);
    const limited = await say(s.key, id, "a jacket please");
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe("rate_limited");
    expect(limited.headers.get("retry-after")).toBeTruthy();
    await db.db.update(operations).set({ status: "canceled" }).where(eq(operations.tenantId, s.tenantId));
  });
});

describe("the test-mode flood", () => {
  it("30 queued test-mode messages of other tenants neither reach the model nor delay a live tenant's reply", async () => {
    driver = startLocalDriver(db.db, { pollMs: 20 });
    const victim = await shop("live");
    const victimConv = await conv(victim.key);
    const liveReply = async (content: string) => {
      const started = performance.now();
      const r = await say(victim.key, victimConv, content, 20);
      const ms = performance.now() - started;
      expect(r.status).toBe(200);
      expect(r.body.ai_reply).toEqual({ status: "replied" });
      return ms;
    };
    await liveReply("warm socks, first question");
    asked.length = 0;
    const unloaded = await liveReply("warm socks, second question");

    // Six tenants with test keys at the default limits (5 simultaneous paid operations each): 30 messages.
    const attackers = await Promise.all(Array.from({ length: 6 }, () => shop("test")));
    const convs = await Promise.all(attackers.map((a) => conv(a.key)));
    const flood = await Promise.all(
      attackers.flatMap((a, i) =>
        Array.from({ length: 5 }, (_, j) => say(a.key, convs[i]!, `flood ${i}-${j}: what socks do you have?`)),
      ),
    );
    expect(flood.map((r) => r.status)).toEqual(Array(30).fill(202));
    const loaded = await liveReply("warm socks, third question");

    // Only the victim's two live replies reached the external model.
    expect(asked.filter((a) => a.includes("flood"))).toEqual([]);
    expect(asked).toHaveLength(2);
    // The live reply behind the flood took about as long as without it (the margin is for the database and
    // the event loop that the test lane shares with it: well under a second on PostgreSQL, under one on
    // the embedded one). Before the fix the flood's 30 two-second model calls ran 8 at a time ahead of
    // it: 6 s and more on top.
    expect(loaded).toBeLessThan(unloaded + 1.5 * MODEL_DELAY_MS);

    // The flood itself was answered, offline and free.
    const floodIds = flood.map((r) => r.body.operation.id as string);
    for (const until = Date.now() + 20_000; Date.now() < until;) {
      const rows = await db.db.select().from(operations).where(inArray(operations.id, floodIds));
      if (rows.every((o) => o.status === "succeeded")) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const rows = await db.db.select().from(operations).where(inArray(operations.id, floodIds));
    expect(rows.map((o) => [o.status, o.livemode, o.chargedMinor, o.usage?.model])).toEqual(
      Array(30).fill(["succeeded", false, 0n, "catalog-1"]),
    );
    expect(asked).toHaveLength(2);
  });
});
