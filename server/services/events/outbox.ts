import type { Db } from "@/db/client";
import { events } from "@/db/schema";

/** One event to record (spec "Events"): `data` holds thin ids only (lead events add `version`). */
export interface EventInput {
  tenantId: string;
  /** An event type of the spec's catalog, e.g. `message.created`. */
  type: string;
  data: Record<string, unknown>;
  /** False for `webhook.test` and sandbox data. */
  livemode?: boolean;
}

/**
 * Records an event in the outbox. Call it with the transaction of the change that causes the event, so
 * the event exists exactly when the change does (no event for a rolled-back write, no change without its
 * event). Webhook fan-out reads from the outbox.
 * @returns the event id (equals `Service-Event-Id` of its deliveries).
 */
export async function recordEvent(db: Db, input: EventInput): Promise<string> {
  const [row] = await db
    .insert(events)
    .values({ tenantId: input.tenantId, type: input.type, data: input.data, livemode: input.livemode ?? true })
    .returning({ id: events.id });
  return row!.id;
}
