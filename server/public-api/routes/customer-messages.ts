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
import { untilSettled } from "@/server/services/operations/operation-settled";
import { defineRoute, type Reply } from "../define-route";
import { applyRateLimit } from "../rate-limit";

/**
 * How often a waiting request looks at its operation, ms: the safety net. A finish wakes its waiters at
 * once, in this process directly and in the others by NOTIFY (operation-settled.ts); a look finds what a
 * lost notification or a finish between the read and the wait did not announce.
 */
const POLL_MS = 250;
let pollMs = POLL_MS;

/** Sets (or with `undefined` restores) how often a waiting request looks at its operation; tests only. */
export function setReplyPollMs(ms: number | undefined): void {
  pollMs = ms ?? POLL_MS;
}

/**
 * Waits up to `seconds` for the AI reply of a customer message (query `wait`), outside any transaction:
 * the answer as soon as the operation is finished (200), else the queued one (202) when time is up.
 */
async function waitForReply(actor: IntegrationActor, messageId: string, seconds: number): Promise<Reply> {
  const db = await getDb();
  const until = Date.now() + seconds * 1000;
  for (;;) {
    const a = await customerMessageAnswer(db, actor, messageId);
    if (a.status !== 202 || Date.now() >= until) return { status: a.status, body: a.body };
    // A 202 always carries its operation. A finish committed between the read above and this call is
    // not announced to us: the next look, at most pollMs later, finds it.
    await untilSettled(a.body.operation!.id, Math.min(pollMs, Math.max(1, until - Date.now())));
  }
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
