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
 * `type` equals `Service-Event-Type`, `created_at` is ISO 8601 UTC with milliseconds, `livemode` false for
 * `webhook.test` and sandbox data, `data` the thin object of resource ids stored with the event.
 */
export interface EventEnvelope {
  id: string;
  type: string;
  api_version: typeof EVENT_API_VERSION;
  created_at: string;
  livemode: boolean;
  data: Record<string, unknown>;
}

/**
 * The envelope's `livemode` (spec "Delivery format": false for `webhook.test` and sandbox data): the event's
 * mode, except that a `webhook.test` says false in every mode. Its row keeps the mode of the subscription it
 * was sent to (server/services/webhooks/subscriptions.ts `sendTestEvent`), so that it lives and goes with
 * that subscription's deliveries, but a receiver must never take a test delivery for live business.
 */
export function envelopeLivemode(event: Pick<EventRow, "type" | "livemode">): boolean {
  return event.type !== "webhook.test" && event.livemode;
}

/** Builds the envelope of an outbox event (field order fixed, so the body is stable across retries). */
export function buildEnvelope(event: EventRow): EventEnvelope {
  return {
    id: event.id,
    type: event.type,
    api_version: EVENT_API_VERSION,
    created_at: event.createdAt.toISOString(),
    livemode: envelopeLivemode(event),
    data: event.data,
  };
}

/** The exact request body of one attempt: the envelope as JSON, serialized once and then signed and sent as is. */
export function serializeEnvelope(envelope: EventEnvelope): string {
  return JSON.stringify(envelope);
}
