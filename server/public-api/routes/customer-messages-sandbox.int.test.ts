import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { conversations, events, messages, operations, walletLedger, wallets } from "@/db/schema";
import { runOperation } from "@/server/jobs/run-operation";
import { setLanguageModel } from "@/server/services/ai-seller/current-model";
import type { LanguageModel } from "@/server/services/ai-seller/language-model";
import { createCard } from "@/server/services/cards/cards";
import { setChannelAi } from "@/server/services/integrations/channel-settings";
import { setPreview } from "@/server/services/tenants/previews";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { sandboxKey } from "@/server/testing/sandbox-key";
import { openTestDatabase } from "@/server/testing/test-db";

// POST /conversations/{id}/messages in test mode (issue 69): a test key of a tenant with the preview
// `test-mode` writes customer messages into sandbox conversations; their AI replies are operations of
// `livemode` false answered by the offline model only, from the sandbox's cards, and the magic contents
// `test:spam`, `test:ai_unavailable` and `test:fail` force the outcomes docs/test-mode.md lists.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let sandbox: string;
let n = 0;
const P = { preview: "conversation-writes" as const };

/** A model that must never be asked: the configured (external) one, or an offline one a magic content skips. */
const forbidden = (calls: string[]): LanguageModel => ({
  model: "gpt-4o",
  writerModel: "gpt-4o",
  reply: async (input) => {
    calls.push(input.turns.at(-1)?.content ?? "");
    throw new Error("this model must not be called");
  },
  write: async () => {
    throw new Error("this model must not be called");
  },
  analystModel: "gpt-4o",
  analyze: async () => {
    throw new Error("this model must not be called");
  },
});

/** A tenant with both previews, a live and a sandbox card of its own in each mode. */
async function shop(): Promise<{ t: TenantFixture; sandbox: string }> {
  const s = await makeTenant(db.db);
  await setPreview(db.db, s.tenantId, "conversation-writes", true);
  const key = await sandboxKey(db.db, s);
  await createCard(db.db, { via: "operator", tenantId: s.tenantId }, { code: "live-socks", name: "Live wool socks" });
  await createCard(
    db.db,
    { via: "operator", tenantId: s.tenantId, livemode: false },
    { code: "sandbox-socks", name: "Sandbox wool socks" },
  );
  return { t: s, sandbox: key };
}
async function conv(key = sandbox): Promise<string> {
  const r = await call("POST", "/conversations", { key, json: { external_customer_id: `c-${++n}` }, ...P });
  expect(r.status).toBe(201);
  return r.body.id as string;
}
const say = (id: string, content: string, key = sandbox, idem = `m-${++n}`) =>
  call("POST", `/conversations/${id}/messages`, { key, json: { content }, idempotencyKey: idem, ...P });
const opRow = async (id: string) => (await db.db.select().from(operations).where(eq(operations.id, id)))[0]!;
const messageRow = async (id: string) => (await db.db.select().from(messages).where(eq(messages.id, id)))[0]!;
const conversationRow = async (id: string) =>
  (await db.db.select().from(conversations).where(eq(conversations.id, id)))[0]!;
const liveWallet = async (s = t) =>
  (
    await db.db
      .select({ balance: wallets.balanceMinor, held: wallets.heldMinor })
      .from(wallets)
      .where(and(eq(wallets.tenantId, s.tenantId), eq(wallets.livemode, true)))
  )[0]!;
const eventsOf = async (s: TenantFixture, type: string, conversationId: string) =>
  (
    await db.db
      .select()
      .from(events)
      .where(and(eq(events.tenantId, s.tenantId), eq(events.type, type)))
  ).filter((e) => e.data.conversation_id === conversationId);

beforeAll(async () => {
  db = await openTestDatabase();
  ({ t, sandbox } = await shop());
});
afterEach(() => setLanguageModel(undefined));
afterAll(async () => db.drop());

describe("a sandbox customer message", () => {
  it("is answered by the offline model from the sandbox's cards, every row in the sandbox, no live money", async () => {
    const external: string[] = [];
    setLanguageModel(forbidden(external));
    const before = await liveWallet();
    const id = await conv();
    const r = await say(id, "Do you have wool socks?");
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ ai_reply: { status: "queued" }, operation: { status: "queued" } });
    expect(await messageRow(r.body.message.id)).toMatchObject({ livemode: false, sender: "customer" });
    expect(await opRow(r.body.operation.id)).toMatchObject({ livemode: false, tenantId: t.tenantId });

    expect(await runOperation(db.db, r.body.operation.id)).toEqual({ status: "succeeded", final: true });
    expect(external).toEqual([]);
    const op = await opRow(r.body.operation.id);
    expect(op.usage?.model).toBe("catalog-1");
    const reply = await messageRow(op.resourceId!);
    expect(reply).toMatchObject({ livemode: false, sender: "ai", conversationId: id });
    expect(reply.content).toContain("Sandbox wool socks");
    expect(reply.content).not.toContain("Live wool socks");
    expect(reply.cards?.map((c) => c.code)).toEqual(["sandbox-socks"]);
    const created = await eventsOf(t, "message.created", id);
    expect(created.map((e) => [e.data.sender, e.livemode])).toEqual([
      ["customer", false],
      ["ai", false],
    ]);
    expect(await liveWallet()).toEqual(before);
  });

  it("cannot be written into a live conversation, nor a live key's into a sandbox one", async () => {
    const live = await conv(t.key);
    const test = await conv();
    for (const [id, key] of [
      [live, sandbox],
      [test, t.key],
    ] as const) {
      const r = await say(id, "socks", key);
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("not_found");
      expect(await db.db.select().from(messages).where(eq(messages.conversationId, id))).toEqual([]);
    }
  });

  it("counts the channel's daily AI limit apart from live replies", async () => {
    const s = await shop();
    await setChannelAi(db.db, s.t.integrationId, { aiDailyLimit: 1 });
    expect((await say(await conv(s.t.key), "socks", s.t.key)).status).toBe(202);
    const first = await say(await conv(s.sandbox), "socks", s.sandbox);
    expect(first.status).toBe(202);
    const id = await conv(s.sandbox);
    const second = await say(id, "socks", s.sandbox);
    expect(second.body.ai_reply).toEqual({ status: "skipped", reason: "daily_limit" });
    expect((await eventsOf(s.t, "conversation.handoff_requested", id)).map((e) => e.livemode)).toEqual([false]);
  });
});

describe("magic contents in the sandbox", () => {
  it("test:spam: skipped spam, no operation, no charge", async () => {
    const id = await conv();
    const before = await liveWallet();
    const r = await say(id, "test:spam");
    expect(r.status).toBe(200);
    expect(r.body.ai_reply).toEqual({ status: "skipped", reason: "spam" });
    expect(r.body.operation).toBeUndefined();
    expect(await db.db.select().from(operations).where(eq(operations.messageId, r.body.message.id))).toEqual([]);
    expect(await messageRow(r.body.message.id)).toMatchObject({
      livemode: false,
      aiReplyStatus: "skipped",
      aiReplyReason: "spam",
    });
    const [event] = await eventsOf(t, "message.created", id);
    expect(event).toMatchObject({ livemode: false, data: { ai_reply: { status: "skipped", reason: "spam" } } });
    expect(await liveWallet()).toEqual(before);
  });

  it("test:ai_unavailable: the operation fails with ai_unavailable, its hold released, handoff with its event", async () => {
    const asked: string[] = [];
    const id = await conv();
    const r = await say(id, "test:ai_unavailable", sandbox, "unavailable-key");
    expect(r.status).toBe(202);
    expect(await runOperation(db.db, r.body.operation.id, { offlineModel: forbidden(asked) })).toEqual({
      status: "failed",
      final: true,
    });
    expect(asked).toEqual([]);
    const replay = await say(id, "test:ai_unavailable", sandbox, "unavailable-key");
    expect(replay.status).toBe(200);
    expect(replay.body.ai_reply).toEqual({ status: "skipped", reason: "ai_unavailable_handoff" });
    expect(replay.body.operation).toMatchObject({
      id: r.body.operation.id,
      status: "failed",
      error: { code: "ai_unavailable" },
    });
    const op = await opRow(r.body.operation.id);
    expect(op).toMatchObject({ holdOpen: false, chargedMinor: 0n });
    const ledger = await db.db.select().from(walletLedger).where(eq(walletLedger.operationId, op.id));
    expect(ledger.filter((l) => l.kind === "charge")).toEqual([]);
    expect(await conversationRow(id)).toMatchObject({ status: "handoff_pending", livemode: false });
    const handoffs = await eventsOf(t, "conversation.handoff_requested", id);
    expect(handoffs.map((e) => [e.livemode, e.data])).toEqual([[false, { conversation_id: id }]]);
  });

  it("test:fail: the operation fails (operation_timeout), its hold released, nothing charged", async () => {
    const asked: string[] = [];
    const before = await liveWallet();
    const id = await conv();
    const r = await say(id, "test:fail", sandbox, "fail-key");
    expect(r.status).toBe(202);
    expect(await runOperation(db.db, r.body.operation.id, { offlineModel: forbidden(asked) })).toEqual({
      status: "failed",
      final: true,
    });
    expect(asked).toEqual([]);
    const read = await call("GET", `/operations/${r.body.operation.id}`, { key: sandbox });
    expect(read.body.operation).toMatchObject({ status: "failed", error: { code: "operation_timeout" } });
    const op = await opRow(r.body.operation.id);
    expect(op).toMatchObject({ status: "failed", holdOpen: false, chargedMinor: 0n, livemode: false });
    const ledger = await db.db.select().from(walletLedger).where(eq(walletLedger.operationId, op.id));
    expect(ledger.filter((l) => l.kind === "charge")).toEqual([]);
    const replay = await say(id, "test:fail", sandbox, "fail-key");
    expect(replay.body.ai_reply).toEqual({ status: "skipped", reason: "ai_unavailable_handoff" });
    expect(await liveWallet()).toEqual(before);
  });

  it("matches the whole content only: other text is answered by the offline model", async () => {
    const id = await conv();
    const r = await say(id, "test:spam please");
    expect(r.status).toBe(202);
    expect(await runOperation(db.db, r.body.operation.id)).toEqual({ status: "succeeded", final: true });
  });
});

describe("magic contents outside the sandbox are plain text", () => {
  it("for a live key", async () => {
    const id = await conv(t.key);
    expect((await say(id, "test:spam", t.key)).body.ai_reply).toEqual({ status: "queued" });
    const r = await say(id, "test:fail", t.key);
    expect(await runOperation(db.db, r.body.operation.id)).toEqual({ status: "succeeded", final: true });
    expect((await opRow(r.body.operation.id)).livemode).toBe(true);
  });

  it("for a test key of a tenant without the preview test-mode: live data, an operation of livemode false", async () => {
    const plain = await makeTenant(db.db, { key: { mode: "test" } });
    await setPreview(db.db, plain.tenantId, "conversation-writes", true);
    const id = await conv(plain.key);
    expect(await conversationRow(id)).toMatchObject({ livemode: true });
    const r = await say(id, "test:ai_unavailable", plain.key);
    expect(r.status).toBe(202);
    expect(await runOperation(db.db, r.body.operation.id)).toEqual({ status: "succeeded", final: true });
    const op = await opRow(r.body.operation.id);
    expect(op).toMatchObject({ livemode: false, chargedMinor: 0n });
    expect(await messageRow(op.resourceId!)).toMatchObject({ livemode: true, sender: "ai" });
    expect((await eventsOf(plain, "message.created", id)).map((e) => e.livemode)).toEqual([true, true]);
  });
});
