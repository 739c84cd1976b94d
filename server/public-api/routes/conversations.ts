import { z } from "zod";
import * as conversations from "@/server/services/conversations/conversations";
import * as messages from "@/server/services/conversations/messages";
import { getSentCards, sendCards } from "@/server/services/conversations/send-cards";
import { boolParam, cursorParam, instantParam, limitParam, pageOf, UuidParam } from "@/server/schemas/common";
import { ConversationSchema, MessageSchema, SendCardsSchema, SentCardsSchema } from "@/server/schemas/conversations";
import type { AnyRoute } from "../define-route";
import { defineRoute, ok, page } from "../define-route";
import { InstantIdPosition } from "../positions";

// Conversation and message answers carry personal data: never cached by anything between us and the
// integrator (spec "Common request rules"), and each answer is written to the disclosure journal first.
const PRIVATE = "private, no-store";

const ListQuery = z.strictObject({
  limit: limitParam(25),
  cursor: cursorParam.optional(),
  channel: z.string().min(1).max(64).optional(),
  status: z.string().min(1).max(64).optional(),
  mode: z.enum(["ai", "operator"], { message: "must be ai or operator" }).optional(),
  updated_after: instantParam.optional(),
  include_deleted: boolParam
    .optional()
    .meta({ description: "accepted, adds nothing (conversations are not soft-deleted)" }),
});

/** `GET /conversations`: ascending by `(updated_at, id)`; filters channel, status, mode, `updated_after` (strict). */
export const listConversationsRoute = defineRoute({
  operationId: "listConversations",
  summary: "List conversations",
  method: "GET",
  path: "/conversations",
  scope: "conversations:read",
  rate: "read",
  pii: true,
  cacheControl: PRIVATE,
  discloses: "conversation",
  query: ListQuery,
  list: { position: InstantIdPosition },
  responses: { 200: pageOf(ConversationSchema) },
  handler: async ({ db, actor, query, after }) => {
    const p = await conversations.listConversations(db, actor, {
      limit: query.limit,
      channel: query.channel,
      status: query.status,
      mode: query.mode,
      updatedAfter: query.updated_after,
      after,
    });
    return page(p.conversations, p.next);
  },
});

/** `GET /conversations/{id}`: a missing, foreign, mailbox, cabinet or non-uuid id answers 404. */
export const getConversationRoute = defineRoute({
  operationId: "getConversation",
  summary: "Read a conversation",
  method: "GET",
  path: "/conversations/{id}",
  scope: "conversations:read",
  rate: "read",
  pii: true,
  cacheControl: PRIVATE,
  discloses: "conversation",
  params: UuidParam,
  responses: { 200: ConversationSchema },
  handler: async ({ db, actor, params }) => ok(await conversations.getConversation(db, actor, params.id)),
});

const MessagesQuery = z.strictObject({
  limit: limitParam(25),
  cursor: cursorParam.optional(),
  include_deleted: boolParam
    .default(false)
    .meta({ description: "true returns deleted messages as tombstones (`deleted: true`, no content, no attachments)" }),
});

/** `GET /conversations/{id}/messages`: oldest first by `(created_at, id)`; tombstones with `include_deleted=true`. */
export const listMessagesRoute = defineRoute({
  operationId: "listConversationMessages",
  summary: "List the messages of a conversation",
  method: "GET",
  path: "/conversations/{id}/messages",
  scope: "conversations:read",
  rate: "read",
  pii: true,
  cacheControl: PRIVATE,
  discloses: "message",
  params: UuidParam,
  query: MessagesQuery,
  // The conversation is part of the walk (a path parameter): a cursor of one conversation does not page another.
  list: { position: InstantIdPosition },
  responses: { 200: pageOf(MessageSchema) },
  handler: async ({ db, actor, params, query, after }) => {
    const p = await messages.listMessages(db, actor, params.id, {
      limit: query.limit,
      includeDeleted: query.include_deleted,
      after,
    });
    return page(p.messages, p.next);
  },
});

/** `POST /conversations/{id}/cards`: `Idempotency-Key` required; a repeat answers the same message. */
export const sendCardsRoute = defineRoute({
  operationId: "sendConversationCards",
  summary: "Send product cards into a conversation",
  method: "POST",
  path: "/conversations/{id}/cards",
  scope: "conversations:write",
  rate: "write",
  idempotency: "required",
  pii: true,
  params: UuidParam,
  body: SendCardsSchema,
  responses: { 201: SentCardsSchema },
  handler: async ({ db, actor, params, body }) => {
    const sent = await sendCards(db, actor, params.id, body);
    return { status: 201, body: sent, resource: { type: "message", id: sent.message_id } };
  },
  replay: async ({ db, actor }, id, status) => ({ status, body: await getSentCards(db, actor, id) }),
});

/** Routes of conversations and messages, in the order of the spec. */
export const CONVERSATION_ROUTES: AnyRoute[] = [
  listConversationsRoute,
  getConversationRoute,
  listMessagesRoute,
  sendCardsRoute,
];
