/** The `api_version` every event carries (spec "Versioning" 5). */
export const EVENT_API_VERSION = "2026-10-01";

/** An `events` outbox row, as far as the envelope needs it (db/schema/operations.ts). */
export interface EventRow {
  id: string;
  type: string;
  livemode: boolean;
  data: Record<string, unknown>;
  createdAt: Date;
}

/**
 * The body of a webhook delivery (spec "Events: Delivery format"): `id` equals `Service-Event-Id`,
 * `type` equals `Service-Event-Type`, `created_at` is ISO 8601 UTC with milliseconds, `data` the thin
 * object of resource ids stored with the event.
 */
export interface EventEnvelope {
  id: string;
  type: string;
  api_version: typeof EVENT_API_VERSION;
  created_at: string;
  livemode: boolean;
  data: Record<string, unknown>;
}

/** Builds the envelope of an outbox event (field order fixed, so the body is stable across retries). */
export function buildEnvelope(event: EventRow): EventEnvelope {
  return {
    id: event.id,
    type: event.type,
    api_version: EVENT_API_VERSION,
    created_at: event.createdAt.toISOString(),
    livemode: event.livemode,
    data: event.data,
  };
}

/** The exact request body of one attempt: the envelope as JSON, serialized once and then signed and sent as is. */
export function serializeEnvelope(envelope: EventEnvelope): string {
  return JSON.stringify(envelope);
}
