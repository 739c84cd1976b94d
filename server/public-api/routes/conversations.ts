import { z } from "zod";
import * as conversations from "@/server/services/conversations/conversations";
import * as messages from "@/server/services/conversations/messages";
import { getSentCards, sendCards } from "@/server/services/conversations/send-cards";
import { recordDisclosure } from "@/server/services/disclosures/disclosures";
import { boolParam, cursorParam, instantParam, limitParam, pageOf, UuidParam } from "@/server/schemas/common";
import { ConversationSchema, MessageSchema, SendCardsSchema, SentCardsSchema } from "@/server/schemas/conversations";
import { decodeCursor, encodeCursor, type CursorBinding } from "../cursor";
import type { AnyRoute } from "../define-route";
import { defineRoute, ok } from "../define-route";

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
  include_deleted: boolParam.optional().meta({ description: "accepted, adds nothing (conversations are not soft-deleted)" }),
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
  query: ListQuery,
  responses: { 200: pageOf(ConversationSchema) },
  handler: async ({ db, caller, query, requestId }) => {
    const filters = { channel: query.channel, status: query.status, mode: query.mode, updated_after: query.updated_after?.toISOString() };
    const binding: CursorBinding = { tenantId: caller.tenantId, keyMode: caller.keyMode, route: "listConversations", filters };
    const after = query.cursor ? (decodeCursor(query.cursor, binding) as conversations.ConversationPosition) : undefined;
    const page = await conversations.listConversations(db, caller, {
      limit: query.limit,
      channel: query.channel,
      status: query.status,
      mode: query.mode,
      updatedAfter: query.updated_after,
      after,
    });
    await recordDisclosure(db, caller, { route: "GET /conversations", resourceType: "conversation", resourceIds: page.conversations.map((c) => c.id), requestId });
    return ok({ data: page.conversations, next_cursor: page.next ? encodeCursor(binding, page.next) : null });
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
  params: UuidParam,
  responses: { 200: ConversationSchema },
  handler: async ({ db, caller, params, requestId }) => {
    const conversation = await conversations.getConversation(db, caller, params.id);
    await recordDisclosure(db, caller, { route: "GET /conversations/{id}", resourceType: "conversation", resourceIds: [conversation.id], requestId });
    return ok(conversation);
  },
});

const MessagesQuery = z.strictObject({
  limit: limitParam(25),
  cursor: cursorParam.optional(),
  include_deleted: boolParam.default(false).meta({ description: "true returns deleted messages as tombstones (`deleted: true`, no content, no attachments)" }),
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
  params: UuidParam,
  query: MessagesQuery,
  responses: { 200: pageOf(MessageSchema) },
  handler: async ({ db, caller, params, query, requestId }) => {
    // The conversation is part of the walk: a cursor of one conversation does not page another.
    const binding: CursorBinding = {
      tenantId: caller.tenantId,
      keyMode: caller.keyMode,
      route: "listConversationMessages",
      filters: { conversation_id: params.id, include_deleted: query.include_deleted },
    };
    const after = query.cursor ? (decodeCursor(query.cursor, binding) as messages.MessagePosition) : undefined;
    const page = await messages.listMessages(db, caller, params.id, { limit: query.limit, includeDeleted: query.include_deleted, after });
    await recordDisclosure(db, caller, { route: "GET /conversations/{id}/messages", resourceType: "message", resourceIds: page.messages.map((m) => m.id), requestId });
    return ok({ data: page.messages, next_cursor: page.next ? encodeCursor(binding, page.next) : null });
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
  handler: async ({ db, caller, params, body }) => {
    const sent = await sendCards(db, caller, params.id, body);
    return { status: 201, body: sent, resource: { type: "message", id: sent.message_id } };
  },
  replay: async ({ db, caller }, id, status) => ({ status, body: await getSentCards(db, caller, id) }),
});

/** Routes of conversations and messages, in the order of the spec. */
export const CONVERSATION_ROUTES: AnyRoute[] = [listConversationsRoute, getConversationRoute, listMessagesRoute, sendCardsRoute];
