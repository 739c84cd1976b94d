import { getDb } from "@/db/client";
import { UuidParam, waitQuery } from "@/server/schemas/common";
import { StrategistActionSchema, StrategistTopicSchema } from "@/server/schemas/strategist";
import {
  CreateTurnSchema,
  StrategistSessionSchema,
  StrategistTurnResultSchema,
} from "@/server/schemas/strategist-writes";
import type { IntegrationActor } from "@/server/services/actor";
import { getAction } from "@/server/services/strategist/actions";
import { createSession, getSession, turnAnswer } from "@/server/services/strategist/chat-sessions";
import { approveTopic, cancelAction, confirmAction, rejectTopic } from "@/server/services/strategist/decisions";
import { getTopic } from "@/server/services/strategist/topics";
import { createTurn } from "@/server/services/strategist/turns";
import type { AnyRoute, Reply } from "../define-route";
import { created, defineRoute, ok } from "../define-route";
import { answerWhenSettled } from "../settle-wait";

// Strategist decisions and chat (issue 73), released to tenants with the `strategist` preview
// (server/schemas/previews.ts); every other caller gets the Planned 404.

const PREVIEW = "strategist" as const;

/** A repeat of a decision under its Idempotency-Key answers the action as it is now. */
const replayAction = async (
  { db, actor }: { db: Parameters<typeof getAction>[0]; actor: IntegrationActor },
  id: string,
) => ok(await getAction(db, actor, id));
/** A repeat of a topic decision answers the topic as it is now. */
const replayTopic = async (
  { db, actor }: { db: Parameters<typeof getTopic>[0]; actor: IntegrationActor },
  id: string,
) => ok(await getTopic(db, actor, id));

/** `POST /strategist/actions/{id}/confirm`: executes a proposed action (its topic is created). */
export const confirmStrategistActionRoute = defineRoute({
  operationId: "confirmStrategistAction",
  summary: "Confirm a proposed action (preview strategist)",
  description:
    "A `proposed` action is confirmed and executed at once: a `propose_topic` creates its topic (`proposed`, or `duplicate` when an open topic has the same title) and answers `executed` with `result.topic_id`, or `failed` with `error` when it cannot. Any other status (decided already, or `expired` 7 days after creation) is 409 `invalid_state`. Free.",
  method: "POST",
  path: "/strategist/actions/{id}/confirm",
  scope: "strategist:write",
  rate: "write",
  preview: PREVIEW,
  params: UuidParam,
  responses: { 200: StrategistActionSchema },
  problems: ["invalid_state"],
  handler: async ({ db, actor, params }) => ({
    ...ok(await confirmAction(db, actor, params.id)),
    resource: { type: "strategist_action", id: params.id },
  }),
  replay: replayAction,
});

/** `POST /strategist/actions/{id}/cancel`. */
export const cancelStrategistActionRoute = defineRoute({
  operationId: "cancelStrategistAction",
  summary: "Cancel a proposed action (preview strategist)",
  description: "A `proposed` action becomes `cancelled`; any other status is 409 `invalid_state`. Free.",
  method: "POST",
  path: "/strategist/actions/{id}/cancel",
  scope: "strategist:write",
  rate: "write",
  preview: PREVIEW,
  params: UuidParam,
  responses: { 200: StrategistActionSchema },
  problems: ["invalid_state"],
  handler: async ({ db, actor, params }) => ({
    ...ok(await cancelAction(db, actor, params.id)),
    resource: { type: "strategist_action", id: params.id },
  }),
  replay: replayAction,
});

/** `POST /strategist/topics/{id}/approve`. */
export const approveStrategistTopicRoute = defineRoute({
  operationId: "approveStrategistTopic",
  summary: "Approve a proposed topic (preview strategist)",
  description:
    "A `proposed` topic (not past `expires_at`) becomes `approved` with `decided_at`; an article can then be generated from it (preview article-generation). Any other status is 409 `invalid_state`. Free.",
  method: "POST",
  path: "/strategist/topics/{id}/approve",
  scope: "strategist:write",
  rate: "write",
  preview: PREVIEW,
  params: UuidParam,
  responses: { 200: StrategistTopicSchema },
  problems: ["invalid_state"],
  handler: async ({ db, actor, params }) => ({
    ...ok(await approveTopic(db, actor, params.id)),
    resource: { type: "strategist_topic", id: params.id },
  }),
  replay: replayTopic,
});

/** `POST /strategist/topics/{id}/reject`. */
export const rejectStrategistTopicRoute = defineRoute({
  operationId: "rejectStrategistTopic",
  summary: "Reject a topic (preview strategist)",
  description:
    "A `proposed` (not expired) or `approved` topic becomes `rejected` with `decided_at`; any other status is 409 `invalid_state`. Free.",
  method: "POST",
  path: "/strategist/topics/{id}/reject",
  scope: "strategist:write",
  rate: "write",
  preview: PREVIEW,
  params: UuidParam,
  responses: { 200: StrategistTopicSchema },
  problems: ["invalid_state"],
  handler: async ({ db, actor, params }) => ({
    ...ok(await rejectTopic(db, actor, params.id)),
    resource: { type: "strategist_topic", id: params.id },
  }),
  replay: replayTopic,
});

/** `POST /strategist/chat/sessions`: a new chat session of this integration (free). */
export const createStrategistSessionRoute = defineRoute({
  operationId: "createStrategistSession",
  summary: "Open a chat session with the strategist (preview strategist)",
  description:
    "Free. Send turns to it with `POST /strategist/chat/sessions/{id}/turns` (paid). Sessions are visible only to the integration that opened them.",
  method: "POST",
  path: "/strategist/chat/sessions",
  scope: "strategist:chat",
  rate: "write",
  preview: PREVIEW,
  responses: { 201: StrategistSessionSchema },
  handler: async ({ db, actor }) => {
    const s = await createSession(db, actor);
    return created(s, { type: "strategist_session", id: s.id });
  },
  replay: async ({ db, actor }, id) => created(await getSession(db, actor, id)),
});

/** `GET /strategist/chat/sessions/{id}`: the session with its turns, oldest first. */
export const getStrategistSessionRoute = defineRoute({
  operationId: "getStrategistSession",
  summary: "Read a chat session and its turns (preview strategist)",
  method: "GET",
  path: "/strategist/chat/sessions/{id}",
  scope: ["strategist:chat", "strategist:read"],
  rate: "read",
  preview: PREVIEW,
  params: UuidParam,
  responses: { 200: StrategistSessionSchema },
  handler: async ({ db, actor, params }) => ok(await getSession(db, actor, params.id)),
});

/**
 * Waits up to `seconds` for a turn (query `wait`), outside any transaction: 200 with the finished turn and
 * operation as soon as it succeeded or failed, else 202 with them as they are when time is up.
 */
async function waitForTurn(actor: IntegrationActor, turnId: string, seconds: number): Promise<Reply> {
  const db = await getDb();
  return answerWhenSettled(async () => {
    const a = await turnAnswer(db, actor, turnId);
    return { ...a, operationId: a.body.operation.id };
  }, seconds);
}

/** `POST /strategist/chat/sessions/{id}/turns`: a paid turn; 202 with its operation, 200 once finished within `wait`. */
export const createStrategistTurnRoute = defineRoute({
  operationId: "createStrategistTurn",
  summary: "Ask the strategist (paid; preview strategist)",
  description:
    "Paid: the strategist's tokens are priced as the AI seller's (the hold is the most a turn can cost; the charge is what was used, only for a finished turn; a failed turn releases its hold). The strategist answers from your own figures (leads, conversations, articles and their traffic, dashboards, topics) and may propose topics as `propose_topic` actions (confirm one with `POST /strategist/actions/{id}/confirm`). Answers 202 with the turn and its operation (type `strategist.turn`, resource `strategist_session`), or 200 with both finished when the turn finishes within `wait` seconds (0-20). One turn at a time per session: another while one runs is 409 `invalid_state` with `Retry-After`. Events `strategist.turn.completed` and `operation.completed`. A repeat with the same Idempotency-Key answers the same turn and charges nothing again.",
  method: "POST",
  path: "/strategist/chat/sessions/{id}/turns",
  scope: "strategist:chat",
  rate: "paid",
  idempotency: "required",
  preview: PREVIEW,
  params: UuidParam,
  query: waitQuery("the strategist's reply"),
  body: CreateTurnSchema,
  responses: { 200: StrategistTurnResultSchema, 202: StrategistTurnResultSchema },
  problems: ["invalid_state", "insufficient_funds", "spend_limit_reached", "upstream_unavailable"],
  handler: async ({ db, actor, caller, params, query, body }) => {
    const t = await createTurn(db, actor, params.id, body, { paidConcurrency: caller.tenantLimits.paid_concurrency });
    return {
      status: 202,
      body: t,
      resource: { type: "strategist_turn", id: t.turn.id },
      settle: query.wait > 0 ? () => waitForTurn(actor, t.turn.id, query.wait) : undefined,
    };
  },
  replay: async ({ actor, query }, id) => waitForTurn(actor, id, query.wait),
});

/** Routes of the `strategist` preview. */
export const STRATEGIST_WRITE_ROUTES: AnyRoute[] = [
  confirmStrategistActionRoute,
  cancelStrategistActionRoute,
  approveStrategistTopicRoute,
  rejectStrategistTopicRoute,
  createStrategistSessionRoute,
  getStrategistSessionRoute,
  createStrategistTurnRoute,
];
