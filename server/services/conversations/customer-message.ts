import { and, desc, eq, gte, inArray, notInArray, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { channels, conversations, messages, operations } from "@/db/schema";
import { ApiError, notFound } from "@/server/errors";
import type { CustomerMessage, CustomerMessageResult, SkipReason } from "@/server/schemas/conversation-writes";
import type { IntegrationActor } from "../actor";
import { maxCostMinor } from "../ai-seller/prices";
import { recordEvent } from "../events/outbox";
import { announceOperations } from "../events/work-notifier";
import { toOperation } from "../operations/operations";
import { createPaidOperation, utcDay } from "../operations/paid-operations";
import { requestHandoff } from "./ai-reply";
import { livemodeOf, ownedBy, ownerOf } from "../tenant-scope";
import { findConversation } from "./conversations";
import { toMessage } from "./messages";
import { isSandboxSpam } from "./sandbox-magic";
import { isSpam } from "./spam";

/** What the door supplies for a paid reply: the model to price the hold and the concurrency limit. */
export interface PaidReplyOptions {
  /** Model name of the language model in use (prices the hold). */
  model: string;
  /** Simultaneous paid operations of the tenant (spec `limits.paid_concurrency`). */
  paidConcurrency: number;
}

type ConversationRow = typeof conversations.$inferSelect;
type ChannelRow = typeof channels.$inferSelect;

/**
 * Why the AI seller will not answer this message, or null when it will (rules of {@link postCustomerMessage});
 * in a sandbox conversation the content `test:spam` is spam (sandbox-magic.ts).
 */
async function skipReason(
  db: Db,
  c: ConversationRow,
  channel: ChannelRow | undefined,
  content: string,
): Promise<SkipReason | null> {
  if (c.mode === "operator" || c.status === "handoff_pending") return "operator_active";
  if (!channel || !channel.aiEnabled) return "no_agent";
  const previous = await db
    .select({ content: messages.content, createdAt: messages.createdAt })
    .from(messages)
    .where(and(eq(messages.conversationId, c.id), eq(messages.sender, "customer")))
    .orderBy(desc(messages.createdAt))
    .limit(3);
  if (isSandboxSpam(c.livemode, content) || isSpam(content, previous)) return "spam";
  if ((await repliesToday(db, channel.id, c.livemode)) >= channel.aiDailyLimit) return "daily_limit";
  return null;
}

/**
 * Whether a customer message would get an AI reply now (read only), so the door can count it against
 * the paid rate before the write's transaction. False for a conversation that is not visible.
 */
export async function aiWouldReply(
  db: Db,
  actor: IntegrationActor,
  conversationId: string,
  content: string,
): Promise<boolean> {
  const c = await findConversation(db, actor, conversationId).catch(() => null);
  if (!c) return false;
  const [channel] = c.channelId ? await db.select().from(channels).where(eq(channels.id, c.channelId)) : [];
  return (await skipReason(db, c, channel, content)) === null;
}

/**
 * `POST /conversations/{id}/messages`: keeps the customer's message (a closed conversation opens again)
 * and decides whether the AI seller answers. Skipped (no operation, no charge), in this order:
 * `operator_active` (mode operator, or waiting for an operator), `no_agent` (AI off for the channel, or no
 * channel), `spam` (spam.ts), `daily_limit` (the channel's `ai_daily_limit` replies today; the conversation
 * becomes `handoff_pending` with `conversation.handoff_requested`). Otherwise the key needs
 * `ai_seller:invoke` (the door counted the paid rate before, see {@link aiWouldReply}) and a paid operation `conversation.ai_reply` is queued with its
 * hold (createPaidOperation) and announced to the jobs driver after the commit. `message.created` with
 * `ai_reply` is recorded in the same transaction. Call with the request's transaction.
 * The message, its event and its conversation are the actor's mode's; a sandbox actor's operation has
 * `livemode` false and is answered by the offline model only, and its magic contents force outcomes
 * (sandbox-magic.ts: `test:spam` is skipped `spam` here, `test:ai_unavailable` and `test:fail` fail the run).
 * @returns the customer message's id (the idempotent resource).
 * @throws ApiError 404; 403 `scope_missing`; and what createPaidOperation throws.
 */
export async function postCustomerMessage(
  db: Db,
  actor: IntegrationActor,
  conversationId: string,
  input: CustomerMessage,
  paid: PaidReplyOptions,
): Promise<string> {
  const c = await findConversation(db, actor, conversationId, true);
  const [channel] = c.channelId ? await db.select().from(channels).where(eq(channels.id, c.channelId)) : [];
  const reason = await skipReason(db, c, channel, input.content);
  if (!reason && !actor.scopes.includes("ai_seller:invoke"))
    throw new ApiError(
      "scope_missing",
      "An AI reply needs the scope ai_seller:invoke; the key's scopes are listed in GET /me.",
    );
  const [m] = await db
    .insert(messages)
    .values({
      ...ownerOf(actor),
      conversationId: c.id,
      sender: "customer",
      content: input.content,
      ...(reason ? { aiReplyStatus: "skipped", aiReplyReason: reason } : { aiReplyStatus: "queued" }),
    })
    .returning();
  if (reason === "daily_limit") await requestHandoff(db, actor.tenantId, c.id);
  await db
    .update(conversations)
    .set({ updatedAt: m!.createdAt, ...(c.status === "closed" ? { status: "open" } : {}) })
    .where(eq(conversations.id, c.id));
  await recordEvent(db, {
    tenantId: actor.tenantId,
    type: "message.created",
    livemode: livemodeOf(actor),
    data: {
      conversation_id: c.id,
      message_id: m!.id,
      sender: "customer",
      ai_reply: reason ? { status: "skipped", reason } : { status: "queued" },
    },
  });
  if (!reason) {
    // Last in the transaction: createPaidOperation locks the tenant's wallet row until the commit, so
    // every other write of this request is done before the lock is taken (concurrent paid requests of
    // one tenant queue on that lock). A refusal rolls back the message and its event with it.
    const op = await createPaidOperation(db, actor, {
      type: "conversation.ai_reply",
      maxCostMinor: maxCostMinor(paid.model),
      paidConcurrency: paid.paidConcurrency,
      conversationId: c.id,
      messageId: m!.id,
      channelId: channel!.id,
    });
    announceOperations([op.id], op.livemode);
  }
  return m!.id;
}

/**
 * AI replies of a channel today (UTC) in one mode: its `conversation.ai_reply` operations not failed or
 * canceled, for conversations of mode `livemode` (the channel is shared by both modes, its daily limit is
 * counted for each apart: sandbox replies never use up the live limit).
 */
async function repliesToday(db: Db, channelId: string, livemode: boolean): Promise<number> {
  const [r] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(operations)
    .innerJoin(conversations, eq(conversations.id, operations.conversationId))
    .where(
      and(
        eq(operations.channelId, channelId),
        eq(conversations.livemode, livemode),
        eq(operations.type, "conversation.ai_reply"),
        gte(operations.createdAt, new Date(`${utcDay()}T00:00:00Z`)),
        notInArray(operations.status, ["failed", "canceled"]),
      ),
    );
  return r?.n ?? 0;
}

/**
 * The answer of `POST /conversations/{id}/messages` from the current state (first answer, `wait`, replay):
 * - no operation → 200 `skipped` with the stored reason;
 * - queued / running → 202 with `ai_reply` `queued` and the `operation`;
 * - succeeded → 200 `replied` with `reply` {id, content, cards} and the operation (with `usage`);
 * - failed → 200 `skipped` `ai_unavailable_handoff` with the failed operation (its hold returned);
 * - canceled → 200 `skipped` `operator_active` with the canceled operation.
 * @throws ApiError 404 when the message or its conversation is no longer visible.
 */
export async function customerMessageAnswer(
  db: Db,
  actor: IntegrationActor,
  messageId: string,
): Promise<{ status: 200 | 202; body: CustomerMessageResult }> {
  const [m] = await db
    .select()
    .from(messages)
    .where(and(ownedBy(messages, actor), eq(messages.id, messageId)));
  if (!m) throw notFound("Message");
  await findConversation(db, actor, m.conversationId);
  const message = toMessage(m, []);
  const [op] = await db
    .select()
    .from(operations)
    .where(and(eq(operations.messageId, m.id), eq(operations.tenantId, actor.tenantId)));
  if (!op)
    return {
      status: 200,
      body: { message, ai_reply: { status: "skipped", reason: (m.aiReplyReason as SkipReason) ?? "no_agent" } },
    };
  const operation = toOperation(op);
  if (op.status === "queued" || op.status === "running")
    return { status: 202, body: { message, ai_reply: { status: "queued" }, operation } };
  if (op.status === "failed")
    return {
      status: 200,
      body: { message, ai_reply: { status: "skipped", reason: "ai_unavailable_handoff" }, operation },
    };
  if (op.status === "canceled")
    return { status: 200, body: { message, ai_reply: { status: "skipped", reason: "operator_active" }, operation } };
  const [reply] = op.resourceId
    ? await db
        .select()
        .from(messages)
        .where(and(eq(messages.id, op.resourceId), inArray(messages.sender, ["ai"])))
    : [];
  return {
    status: 200,
    body: {
      message,
      ai_reply: { status: "replied" },
      ...(reply ? { reply: { id: reply.id, content: reply.content ?? "", cards: reply.cards ?? [] } } : {}),
      operation,
    },
  };
}
