import { getDb } from "@/db/client";
import { UuidParam } from "@/server/schemas/common";
import { CustomerMessageResultSchema, CustomerMessageSchema, WaitQuery } from "@/server/schemas/conversation-writes";
import { languageModelFor } from "@/server/services/ai-seller/current-model";
import type { IntegrationActor } from "@/server/services/actor";
import {
  aiWouldReply,
  customerMessageAnswer,
  postCustomerMessage,
} from "@/server/services/conversations/customer-message";
import { defineRoute, type Reply } from "../define-route";
import { applyRateLimit } from "../rate-limit";
import { answerWhenSettled } from "../settle-wait";

/**
 * Waits up to `seconds` for the AI reply of a customer message (query `wait`), outside any transaction:
 * the answer as soon as the operation is finished (200), else the queued one (202) when time is up.
 */
async function waitForReply(actor: IntegrationActor, messageId: string, seconds: number): Promise<Reply> {
  const db = await getDb();
  return answerWhenSettled(async () => {
    const a = await customerMessageAnswer(db, actor, messageId);
    return { ...a, operationId: a.body.operation?.id ?? null };
  }, seconds);
}

/**
 * `POST /conversations/{id}/messages` (preview `conversation-writes`): the customer's message and the AI
 * seller's reply as a paid operation. `Idempotency-Key` required: a repeat returns the same message and
 * operation and charges nothing again. `wait` (0-20 s) waits for the reply after the commit.
 */
export const postCustomerMessageRoute = defineRoute({
  operationId: "postCustomerMessage",
  summary: "Write a customer message; the AI seller answers (paid; preview conversation-writes)",
  method: "POST",
  path: "/conversations/{id}/messages",
  scope: "conversations:write",
  rate: "write",
  idempotency: "required",
  pii: true,
  preview: "conversation-writes",
  params: UuidParam,
  query: WaitQuery,
  body: CustomerMessageSchema,
  responses: { 200: CustomerMessageResultSchema, 202: CustomerMessageResultSchema },
  problems: [
    "insufficient_funds",
    "spend_limit_reached",
    "upstream_unavailable",
    "rate_limited",
    "service_unavailable",
  ],
  // A message the AI will answer is a paid request: it counts against the paid rate (30 a minute), before
  // the transaction, a test key's too (issue 76 item 3); skipped messages count as writes only.
  before: async ({ db, actor, caller, params, body }) => {
    if (await aiWouldReply(db, actor, params.id, body.content)) await applyRateLimit(caller, "paid", {});
  },
  handler: async ({ db, actor, caller, params, query, body }) => {
    const id = await postCustomerMessage(db, actor, params.id, body, {
      // A test key's reply, in the sandbox or not, runs the offline model (issue 76 item 3; issue 69), so
      // it is priced as that one.
      model: languageModelFor(actor.keyMode === "live" && actor.livemode).model,
      paidConcurrency: caller.tenantLimits.paid_concurrency,
    });
    const first = await customerMessageAnswer(db, actor, id);
    return {
      status: first.status,
      body: first.body,
      resource: { type: "message", id },
      settle: first.status === 202 && query.wait > 0 ? () => waitForReply(actor, id, query.wait) : undefined,
    };
  },
  replay: async ({ actor, query }, id) => waitForReply(actor, id, query.wait),
});
