import { z } from "zod";
import { Timestamp } from "./common";
import { LeadContactSchema } from "./leads";

/**
 * `data` of each event type (spec "Events: Event types"). Events are thin: resource ids (lead events add
 * `version`); `include_pii` may add personal data to conversation, lead and contact events, and the
 * spec leaves several payloads "not shown", so every payload is an open object: receivers must ignore
 * members they do not know.
 */
const thin = <S extends z.core.$ZodLooseShape>(shape: S, description: string) =>
  z.looseObject(shape).meta({ description });

const AiReply = z.looseObject({
  status: z.string().meta({ description: "outcome of the AI reply, e.g. queued, skipped; the set is open" }),
  reason: z.string().optional().meta({ description: "why the AI did not answer (for skipped)" }),
});

/** What `include_pii: true` adds (server/services/webhooks/personal-data.ts). */
const Pii = {
  contact: LeadContactSchema.optional().meta({
    description: "with include_pii: the contact (personal data), recorded in the disclosure journal",
  }),
};

const LeadIds = {
  lead_id: z.string(),
  version: z.number().int().meta({ description: "lead version after the change" }),
  ...Pii,
};

/** The Operation envelope as carried by `operation.completed` (spec "Operation"). */
const OperationData = z.looseObject({
  id: z.string(),
  type: z.string().meta({ description: "conversation.ai_reply, article.generation, strategist.turn" }),
  status: z.enum(["succeeded", "failed", "canceled"]),
  created_at: Timestamp,
  completed_at: Timestamp.optional(),
  resource: z.object({ type: z.string(), id: z.string() }).optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});

/** Event type → zod shape of its `data`; keys must cover the event catalog (checked by the OpenAPI tests). */
export const EVENT_DATA: Record<string, z.ZodType> = {
  "conversation.created": thin({ conversation_id: z.string(), ...Pii }, "a conversation was created"),
  "message.created": thin(
    {
      conversation_id: z.string(),
      message_id: z.string(),
      sender: z.string().meta({ description: "customer, ai, operator, system" }),
      ai_reply: AiReply.optional().meta({ description: "only for a customer message" }),
    },
    "a message appeared (customer, AI or operator), also after sending cards; never carries message text",
  ),
  "conversation.handoff_requested": thin(
    {
      conversation_id: z.string(),
      lead_id: z.string().optional().meta({ description: "when the conversation has a lead" }),
      ...Pii,
    },
    "handoff to an operator was requested (including daily_limit and ai_unavailable_handoff)",
  ),
  "conversation.summary_ready": thin({ conversation_id: z.string(), ...Pii }, "the conversation summary is ready"),
  "lead.created": thin(
    {
      lead_id: z.string(),
      contact_id: z.string().nullable().meta({ description: "null when the lead was created without a contact" }),
      conversation_id: z.string().nullable(),
      version: LeadIds.version,
      ...Pii,
    },
    "a lead was created",
  ),
  "lead.updated": thin(
    { ...LeadIds, changed_fields: z.array(z.string()).optional().meta({ description: "names of the changed fields" }) },
    "lead fields changed: the changed fields and the version",
  ),
  "lead.scored": thin(
    {
      ...LeadIds,
      score: z.number().optional(),
      level: z.string().optional(),
      reason: z.string().optional(),
      flags: z
        .array(z.string())
        .optional()
        .meta({ description: "names of the true flags: buy_intent, support, supplier" }),
    },
    "the lead was scored",
  ),
  "lead.status_changed": thin(
    { ...LeadIds, from: z.string().optional(), to: z.string().optional() },
    "the lead status changed: from and to",
  ),
  "lead.action_requested": thin(LeadIds, "the agent asks an external CRM to act, with reason and evidence"),
  "task.created": thin({}, "a task was created"),
  "task.completed": thin({}, "a task was closed"),
  "contact.merged": thin(
    { contact_id: z.string().optional().meta({ description: "the contact that remains" }), ...Pii },
    "contacts were merged",
  ),
  "crm.mode_changed": thin(
    { crm_mode: z.string().optional().meta({ description: "internal or external" }), previous: z.string().optional() },
    "the tenant switched its CRM mode",
  ),
  "article.ready": thin({ type: z.string(), article_id: z.string() }, "an article was generated and is ready"),
  "article.published": thin(
    { type: z.string(), article_id: z.string(), published_url: z.string() },
    "publication was confirmed",
  ),
  "article.generation.failed": thin({}, "article generation failed"),
  "strategist.report.ready": thin(
    { type: z.string().optional(), report_id: z.string().optional() },
    "a new strategist report: report_id (GET /strategist/reports/{id})",
  ),
  "strategist.turn.completed": thin(
    {
      type: z.string().optional(),
      session_id: z.string().optional(),
      turn_id: z.string().optional(),
      operation_id: z.string().optional(),
      status: z.string().optional().meta({ description: "succeeded or failed" }),
    },
    "a strategist conversation turn finished (preview strategist: GET /strategist/chat/sessions/{session_id})",
  ),
  "operation.completed": OperationData.meta({
    description: "an asynchronous operation finished: the Operation envelope",
  }),
  "api_key.expiring": thin({}, "a key expires soon; sent 30 and 7 days before expiry"),
  "webhook.test": thin({}, "a test delivery requested with POST /webhooks/{id}/test; livemode is false"),
};

/** The body of every delivery (spec "Events: Delivery format"), with `data` of the given shape. */
export function eventEnvelope(type: string, data: z.ZodType) {
  return z.object({
    id: z.string().meta({ description: "event id; equals the Service-Event-Id header, identical in all retries" }),
    type: z.literal(type).meta({ description: "equals the Service-Event-Type header" }),
    api_version: z.string().meta({ description: "events format version", example: "2026-10-01" }),
    created_at: Timestamp,
    livemode: z.boolean().meta({ description: "false for webhook.test and sandbox data" }),
    data,
  });
}
