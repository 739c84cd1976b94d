import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { conversations, leads, messages, operations, products, tenants, type MessageCardCopy } from "@/db/schema";
import type { Operation } from "@/server/schemas/operations";
import type { ChatTurn, SellerInput, SellerOutput } from "../ai-seller/language-model";
import { costMinor } from "../ai-seller/prices";
import { messageCardCopy } from "../cards/card-view";
import type { SystemActor } from "../actor";
import { recordEvent } from "../events/outbox";
import { finishOperation } from "../operations/operation-runs";
import { livemodeOf, ownedBy, ownerOf } from "../tenant-scope";
import { sandboxFailure } from "./sandbox-magic";

type OperationRow = typeof operations.$inferSelect;

/** How many recent messages of the conversation the AI seller reads. */
const RECENT_MESSAGES = 20;
/** Cards the AI seller ranks at most (the tenant's first active cards in list order). */
const MAX_CATALOG_CARDS = 500;

/** How a run of an AI reply ends without a reply: `failed` with an error, or `canceled` (no longer wanted). */
export type AiReplyEnd = { status: "failed"; code: string; message: string } | { status: "canceled" };

/** The model could not answer (or the sandbox's `test:ai_unavailable`): the answer is `ai_unavailable_handoff`. */
export const AI_UNAVAILABLE = {
  status: "failed",
  code: "ai_unavailable",
  message:
    "The AI seller could not answer; the conversation was handed to an operator and the reserved funds returned.",
} as const satisfies AiReplyEnd;

/** The operation passed its deadline (or the sandbox's `test:fail`). */
export const OPERATION_TIMEOUT = {
  status: "failed",
  code: "operation_timeout",
  message: "The operation did not finish in time; its reserved funds were returned.",
} as const satisfies AiReplyEnd;

/**
 * What a run of an AI reply needs: the model's input and the mode of the conversation's data (`livemode`
 * false: the sandbox, whose replies only the offline model writes), why the reply is no longer wanted, or
 * the failure a sandbox's magic content forces (sandbox-magic.ts).
 */
export type AiReplyContext =
  | { kind: "reply"; input: SellerInput; livemode: boolean }
  | { kind: "cancel"; reason: string }
  | { kind: "fail"; end: AiReplyEnd };

/**
 * The owner of the rows an operation's run reads and writes: the operation's tenant and the mode of its
 * conversation (a background job takes the mode from the row it works on, tenant-scope.ts). The mode is the
 * conversation's, not the operation's: a test key of a tenant without the preview `test-mode` writes live
 * conversations under operations of `livemode` false (held and charged nothing).
 */
function rowOwner(tenantId: string, livemode: boolean): SystemActor {
  return { via: "system", tenantId, livemode };
}

/**
 * Reads what the AI seller answers from: the shop's name, the conversation's recent messages (oldest
 * first, internal notes and deleted ones left out) and the tenant's active cards of the conversation's
 * mode. A conversation that an operator took over or that was closed meanwhile gives `cancel`; in the
 * sandbox, a customer message `test:ai_unavailable` or `test:fail` gives `fail`.
 */
export async function aiReplyContext(db: Db, op: OperationRow): Promise<AiReplyContext> {
  const [c] = await db
    .select({
      mode: conversations.mode,
      status: conversations.status,
      livemode: conversations.livemode,
      shop: tenants.name,
    })
    .from(conversations)
    .innerJoin(tenants, eq(tenants.id, conversations.tenantId))
    .where(and(eq(conversations.id, op.conversationId!), eq(conversations.tenantId, op.tenantId)));
  if (!c) return { kind: "cancel", reason: "the conversation no longer exists" };
  if (c.mode === "operator") return { kind: "cancel", reason: "an operator took the conversation over" };
  if (c.status === "closed") return { kind: "cancel", reason: "the conversation was closed" };
  const owner = rowOwner(op.tenantId, c.livemode);
  if (!c.livemode) {
    const [m] = await db
      .select({ content: messages.content })
      .from(messages)
      .where(and(ownedBy(messages, owner), eq(messages.id, op.messageId!)));
    const failure = sandboxFailure(c.livemode, m?.content ?? null);
    if (failure) return { kind: "fail", end: failure === "fail" ? OPERATION_TIMEOUT : AI_UNAVAILABLE };
  }
  const recent = await db
    .select({ sender: messages.sender, content: messages.content })
    .from(messages)
    .where(
      and(
        ownedBy(messages, owner),
        eq(messages.conversationId, op.conversationId!),
        eq(messages.internal, false),
        sql`${messages.deletedAt} is null`,
        sql`${messages.createdAt} <= (select created_at from messages where id = ${op.messageId})`,
      ),
    )
    .orderBy(desc(messages.createdAt), desc(messages.id))
    .limit(RECENT_MESSAGES);
  const turns: ChatTurn[] = recent
    .reverse()
    .filter((m) => m.content && ["customer", "ai", "operator"].includes(m.sender))
    .map((m) => ({ role: m.sender as ChatTurn["role"], content: m.content! }));
  // What the seller reads of a card, in the cards list's order (products_cards_order_idx): a catalog of
  // more than 500 cards is cut, and the prompt holds as much of it as fits (prompt.ts).
  const rows = await db
    .select({
      code: products.code,
      name: products.name,
      description: products.description,
      badge: products.badge,
      priceText: products.priceText,
    })
    .from(products)
    .where(and(ownedBy(products, owner), eq(products.active, true), sql`${products.code} is not null`))
    .orderBy(products.sort, products.createdAt, products.id)
    .limit(MAX_CATALOG_CARDS);
  // `code` is set: the query reads cards only (`code is not null`).
  const cards = rows.map((r) => ({ ...r, code: r.code! }));
  return { kind: "reply", input: { shopName: c.shop, turns, cards }, livemode: c.livemode };
}

/**
 * Records the AI's reply for run `attempt`: a message with sender `ai` holding copies of the recommended
 * cards (of the conversation's mode), `message.created` for it, the operation `succeeded` with `resource`
 * {message} and `usage` (the cost priced from the table and charged from the hold, so an operation without
 * a hold, a test key's outside the sandbox, is charged nothing), all in one transaction, in the mode of the
 * conversation. A conversation deleted meanwhile cancels the operation instead.
 * @returns the Operation, or null when this run no longer owns the operation.
 */
export async function completeAiReply(
  db: Db,
  id: string,
  attempt: number,
  out: SellerOutput,
): Promise<Operation | null> {
  return finishOperation(db, id, attempt, async (tx, op) => {
    const [c] = await tx
      .select({ livemode: conversations.livemode, mainDomain: tenants.mainDomain, cell: tenants.cell })
      .from(conversations)
      .innerJoin(tenants, eq(tenants.id, conversations.tenantId))
      .where(and(eq(conversations.id, op.conversationId!), eq(conversations.tenantId, op.tenantId)));
    if (!c) return { status: "canceled", costMinor: 0n };
    const owner = rowOwner(op.tenantId, c.livemode);
    const rows = out.cardCodes.length
      ? await tx
          .select()
          .from(products)
          .where(and(ownedBy(products, owner), inArray(products.code, out.cardCodes)))
      : [];
    const byCode = new Map(rows.map((p) => [p.code!, p]));
    const cards: MessageCardCopy[] = out.cardCodes
      .filter((code) => byCode.has(code))
      .slice(0, 3)
      .map((code) => messageCardCopy(byCode.get(code)!, c.mainDomain, c.cell));
    const [m] = await tx
      .insert(messages)
      .values({
        ...ownerOf(owner),
        conversationId: op.conversationId!,
        sender: "ai",
        content: out.content,
        cards: cards.length ? cards : null,
        deliveryStatus: "sent",
      })
      .returning();
    await tx.update(conversations).set({ updatedAt: m!.createdAt }).where(eq(conversations.id, op.conversationId!));
    await recordEvent(tx, {
      tenantId: op.tenantId,
      type: "message.created",
      livemode: livemodeOf(owner),
      data: { conversation_id: op.conversationId, message_id: m!.id, sender: "ai" },
    });
    return {
      status: "succeeded",
      // Priced whatever the mode: the engine charges only an open hold (settleHold), so a free test-mode
      // operation costs nothing and a sandbox one is charged to the sandbox wallet (issue 69).
      costMinor: costMinor(out.model, out),
      model: out.model,
      resource: { type: "message", id: m!.id },
    };
  });
}

/**
 * Ends run `attempt` without a reply: `failed` (the model failed or the operation timed out; the
 * conversation becomes `handoff_pending` with `conversation.handoff_requested`) or `canceled` (no longer
 * wanted). The whole hold is released.
 * @returns the Operation, or null when this run no longer owns the operation.
 */
export async function endAiReply(db: Db, id: string, attempt: number, end: AiReplyEnd): Promise<Operation | null> {
  return finishOperation(db, id, attempt, async (tx, op) => {
    if (end.status === "canceled") return { status: "canceled", costMinor: 0n };
    await requestHandoff(tx, op.tenantId, op.conversationId!);
    return { status: "failed", costMinor: 0n, error: { code: end.code, message: end.message } };
  });
}

/**
 * The conversation waits for an operator: `handoff_pending` and `conversation.handoff_requested`
 * (`conversation_id`, and `lead_id` of its newest lead of the same mode when it has one), in `db`'s
 * transaction. The event carries the conversation's mode, read from its row (a sandbox conversation's
 * handoff is a sandbox event, `livemode` false). Nothing happens when the conversation no longer exists.
 */
export async function requestHandoff(db: Db, tenantId: string, conversationId: string): Promise<void> {
  const [c] = await db
    .update(conversations)
    .set({ status: "handoff_pending", updatedAt: sql`now()` })
    .where(and(eq(conversations.id, conversationId), eq(conversations.tenantId, tenantId)))
    .returning({ livemode: conversations.livemode });
  if (!c) return;
  const owner = rowOwner(tenantId, c.livemode);
  const [lead] = await db
    .select({ id: leads.id })
    .from(leads)
    .where(and(ownedBy(leads, owner), eq(leads.conversationId, conversationId)))
    .orderBy(desc(leads.createdAt))
    .limit(1);
  await recordEvent(db, {
    tenantId,
    type: "conversation.handoff_requested",
    livemode: livemodeOf(owner),
    data: { conversation_id: conversationId, ...(lead ? { lead_id: lead.id } : {}) },
  });
}
