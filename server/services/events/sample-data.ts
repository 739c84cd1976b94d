import { formatMinor } from "@/server/lib/money";
import type { EventType } from "@/server/webhook-transport/event-catalog";
import type { IntegrationActor } from "../actor";
import { toOperation } from "../operations/operations";
import type { SampleSources } from "./sample-sources";

/**
 * The `data` of a sample event of each catalog type (spec "Events: Event types"), as `POST
 * /test-helpers/events` emits it: the shape the real event has (thin: ids and `type`, lead events add
 * `version`), its ids taken from the sandbox's own rows where the type names a resource, so that the
 * receiver can fetch what the event points at with its test key; a fresh id stands in where the sandbox
 * has no such row (then `GET` of it answers 404, as for a resource deleted since). Every result validates
 * against the type's schema in server/schemas/event-payloads.ts (tested for every type).
 */
type SampleBuilder = (src: SampleSources, actor: IntegrationActor) => Promise<Record<string, unknown>>;

const fresh = (): string => crypto.randomUUID();
const DAY_MS = 24 * 60 * 60 * 1000;

/** `conversation_id` of the newest conversation, for the `conversation.*` events. */
const conversationData: SampleBuilder = async (src) => ({ conversation_id: (await src.conversation())?.id ?? fresh() });

/** The ids every `lead.*` event carries: the lead and its version. */
async function leadIds(src: SampleSources): Promise<{ lead_id: string; version: number }> {
  const lead = await src.lead();
  return { lead_id: lead?.id ?? fresh(), version: lead?.version ?? 1 };
}

/** The article ids of `article.*` events (`type` names the resource, as the spec's table has it). */
async function articleIds(src: SampleSources, published = false): Promise<{ type: string; article_id: string }> {
  const article = (published && (await src.article(true))) || (await src.article());
  return { type: "article", article_id: article?.id ?? fresh() };
}

/** Sample `data` per catalog type. */
export const SAMPLE_DATA: Readonly<Record<EventType, SampleBuilder>> = {
  "conversation.created": conversationData,

  "message.created": async (src) => {
    const m = await src.message();
    if (!m)
      return { conversation_id: fresh(), message_id: fresh(), sender: "customer", ai_reply: { status: "queued" } };
    const data: Record<string, unknown> = { conversation_id: m.conversationId, message_id: m.id, sender: m.sender };
    // Only a customer message says what became of its AI reply (spec "Event types").
    if (m.sender === "customer") {
      const status = m.aiReplyStatus ?? "queued";
      data.ai_reply = status === "skipped" && m.aiReplyReason ? { status, reason: m.aiReplyReason } : { status };
    }
    return data;
  },

  "conversation.handoff_requested": async (src, actor) => {
    const lead = await src.lead(true);
    if (lead?.conversationId) return { conversation_id: lead.conversationId, lead_id: lead.id };
    return conversationData(src, actor);
  },

  "conversation.summary_ready": conversationData,

  "lead.created": async (src) => {
    const lead = await src.lead();
    return {
      lead_id: lead?.id ?? fresh(),
      contact_id: lead?.contactId ?? (await src.contact())?.id ?? fresh(),
      conversation_id: lead ? lead.conversationId : null,
      version: lead?.version ?? 1,
    };
  },

  "lead.updated": async (src) => ({ ...(await leadIds(src)), changed_fields: ["status", "next_action"] }),

  "lead.scored": async (src) => {
    const lead = await src.lead();
    const score = (lead?.score ?? {}) as { score?: unknown; grade?: unknown; reason?: unknown };
    return {
      ...(await leadIds(src)),
      score: typeof score.score === "number" ? score.score : 72,
      level: typeof score.grade === "string" ? score.grade : "B",
      reason: typeof score.reason === "string" ? score.reason : "Asked for the price and the delivery date.",
      flags: ["buy_intent"],
    };
  },

  "lead.status_changed": async (src) => {
    const lead = await src.lead();
    const to = lead && lead.status !== "new" ? lead.status : "qualified";
    return { ...(await leadIds(src)), from: "new", to };
  },

  "lead.action_requested": async (src) => {
    const m = await src.message();
    return {
      ...(await leadIds(src)),
      action: "send_follow_up",
      reason: "The customer asked for a quote two days ago and has had no answer.",
      evidence: m ? [{ type: "message", id: m.id }] : [],
    };
  },

  "task.created": async (src) => ({ task_id: fresh(), lead_id: (await src.lead())?.id ?? fresh() }),

  "task.completed": async (src) => ({ task_id: fresh(), lead_id: (await src.lead())?.id ?? fresh() }),

  "contact.merged": async (src) => ({
    contact_id: (await src.contact())?.id ?? fresh(),
    merged_contact_ids: [fresh()],
  }),

  "crm.mode_changed": async (src) => ({ crm_mode: (await src.tenant())?.crmMode ?? "internal" }),

  "article.ready": async (src) => articleIds(src),

  "article.published": async (src) => {
    const ids = await articleIds(src, true);
    const article = (await src.article(true)) ?? (await src.article());
    const domain = (await src.tenant())?.mainDomain ?? "shop.example.com";
    const url =
      article?.publication?.published_url ?? `https://${domain}/blog/${article?.slug ?? ids.article_id.slice(0, 8)}`;
    return { ...ids, published_url: url };
  },

  "article.generation.failed": async (src) => {
    const op = await src.operation("article.generation", "failed");
    return {
      type: "generation_job",
      generation_job_id: op?.resourceId ?? fresh(),
      operation_id: op?.id ?? fresh(),
    };
  },

  "strategist.report.ready": async (src) => ({
    type: "strategist_report",
    report_id: (await src.report())?.id ?? fresh(),
  }),

  "strategist.turn.completed": async (src) => {
    const op = await src.operation("strategist.turn");
    return {
      type: "strategist_session",
      session_id: (await src.session())?.id ?? op?.resourceId ?? fresh(),
      turn_id: fresh(),
      operation_id: op?.id ?? fresh(),
      status: "succeeded",
    };
  },

  "operation.completed": async (src) => {
    const op = await src.operation();
    if (op) return toOperation(op) as unknown as Record<string, unknown>;
    const m = await src.message();
    const at = new Date();
    return {
      id: fresh(),
      type: "conversation.ai_reply",
      status: "succeeded",
      created_at: new Date(at.getTime() - 2_000).toISOString(),
      completed_at: at.toISOString(),
      resource: { type: "message", id: m?.id ?? fresh() },
      usage: { cost: { amount: formatMinor(0n), currency: "RUB" }, model: "catalog-1" },
    };
  },

  "api_key.expiring": async (src, actor) => {
    const key = await src.key();
    const expiresAt = key?.expiresAt ?? new Date(Date.now() + 7 * DAY_MS);
    return {
      key_id: key?.keyId ?? actor.keyId,
      integration_id: actor.integrationId,
      expires_at: expiresAt.toISOString(),
      days_left: Math.max(0, Math.ceil((expiresAt.getTime() - Date.now()) / DAY_MS)),
    };
  },

  "webhook.test": async (src) => ({ webhook_id: (await src.subscription())?.id ?? fresh() }),
};
