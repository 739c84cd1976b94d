import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { conversations, leads, messages, operations, products, tenants, type MessageCardCopy } from "@/db/schema";
import type { Operation } from "@/server/schemas/operations";
import type { ChatTurn, SellerInput, SellerOutput } from "../ai-seller/language-model";
import { costMinor } from "../ai-seller/prices";
import { messageCardCopy } from "../cards/card-view";
import { recordEvent } from "../events/outbox";
import { finishOperation } from "../operations/operation-runs";

type OperationRow = typeof operations.$inferSelect;

/** How many recent messages of the conversation the AI seller reads. */
const RECENT_MESSAGES = 20;
/** Cards the AI seller ranks at most (the tenant's first active cards in list order). */
const MAX_CATALOG_CARDS = 500;

/** What a run of an AI reply needs: the model's input, or why the reply is no longer wanted. */
export type AiReplyContext = { kind: "reply"; input: SellerInput } | { kind: "cancel"; reason: string };

/**
 * Reads what the AI seller answers from: the shop's name, the conversation's recent messages (oldest
 * first, internal notes and deleted ones left out) and the tenant's active cards. A conversation that an
 * operator took over or that was closed meanwhile gives `cancel`.
 */
export async function aiReplyContext(db: Db, op: OperationRow): Promise<AiReplyContext> {
  const [c] = await db
    .select({ mode: conversations.mode, status: conversations.status, shop: tenants.name })
    .from(conversations)
    .innerJoin(tenants, eq(tenants.id, conversations.tenantId))
    .where(and(eq(conversations.id, op.conversationId!), eq(conversations.tenantId, op.tenantId)));
  if (!c) return { kind: "cancel", reason: "the conversation no longer exists" };
  if (c.mode === "operator") return { kind: "cancel", reason: "an operator took the conversation over" };
  if (c.status === "closed") return { kind: "cancel", reason: "the conversation was closed" };
  const recent = await db
    .select({ sender: messages.sender, content: messages.content })
    .from(messages)
    .where(
      and(
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
    .where(and(eq(products.tenantId, op.tenantId), eq(products.active, true), sql`${products.code} is not null`))
    .orderBy(products.sort, products.createdAt, products.id)
    .limit(MAX_CATALOG_CARDS);
  // `code` is set: the query reads cards only (`code is not null`).
  const cards = rows.map((r) => ({ ...r, code: r.code! }));
  return { kind: "reply", input: { shopName: c.shop, turns, cards } };
}

/**
 * Records the AI's reply for run `attempt`: a message with sender `ai` holding copies of the recommended
 * cards, `message.created` for it, the operation `succeeded` with `resource` {message} and `usage` (the
 * cost priced from the table, charged from the hold; 0 in test mode), all in one transaction.
 * @returns the Operation, or null when this run no longer owns the operation.
 */
export async function completeAiReply(
  db: Db,
  id: string,
  attempt: number,
  out: SellerOutput,
): Promise<Operation | null> {
  return finishOperation(db, id, attempt, async (tx, op) => {
    const [shop] = await tx
      .select({ mainDomain: tenants.mainDomain, cell: tenants.cell })
      .from(tenants)
      .where(eq(tenants.id, op.tenantId));
    const rows = out.cardCodes.length
      ? await tx
          .select()
          .from(products)
          .where(and(eq(products.tenantId, op.tenantId), inArray(products.code, out.cardCodes)))
      : [];
    const byCode = new Map(rows.map((p) => [p.code!, p]));
    const cards: MessageCardCopy[] = out.cardCodes
      .filter((c) => byCode.has(c))
      .slice(0, 3)
      .map((code) => messageCardCopy(byCode.get(code)!, shop?.mainDomain ?? null, shop?.cell ?? "ru"));
    const [m] = await tx
      .insert(messages)
      .values({
        tenantId: op.tenantId,
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
      livemode: op.livemode,
      data: { conversation_id: op.conversationId, message_id: m!.id, sender: "ai" },
    });
    return {
      status: "succeeded",
      costMinor: op.livemode ? costMinor(out.model, out) : 0n,
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
export async function endAiReply(
  db: Db,
  id: string,
  attempt: number,
  end: { status: "failed"; code: string; message: string } | { status: "canceled" },
): Promise<Operation | null> {
  return finishOperation(db, id, attempt, async (tx, op) => {
    if (end.status === "canceled") return { status: "canceled", costMinor: 0n };
    await requestHandoff(tx, op.tenantId, op.conversationId!, op.livemode);
    return { status: "failed", costMinor: 0n, error: { code: end.code, message: end.message } };
  });
}

/**
 * The conversation waits for an operator: `handoff_pending` and `conversation.handoff_requested`
 * (`conversation_id`, and `lead_id` of its newest lead when it has one), in `db`'s transaction.
 */
export async function requestHandoff(
  db: Db,
  tenantId: string,
  conversationId: string,
  livemode: boolean,
): Promise<void> {
  await db
    .update(conversations)
    .set({ status: "handoff_pending", updatedAt: sql`now()` })
    .where(and(eq(conversations.id, conversationId), eq(conversations.tenantId, tenantId)));
  const [lead] = await db
    .select({ id: leads.id })
    .from(leads)
    .where(and(eq(leads.tenantId, tenantId), eq(leads.conversationId, conversationId)))
    .orderBy(desc(leads.createdAt))
    .limit(1);
  await recordEvent(db, {
    tenantId,
    type: "conversation.handoff_requested",
    livemode,
    data: { conversation_id: conversationId, ...(lead ? { lead_id: lead.id } : {}) },
  });
}
