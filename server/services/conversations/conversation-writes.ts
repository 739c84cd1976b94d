import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { channels, contacts, conversations, messages } from "@/db/schema";
import { ApiError } from "@/server/errors";
import type { CreateConversation, OperatorMessage } from "@/server/schemas/conversation-writes";
import type { Conversation, Message } from "@/server/schemas/conversations";
import type { IntegrationActor } from "../actor";
import { recordEvent } from "../events/outbox";
import { livemodeOf, ownedBy, ownerOf } from "../tenant-scope";
import { findConversation, toConversation } from "./conversations";
import { toMessage } from "./messages";

type ConversationRow = typeof conversations.$inferSelect;

/**
 * The integration's channel of type `api`, made on first use (spec "Me": `channel_id` null until then).
 * @returns the channel row (id, AI daily limit, AI on/off).
 */
export async function apiChannel(db: Db, actor: IntegrationActor): Promise<typeof channels.$inferSelect> {
  const find = () =>
    db
      .select()
      .from(channels)
      .where(and(eq(channels.integrationId, actor.integrationId), eq(channels.type, "api")));
  const [found] = await find();
  if (found) return found;
  await db
    .insert(channels)
    .values({ tenantId: actor.tenantId, type: "api", name: "API", integrationId: actor.integrationId })
    .onConflictDoNothing();
  const [made] = await find();
  return made!;
}

/**
 * `POST /conversations` (spec "Planned conversation write routes"): the conversation of
 * `external_customer_id` in the integration's `api` channel and the actor's mode, made with its contact and
 * the event `conversation.created` on first sight; a repeat returns the same conversation unchanged. The
 * `api` channel is the integration's in both modes; the same customer id in the sandbox and in live data
 * names two conversations.
 * @returns the conversation and whether it was made now.
 */
export async function createConversation(
  db: Db,
  actor: IntegrationActor,
  input: CreateConversation,
): Promise<{ conversation: Conversation; created: boolean }> {
  const channel = await apiChannel(db, actor);
  // The channel row is locked so that two requests for one new customer make one conversation.
  await db.select({ id: channels.id }).from(channels).where(eq(channels.id, channel.id)).for("update");
  const [existing] = await db
    .select()
    .from(conversations)
    .where(
      and(
        ownedBy(conversations, actor),
        eq(conversations.channelId, channel.id),
        eq(conversations.externalCustomerId, input.external_customer_id),
      ),
    )
    .orderBy(asc(conversations.createdAt))
    .limit(1);
  if (existing) return { conversation: toConversation(existing), created: false };
  const [made] = await db
    .insert(conversations)
    .values({
      ...ownerOf(actor),
      channelId: channel.id,
      channelType: "api",
      externalCustomerId: input.external_customer_id,
    })
    .returning();
  const [contact] = await db
    .insert(contacts)
    .values({
      ...ownerOf(actor),
      firstName: input.name?.trim() || null,
      email: input.email?.trim() || null,
      phone: input.phone?.trim() || null,
    })
    .returning({ id: contacts.id });
  const [row] = await db
    .update(conversations)
    .set({ contactId: contact!.id })
    .where(eq(conversations.id, made!.id))
    .returning();
  await recordEvent(db, {
    tenantId: actor.tenantId,
    type: "conversation.created",
    livemode: livemodeOf(actor),
    data: { conversation_id: made!.id },
  });
  return { conversation: toConversation(row!), created: true };
}

/** What takeover, release and close do (spec States "Conversation"). */
export type ConversationAction = "takeover" | "release" | "close";

/**
 * `POST /conversations/{id}/takeover | release | close`: takeover sets mode `operator` (AI stops),
 * release mode `ai` (a `handoff_pending` conversation is `open` again), close status `closed`. A repeat is
 * safe (the same answer, nothing changes); takeover or release of a closed conversation is 409.
 * @throws ApiError 404 `not_found`; 409 `invalid_state`.
 */
export async function changeConversation(
  db: Db,
  actor: IntegrationActor,
  id: string,
  action: ConversationAction,
): Promise<Conversation> {
  const c = await findConversation(db, actor, id, true);
  let patch: Partial<ConversationRow> | null = null;
  if (action === "close") {
    if (c.status !== "closed") patch = { status: "closed" };
  } else {
    if (c.status === "closed")
      throw new ApiError(
        "invalid_state",
        `A closed conversation cannot be ${action === "takeover" ? "taken over" : "released"}.`,
      );
    if (action === "takeover" && (c.mode !== "operator" || c.status === "handoff_pending"))
      patch = { mode: "operator", status: "open" };
    if (action === "release" && (c.mode !== "ai" || c.status === "handoff_pending"))
      patch = { mode: "ai", status: "open" };
  }
  if (!patch) return toConversation(c);
  const [row] = await db
    .update(conversations)
    .set({ ...patch, updatedAt: sql`now()` })
    .where(eq(conversations.id, c.id))
    .returning();
  return toConversation(row!);
}

/**
 * `POST /conversations/{id}/operator-messages`: a message from the operator, delivered to the customer
 * through the event `message.created` (sender `operator`) recorded in the same transaction.
 * @throws ApiError 404; 409 `invalid_state` for a closed conversation.
 */
export async function postOperatorMessage(
  db: Db,
  actor: IntegrationActor,
  id: string,
  input: OperatorMessage,
): Promise<Message> {
  const c = await findConversation(db, actor, id, true);
  if (c.status === "closed") throw new ApiError("invalid_state", "The conversation is closed.");
  const [m] = await db
    .insert(messages)
    .values({ ...ownerOf(actor), conversationId: c.id, sender: "operator", content: input.content })
    .returning();
  await db.update(conversations).set({ updatedAt: m!.createdAt }).where(eq(conversations.id, c.id));
  await recordEvent(db, {
    tenantId: actor.tenantId,
    type: "message.created",
    livemode: livemodeOf(actor),
    data: { conversation_id: c.id, message_id: m!.id, sender: "operator" },
  });
  return toMessage(m!, []);
}

/** A message of a visible conversation (idempotent replays). @throws ApiError 404. */
export async function getMessage(db: Db, actor: IntegrationActor, messageId: string): Promise<Message> {
  const [m] = await db
    .select()
    .from(messages)
    .where(and(ownedBy(messages, actor), eq(messages.id, messageId), eq(messages.internal, false)));
  if (!m) throw new ApiError("not_found", "Message was not found.");
  await findConversation(db, actor, m.conversationId);
  return toMessage(m, []);
}
