import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { conversations, events, integrations, leads, messages, operations, walletLedger, wallets } from "@/db/schema";
import { runOperation } from "@/server/jobs/run-operation";
import { startOperationLoop } from "@/server/jobs/operation-loop";
import { setLanguageModel } from "@/server/services/ai-seller/current-model";
import { waitingCount } from "@/server/services/operations/operation-settled";
import { setSettlePollMs as setReplyPollMs } from "../settle-wait";
import { ModelUnavailableError } from "@/server/services/ai-seller/language-model";
import { createCard } from "@/server/services/cards/cards";
import { setChannelAi } from "@/server/services/integrations/channel-settings";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { memoryLimitStore } from "@/server/services/limits/memory-limit-store";
import { setLimitStore } from "@/server/services/limits/rate-limiter";
import { setPreview } from "@/server/services/tenants/previews";
import { setSpendLimits } from "@/server/services/wallet/spend-limits";
import { setWalletSource } from "@/server/services/wallet/wallet-state";
import { call } from "@/server/testing/api-client";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";

// POST /conversations/{id}/messages: the customer message, the AI seller's reply as a paid operation, and
// the money around it (hold at creation, charge and release at the end), as an integrator sees it.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let n = 0;
const P = { preview: "conversation-writes" as const };

async function shop(opts: Parameters<typeof makeTenant>[1] = {}): Promise<TenantFixture> {
  const s = await makeTenant(db.db, opts);
  await setPreview(db.db, s.tenantId, "conversation-writes", true);
  const op = { tenantId: s.tenantId, via: "operator" as const };
  await createCard(db.db, op, {
    code: "socks",
    name: "Wool socks",
    description: "Warm winter socks",
    price_text: "990 ₽",
  });
  await createCard(db.db, op, {
    code: "jacket",
    name: "Rain jacket",
    description: "Light jacket for rain, куртка от дождя",
  });
  await createCard(db.db, op, { code: "mug", name: "Coffee mug" });
  return s;
}
async function conv(s = t): Promise<string> {
  const r = await call("POST", "/conversations", { key: s.key, json: { external_customer_id: `c-${++n}` }, ...P });
  expect(r.status).toBe(201);
  return r.body.id as string;
}
const say = (id: string, content: string, o: { s?: TenantFixture; wait?: number; idem?: string } = {}) =>
  call("POST", `/conversations/${id}/messages${o.wait !== undefined ? `?wait=${o.wait}` : ""}`, {
    key: (o.s ?? t).key,
    json: { content },
    idempotencyKey: o.idem ?? `m-${++n}`,
    ...P,
  });
const wallet = async (s = t) =>
  (
    await db.db
      .select()
      .from(wallets)
      .where(and(eq(wallets.tenantId, s.tenantId), eq(wallets.livemode, true)))
  )[0]!;
const ledger = (opId: string) => db.db.select().from(walletLedger).where(eq(walletLedger.operationId, opId));
const opRow = async (id: string) => (await db.db.select().from(operations).where(eq(operations.id, id)))[0]!;

beforeAll(async () => {
  db = await openTestDatabase();
  t = await shop();
});
afterEach(() => {
  setLanguageModel(undefined);
  setWalletSource(undefined);
  setLimitStore(undefined);
});
afterAll(async () => db.drop());

describe("a reply", () => {
  it("queues a paid operation with a hold, then charges its real cost and releases the rest", async () => {
    const id = await conv();
    const before = await wallet();
    const r = await say(id, "Do you have warm socks?");
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({
      message: { conversation_id: id, sender: "customer", content: "Do you have warm socks?" },
      ai_reply: { status: "queued" },
      operation: { type: "conversation.ai_reply", status: "queued" },
    });
    const opId = r.body.operation.id as string;
    const held = await wallet();
    expect(held.heldMinor - before.heldMinor).toBe(30n + 10n); // 6000 in × 5000 + 500 out × 20000 kopecks per 1M tokens
    expect(held.balanceMinor).toBe(before.balanceMinor);
    expect((await ledger(opId)).map((l) => [l.kind, l.amountMinor, l.holdMinor])).toEqual([["hold", 0n, 40n]]);

    expect(await runOperation(db.db, opId)).toEqual({ status: "succeeded", final: true });
    const op = await opRow(opId);
    const cost = op.chargedMinor!;
    expect(cost).toBeGreaterThan(0n);
    expect(cost).toBeLessThan(40n);
    const after = await wallet();
    expect(after.balanceMinor).toBe(before.balanceMinor - cost);
    expect(after.heldMinor).toBe(before.heldMinor);
    expect((await ledger(opId)).map((l) => l.kind).sort()).toEqual(["charge", "hold", "release"]);

    const read = await call("GET", `/operations/${opId}`, { key: t.key });
    expect(read.body.operation).toMatchObject({
      status: "succeeded",
      completed_at: expect.any(String),
      resource: { type: "message", id: expect.any(String) },
      usage: { cost: { amount: `0.${cost.toString().padStart(2, "0")}`, currency: "RUB" }, model: "catalog-1" },
    });
    const [reply] = await db.db.select().from(messages).where(eq(messages.id, read.body.operation.resource.id));
    expect(reply).toMatchObject({ sender: "ai", conversationId: id });
    expect(reply!.content).toContain("Wool socks");
    expect(reply!.cards?.[0]?.code).toBe("socks");
    const me = await call("GET", "/me", { key: t.key });
    expect(me.body.wallet.daily_spend.used.amount).not.toBe("0.00");

    const types = (await db.db.select().from(events).where(eq(events.tenantId, t.tenantId))).filter(
      (e) => e.data.conversation_id === id || e.data.id === opId,
    );
    expect(types.map((e) => e.type).sort()).toEqual(
      ["conversation.created", "message.created", "message.created", "operation.completed"].sort(),
    );
    expect(types.find((e) => e.type === "operation.completed")!.data).toEqual(read.body.operation);
    expect(types.find((e) => e.data.sender === "customer")!.data.ai_reply).toEqual({ status: "queued" });
  });

  it("replies within wait: 200 replied with the reply and the succeeded operation (local driver)", async () => {
    const loop = startOperationLoop(db.db, { pollMs: 20 });
    try {
      const id = await conv();
      const r = await say(id, "Нужна куртка от дождя", { wait: 10 });
      expect(r.status).toBe(200);
      expect(r.body.ai_reply).toEqual({ status: "replied" });
      expect(r.body.operation).toMatchObject({ status: "succeeded", usage: { model: "catalog-1" } });
      expect(r.body.reply.content).toMatch(/Rain jacket/);
      expect(r.body.reply.content).toMatch(/[а-я]/);
      expect(r.body.reply.cards.map((c: { code: string }) => c.code)).toContain("jacket");
    } finally {
      await loop.stop();
    }
  });

  it("a request waiting on its reply answers as soon as this process finishes the operation", async () => {
    // Looks only every 60 s: an answer within seconds of the finish can only come from the announcement.
    setReplyPollMs(60_000);
    try {
      const id = await conv();
      const answer = say(id, "warm socks?", { wait: 20 });
      let opId: string | undefined;
      for (const deadline = Date.now() + 10_000; !opId && Date.now() < deadline;) {
        await new Promise((r) => setTimeout(r, 10));
        const [m] = await db.db
          .select({ id: messages.id })
          .from(messages)
          .where(and(eq(messages.conversationId, id), eq(messages.sender, "customer")));
        if (m) opId = (await db.db.select().from(operations).where(eq(operations.messageId, m.id)))[0]?.id;
      }
      expect(opId).toBeDefined();
      // Let the request reach its wait before the operation finishes.
      await new Promise((r) => setTimeout(r, 200));
      expect(waitingCount()).toBe(1);
      expect(await runOperation(db.db, opId!)).toEqual({ status: "succeeded", final: true });
      let timer: NodeJS.Timeout | undefined;
      const r = await Promise.race([
        answer,
        new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), 5_000))),
      ]);
      clearTimeout(timer);
      expect(r).not.toBeNull();
      expect(r!.status).toBe(200);
      expect(r!.body.ai_reply).toEqual({ status: "replied" });
      expect(r!.body.operation).toMatchObject({ id: opId, status: "succeeded" });
      expect(waitingCount()).toBe(0);
    } finally {
      setReplyPollMs(undefined);
    }
  });

  it("answers 202 with the queued operation when wait runs out before the reply", async () => {
    // No driver runs here: the operation stays queued.
    const id = await conv();
    const started = Date.now();
    const r = await say(id, "warm socks?", { wait: 1 });
    const took = Date.now() - started;
    expect(r.status).toBe(202);
    expect(r.body.ai_reply).toEqual({ status: "queued" });
    expect(r.body.operation).toMatchObject({ type: "conversation.ai_reply", status: "queued" });
    expect(r.body.reply).toBeUndefined();
    expect(took).toBeGreaterThanOrEqual(1000);
    expect(took).toBeLessThan(5000);
    expect(waitingCount()).toBe(0);
    expect((await opRow(r.body.operation.id)).status).toBe("queued");
  });

  it("answers a replay with the same operation and charges nothing twice", async () => {
    const id = await conv();
    const first = await say(id, "mug please", { idem: "same-key" });
    await runOperation(db.db, first.body.operation.id);
    const rows = (await ledger(first.body.operation.id)).length;
    const again = await say(id, "mug please", { idem: "same-key" });
    expect(again.status).toBe(200);
    expect(again.body.operation.id).toBe(first.body.operation.id);
    expect(again.body.ai_reply).toEqual({ status: "replied" });
    expect((await ledger(first.body.operation.id)).length).toBe(rows);
    const sent = await db.db
      .select()
      .from(messages)
      .where(and(eq(messages.conversationId, id), eq(messages.sender, "customer")));
    expect(sent).toHaveLength(1);
  });

  it("runs test-mode keys with livemode false, cost 0 and nothing held", async () => {
    const s = await shop({ key: { mode: "test" } });
    const id = await conv(s);
    const before = await wallet(s);
    const r = await say(id, "socks", { s });
    expect(r.status).toBe(202);
    expect((await wallet(s)).heldMinor).toBe(0n);
    await runOperation(db.db, r.body.operation.id);
    const op = await opRow(r.body.operation.id);
    expect(op).toMatchObject({ livemode: false, status: "succeeded", chargedMinor: 0n });
    expect(op.usage?.cost.amount).toBe("0.00");
    expect((await wallet(s)).balanceMinor).toBe(before.balanceMinor);
  });
});

describe("skipped replies: no operation, no charge", () => {
  it("operator_active after a takeover", async () => {
    const id = await conv();
    await call("POST", `/conversations/${id}/takeover`, { key: t.key, ...P });
    const r = await say(id, "hello?");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ai_reply: { status: "skipped", reason: "operator_active" } });
    expect(r.body.operation).toBeUndefined();
  });

  it("no_agent when the AI seller is off for the channel", async () => {
    const s = await shop();
    await setChannelAi(db.db, s.integrationId, { aiEnabled: false });
    const r = await say(await conv(s), "socks", { s });
    expect(r.body.ai_reply).toEqual({ status: "skipped", reason: "no_agent" });
  });

  it("spam by the documented rules", async () => {
    const id = await conv();
    expect((await say(id, "a".repeat(40))).body.ai_reply).toEqual({ status: "skipped", reason: "spam" });
    const links = "see http://a.example http://b.example http://c.example www.d.example";
    expect((await say(id, links)).body.ai_reply).toEqual({ status: "skipped", reason: "spam" });
  });

  it("daily_limit: the message is kept, the conversation becomes handoff_pending with the event", async () => {
    const s = await shop();
    await setChannelAi(db.db, s.integrationId, { aiDailyLimit: 0 });
    const id = await conv(s);
    const r = await say(id, "socks", { s });
    expect(r.body.ai_reply).toEqual({ status: "skipped", reason: "daily_limit" });
    const [c] = await db.db.select().from(conversations).where(eq(conversations.id, id));
    expect(c!.status).toBe("handoff_pending");
    const handoffs = () =>
      db.db
        .select()
        .from(events)
        .where(and(eq(events.tenantId, s.tenantId), eq(events.type, "conversation.handoff_requested")));
    expect((await handoffs()).map((e) => e.data)).toEqual([{ conversation_id: id }]);
    // A conversation with a lead names it in the event.
    const withLead = await conv(s);
    const [lead] = await db.db.insert(leads).values({ tenantId: s.tenantId, conversationId: withLead }).returning();
    await say(withLead, "socks", { s });
    expect((await handoffs()).map((e) => e.data)).toContainEqual({ conversation_id: withLead, lead_id: lead!.id });
    expect((await wallet(s)).heldMinor).toBe(0n);
  });

  it("ai_unavailable_handoff: the model fails, the operation fails, the hold returns, handoff", async () => {
    setLanguageModel({
      model: "catalog-1",
      writerModel: "catalog-1",
      reply: async () => {
        throw new ModelUnavailableError("down");
      },
      write: async () => {
        throw new ModelUnavailableError("down");
      },
      analystModel: "catalog-1",
      analyze: async () => {
        throw new ModelUnavailableError("down");
      },
    });
    const id = await conv();
    const before = await wallet();
    const r = await say(id, "socks", { idem: "fail-key" });
    expect(await runOperation(db.db, r.body.operation.id)).toEqual({ status: "failed", final: true });
    expect(await wallet()).toMatchObject({ balanceMinor: before.balanceMinor, heldMinor: before.heldMinor });
    const replay = await say(id, "socks", { idem: "fail-key" });
    expect(replay.status).toBe(200);
    expect(replay.body.ai_reply).toEqual({ status: "skipped", reason: "ai_unavailable_handoff" });
    expect(replay.body.operation).toMatchObject({ status: "failed", error: { code: "ai_unavailable" } });
    const [c] = await db.db.select().from(conversations).where(eq(conversations.id, id));
    expect(c!.status).toBe("handoff_pending");
  });
});

describe("refusals", () => {
  it("402 insufficient_funds when the available balance is below the hold; nothing is kept", async () => {
    const s = await shop({ balanceMinor: 0n });
    const id = await conv(s);
    const r = await say(id, "socks", { s });
    expect(r.status).toBe(402);
    expect(r.body.code).toBe("insufficient_funds");
    expect(await db.db.select().from(messages).where(eq(messages.conversationId, id))).toHaveLength(0);
  });

  it("402 spend_limit_reached naming the per-operation maximum, the tenant and integration daily limits, concurrency", async () => {
    const s = await shop();
    const id = await conv(s);
    await setSpendLimits(db.db, { tenantId: s.tenantId }, { maxOperationCostMinor: 1n });
    expect((await say(id, "socks", { s })).body).toMatchObject({
      code: "spend_limit_reached",
      detail: expect.stringContaining("maximum cost of one operation"),
    });
    await setSpendLimits(db.db, { tenantId: s.tenantId }, { maxOperationCostMinor: 10_000n, dailyLimitMinor: 10n });
    expect((await say(id, "socks", { s })).body.detail).toContain("tenant's daily spend limit");
    await setSpendLimits(db.db, { tenantId: s.tenantId }, { dailyLimitMinor: null });
    await setLimitOverride(db.db, { tenantId: s.tenantId }, { paidConcurrency: 1 });
    expect((await say(id, "socks", { s })).status).toBe(202);
    const second = await say(id, "jacket", { s });
    expect(second.status).toBe(402);
    expect(second.body.detail).toContain("simultaneous paid operations");
  });

  it("402 when the integration's daily limit cannot cover the hold", async () => {
    const s = await shop();
    await db.db.update(integrations).set({ dailySpendLimitMinor: 10n }).where(eq(integrations.id, s.integrationId));
    const r = await say(await conv(s), "socks", { s });
    expect(r.status).toBe(402);
    expect(r.body.detail).toContain("integration's daily spend limit");
  });

  it("429 past the paid rate; 503 upstream_unavailable while the wallet state is unknown", async () => {
    const s = await shop();
    await setLimitOverride(db.db, { tenantId: s.tenantId }, { paidPerMin: 1 });
    const id = await conv(s);
    expect((await say(id, "socks", { s })).status).toBe(202);
    const limited = await say(id, "jacket", { s });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBeTruthy();
    setWalletSource({
      read: async () => {
        throw new Error("billing down");
      },
    });
    const unknown = await say(await conv(), "mug");
    expect(unknown.status).toBe(503);
    expect(unknown.body.code).toBe("upstream_unavailable");
  });

  it("503 service_unavailable when the limit store is down for the paid rate (fail closed)", async () => {
    const mem = memoryLimitStore();
    setLimitStore({
      name: "paid-down",
      ping: async () => {},
      take: async (buckets, now) => {
        if (buckets.some((b) => b.bucket.endsWith(":paid"))) throw new Error("store down");
        return mem.take(buckets, now);
      },
    });
    const r = await say(await conv(), "socks");
    expect(r.status).toBe(503);
    expect(r.body.code).toBe("service_unavailable");
  });

  it("validates the body and wait, and needs an Idempotency-Key", async () => {
    const id = await conv();
    const empty = await say(id, "   ");
    expect(empty.status).toBe(422);
    expect(empty.body.errors[0].field).toBe("/content");
    const wait = await say(id, "hi", { wait: 21 });
    expect(wait.status).toBe(422);
    expect(wait.body.errors[0].field).toBe("/wait");
    const noKey = await call("POST", `/conversations/${id}/messages`, { key: t.key, json: { content: "x" }, ...P });
    expect(noKey.status).toBe(400);
    expect(noKey.body.code).toBe("idempotency_key_required");
  });
});

describe("a stuck operation", () => {
  it("times out: failed with operation_timeout and its whole hold released", async () => {
    const id = await conv();
    const before = await wallet();
    const r = await say(id, "socks");
    await db.db
      .update(operations)
      .set({ deadlineAt: new Date(Date.now() - 1000) })
      .where(eq(operations.id, r.body.operation.id));
    expect(await runOperation(db.db, r.body.operation.id)).toEqual({ status: "failed", final: true });
    expect((await opRow(r.body.operation.id)).error).toMatchObject({ code: "operation_timeout" });
    expect(await wallet()).toMatchObject({ balanceMinor: before.balanceMinor, heldMinor: before.heldMinor });
  });
});
