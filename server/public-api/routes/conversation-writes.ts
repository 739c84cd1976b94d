import { UuidParam } from "@/server/schemas/common";
import { CreateConversationSchema, OperatorMessageSchema } from "@/server/schemas/conversation-writes";
import { ConversationSchema, MessageSchema } from "@/server/schemas/conversations";
import { getConversation } from "@/server/services/conversations/conversations";
import {
  changeConversation,
  createConversation,
  getMessage,
  postOperatorMessage,
  type ConversationAction,
} from "@/server/services/conversations/conversation-writes";
import type { AnyRoute } from "../define-route";
import { defineRoute } from "../define-route";
import { postCustomerMessageRoute } from "./customer-messages";

// The spec's "Planned conversation write routes", released to tenants with the `conversation-writes`
// preview (server/schemas/previews.ts); every other caller gets the Planned 404.

const PREVIEW = "conversation-writes" as const;

/** `POST /conversations`: the conversation of an `external_customer_id` in the integration's `api` channel. */
export const createConversationRoute = defineRoute({
  operationId: "createConversation",
  summary: "Start (or find) the conversation of a customer (preview conversation-writes)",
  method: "POST",
  path: "/conversations",
  scope: "conversations:write",
  rate: "write",
  pii: true,
  preview: PREVIEW,
  body: CreateConversationSchema,
  responses: { 201: ConversationSchema },
  handler: async ({ db, actor, body }) => {
    const { conversation } = await createConversation(db, actor, body);
    return { status: 201, body: conversation, resource: { type: "conversation", id: conversation.id } };
  },
  replay: async ({ db, actor }, id, status) => ({ status, body: await getConversation(db, actor, id) }),
});

/** `POST /conversations/{id}/operator-messages`: a message from the operator (event `message.created`). */
export const operatorMessageRoute = defineRoute({
  operationId: "postOperatorMessage",
  summary: "Write a message as the operator (preview conversation-writes)",
  method: "POST",
  path: "/conversations/{id}/operator-messages",
  scope: "conversations:write",
  rate: "write",
  pii: true,
  preview: PREVIEW,
  params: UuidParam,
  body: OperatorMessageSchema,
  responses: { 201: MessageSchema },
  problems: ["invalid_state"],
  handler: async ({ db, actor, params, body }) => {
    const m = await postOperatorMessage(db, actor, params.id, body);
    return { status: 201, body: m, resource: { type: "message", id: m.id } };
  },
  replay: async ({ db, actor }, id, status) => ({ status, body: await getMessage(db, actor, id) }),
});

function actionRoute(action: ConversationAction, operationId: string, summary: string) {
  return defineRoute({
    operationId,
    summary: `${summary} (preview conversation-writes)`,
    method: "POST",
    path: `/conversations/{id}/${action}`,
    scope: "conversations:write",
    rate: "write",
    pii: true,
    preview: PREVIEW,
    params: UuidParam,
    responses: { 200: ConversationSchema },
    problems: action === "close" ? [] : ["invalid_state"],
    handler: async ({ db, actor, params }) => {
      const c = await changeConversation(db, actor, params.id, action);
      return { status: 200, body: c, resource: { type: "conversation", id: c.id } };
    },
    replay: async ({ db, actor }, id, status) => ({ status, body: await getConversation(db, actor, id) }),
  });
}

/** Routes of the `conversation-writes` preview, in the order of the spec. */
export const CONVERSATION_WRITE_ROUTES: AnyRoute[] = [
  createConversationRoute,
  postCustomerMessageRoute,
  operatorMessageRoute,
  actionRoute("takeover", "takeOverConversation", "Hand the conversation to an operator"),
  actionRoute("release", "releaseConversation", "Give the conversation back to the AI seller"),
  actionRoute("close", "closeConversation", "Close the conversation"),
];
