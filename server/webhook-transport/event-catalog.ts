import type { Scope } from "@/server/schemas/scopes";

/**
 * Every event type of the spec's table (spec "Events: Event types"), in the order of the table.
 * The family of a type is the text before its first dot (`article.generation.failed` → `article`).
 */
export const EVENT_TYPES = [
  "conversation.created",
  "message.created",
  "conversation.handoff_requested",
  "conversation.summary_ready",
  "lead.created",
  "lead.updated",
  "lead.scored",
  "lead.status_changed",
  "lead.action_requested",
  "task.created",
  "task.completed",
  "contact.merged",
  "crm.mode_changed",
  "article.ready",
  "article.published",
  "article.generation.failed",
  "strategist.report.ready",
  "strategist.turn.completed",
  "operation.completed",
  "api_key.expiring",
  "webhook.test",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

const TYPE_SET: ReadonlySet<string> = new Set(EVENT_TYPES);

/** The family of an event type or of a `<family>.*` pattern: the text before the first dot. */
export function familyOf(typeOrPattern: string): string {
  const dot = typeOrPattern.indexOf(".");
  return dot < 0 ? typeOrPattern : typeOrPattern.slice(0, dot);
}

/** Families that have at least one type in the catalog (`conversation`, `lead`, ..., `webhook`). */
export const EVENT_FAMILIES: ReadonlySet<string> = new Set(EVENT_TYPES.map(familyOf));

/** True for a known exact type. */
export function isEventType(value: string): value is EventType {
  return TYPE_SET.has(value);
}

/**
 * True for what a subscription's `events` may hold (spec "Endpoints: Webhooks", create rules): an exact
 * type of the catalog, or `<family>.*` where the family has at least one type. `*` alone, `lead.x.*`
 * and `unknown.*` are refused.
 */
export function isEventPattern(value: string): boolean {
  if (isEventType(value)) return true;
  if (!value.endsWith(".*")) return false;
  const family = value.slice(0, -2);
  return !family.includes(".") && EVENT_FAMILIES.has(family);
}

/** The pattern that covers a whole family, e.g. `lead.*`. */
export function familyPattern(type: string): string {
  return `${familyOf(type)}.*`;
}

/** True when one of the subscription's `patterns` selects the event `type` (exact or by family). */
export function matchesEvent(patterns: readonly string[], type: string): boolean {
  const family = familyPattern(type);
  return patterns.some((p) => p === type || p === family);
}

/**
 * Families whose events may carry personal data, each with the read scopes of which the integration
 * must hold at least one for `include_pii` (spec "Events": "leads:read and/or conversations:read
 * matching the chosen events"). `contact.*` is about CRM contacts, which are reached both through leads
 * and through conversations, so either read scope is accepted for it (our interpretation: the spec does
 * not name the scope of contacts).
 */
export const PII_FAMILIES: Readonly<Record<string, readonly Scope[]>> = {
  lead: ["leads:read"],
  conversation: ["conversations:read"],
  contact: ["leads:read", "conversations:read"],
};

/**
 * Types that `include_pii: true` enriches with personal data (spec "Events", after the table):
 * `conversation.created`, `conversation.handoff_requested`, `conversation.summary_ready`, every
 * `lead.*` type (its contact) and `contact.merged`. `message.created`, `task.*`, `crm.mode_changed`
 * and everything else stay thin.
 */
export function isPiiEnrichedType(type: string): boolean {
  return (
    type === "conversation.created" ||
    type === "conversation.handoff_requested" ||
    type === "conversation.summary_ready" ||
    type === "contact.merged" ||
    familyOf(type) === "lead"
  );
}

/** True when every pattern belongs to a family allowed with `include_pii` (`lead`, `contact`, `conversation`). */
export function allowsIncludePii(patterns: readonly string[]): boolean {
  return patterns.length > 0 && patterns.every((p) => Object.hasOwn(PII_FAMILIES, familyOf(p)));
}

/**
 * For `include_pii`: the scope groups the integration must satisfy, one group per family used by
 * `patterns` (holding any scope of a group satisfies it). Families without personal data add nothing.
 */
export function piiScopeGroups(patterns: readonly string[]): (readonly Scope[])[] {
  const families = [...new Set(patterns.map(familyOf))].filter((f) => Object.hasOwn(PII_FAMILIES, f)).sort();
  return families.map((f) => PII_FAMILIES[f]!);
}

/**
 * Families whose events are about personal-data resources, each with the read scopes of which the
 * integration must hold at least one to receive them at all, thin or not (spec "Events" and the scope table
 * of "Authentication" 6): an event's ids point at a conversation, a message of one, a lead or a contact,
 * and its type and timing already tell something about a person. `message.created` carries no text but
 * names a conversation and who wrote in it, so it needs `conversations:read` like `conversation.*`.
 * `task.*`, `crm.mode_changed`, `article.*` and the rest need no read scope.
 */
export const EVENT_READ_SCOPES: Readonly<Record<string, readonly Scope[]>> = {
  ...PII_FAMILIES,
  message: ["conversations:read"],
};

/** The read scopes (any one suffices) an integration needs to receive events of `type`; null when none. */
export function readScopesForEvent(type: string): readonly Scope[] | null {
  return EVENT_READ_SCOPES[familyOf(type)] ?? null;
}

/**
 * Types addressed to one integration only, with where its id is in `data`: `api_key.expiring` goes only to
 * subscriptions of the integration that owns the key (`data.integration_id`), never to the tenant's others.
 */
export const INTEGRATION_ADDRESSED: Readonly<Record<string, string>> = {
  "api_key.expiring": "integration_id",
};
