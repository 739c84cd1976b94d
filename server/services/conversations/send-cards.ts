import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "@/db/client";
import { conversations, messages, products, type MessageCardCopy } from "@/db/schema";
import { invalidField, notFound } from "@/server/errors";
import type { SendCards, SentCards } from "@/server/schemas/conversations";
import { recordEvent } from "../events/outbox";
import type { IntegrationActor } from "../actor";
import { tenantContext } from "../cards/cards";
import { messageCardCopy } from "../cards/card-view";
import { livemodeOf, ownedBy, ownerOf } from "../tenant-scope";
import { findConversation } from "./conversations";

/** Channels whose messengers show cards in their own format (spec: Telegram, VK, Max). */
const NATIVE_CHANNELS = new Set(["telegram", "vk", "max"]);
/** Channels that get cards as metadata: the site widget and the integration's own channel. */
const METADATA_CHANNELS = new Set(["website", "api"]);

/** How the channel shows cards (spec "POST /conversations/{id}/cards" `delivery`); other channels get text lines. */
export function deliveryFor(channel: string | null): SentCards["delivery"] {
  if (channel && METADATA_CHANNELS.has(channel)) return "metadata";
  if (channel && NATIVE_CHANNELS.has(channel)) return "native";
  return "text";
}

/** The plain-text form of the cards for channels without card support: name, price, link per card. */
function asText(comment: string | null, cards: MessageCardCopy[]): string {
  const lines = cards.map((c) => [c.name, c.price_text, c.page_url].filter(Boolean).join(" · "));
  return [comment, ...lines].filter(Boolean).join("\n");
}

/**
 * `POST /conversations/{id}/cards`: writes an operator message holding COPIES of the cards (later card
 * edits leave it unchanged), moves the conversation's `updated_at`, and records `message.created` in the
 * same transaction (outbox). Call with the request's transaction.
 * Cards and conversation are the actor's mode's: a card of the other mode is unknown there.
 * @throws ApiError 404 `not_found` for a missing, foreign, other-mode, mailbox or cabinet conversation; 422
 *   `validation_failed` on `/codes` for a repeated, unknown or inactive code.
 */
export async function sendCards(
  db: Db,
  actor: IntegrationActor,
  conversationId: string,
  input: SendCards,
): Promise<SentCards> {
  const conversation = await findConversation(db, actor, conversationId, true);
  const codes = input.codes;
  if (new Set(codes).size !== codes.length)
    throw invalidField("/codes", "duplicate", "Each card code may be sent once per message.");
  const rows = await db
    .select()
    .from(products)
    .where(and(ownedBy(products, actor), inArray(products.code, codes)));
  const byCode = new Map(rows.map((p) => [p.code!, p]));
  const unusable = codes.filter((c) => !byCode.get(c)?.active);
  if (unusable.length) {
    throw invalidField(
      "/codes",
      "unknown_card",
      `No active card with code ${unusable.map((c) => `"${c}"`).join(", ")}.`,
    );
  }
  const tenant = await tenantContext(db, actor);
  const cards: MessageCardCopy[] = codes.map((code) =>
    messageCardCopy(byCode.get(code)!, tenant.mainDomain, tenant.cell),
  );
  const delivery = deliveryFor(conversation.channelType);
  const comment = input.comment ?? null;
  const [message] = await db
    .insert(messages)
    .values({
      ...ownerOf(actor),
      conversationId,
      sender: "operator",
      contentType: "cards",
      content: delivery === "text" ? asText(comment, cards) : comment,
      cards,
      deliveryStatus: "sent",
    })
    .returning();
  await db.update(conversations).set({ updatedAt: message.createdAt }).where(eq(conversations.id, conversationId));
  await recordEvent(db, {
    tenantId: actor.tenantId,
    type: "message.created",
    livemode: livemodeOf(actor),
    data: { conversation_id: conversationId, message_id: message.id, sender: "operator" },
  });
  return toSentCards(message, delivery);
}

function toSentCards(m: typeof messages.$inferSelect, delivery: SentCards["delivery"]): SentCards {
  return {
    message_id: m.id,
    conversation_id: m.conversationId,
    created_at: m.createdAt.toISOString(),
    cards: m.cards ?? [],
    delivery,
    status: (m.deliveryStatus as SentCards["status"] | null) ?? "sent",
  };
}

/**
 * The answer of a completed send-cards request, rebuilt from the message (idempotent replay).
 * @throws ApiError 404 when the message or its conversation is no longer visible.
 */
export async function getSentCards(db: Db, actor: IntegrationActor, messageId: string): Promise<SentCards> {
  const [m] = await db
    .select()
    .from(messages)
    .where(and(ownedBy(messages, actor), eq(messages.id, messageId)));
  if (!m) throw notFound("Message");
  const conversation = await findConversation(db, actor, m.conversationId);
  return toSentCards(m, deliveryFor(conversation.channelType));
}
