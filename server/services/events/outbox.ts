import type { Db } from "@/db/client";
import { events } from "@/db/schema";
import { announceDeliveries } from "./work-notifier";
import { fanOutEvent, type FanOutOptions } from "@/server/services/webhooks/fan-out";

/** One event to record (spec "Events"): `data` holds thin ids only (lead events add `version`). */
export interface EventInput {
  tenantId: string;
  /** An event type of the spec's catalog, e.g. `message.created`. */
  type: string;
  data: Record<string, unknown>;
  /** False for `webhook.test` and sandbox data. */
  livemode?: boolean;
}

/** What {@link recordEventWithDeliveries} wrote: the event and the deliveries queued for it. */
export interface RecordedEvent {
  eventId: string;
  /** `webhook_deliveries` ids queued in the same transaction (pending, due now). */
  deliveryIds: string[];
}

/**
 * Records an event in the outbox and fans it out to the matching active webhook subscriptions of its
 * tenant ({@link fanOutEvent}). Call it with the transaction of the change that causes the event, so
 * the event and its deliveries exist exactly when the change does (none for a rolled-back write).
 * The jobs driver is told about the deliveries once the request's transaction commits (work-notifier.ts).
 */
export async function recordEventWithDeliveries(
  db: Db,
  input: EventInput,
  opts: FanOutOptions = {},
): Promise<RecordedEvent> {
  const [row] = await db
    .insert(events)
    .values({ tenantId: input.tenantId, type: input.type, data: input.data, livemode: input.livemode ?? true })
    .returning({ id: events.id });
  const eventId = row!.id;
  const deliveryIds = await fanOutEvent(
    db,
    { id: eventId, tenantId: input.tenantId, type: input.type, data: input.data },
    opts,
  );
  announceDeliveries(deliveryIds);
  return { eventId, deliveryIds };
}

/**
 * Records an event and queues its webhook deliveries, as {@link recordEventWithDeliveries}.
 * @returns the event id (equals `Service-Event-Id` of its deliveries).
 */
export async function recordEvent(db: Db, input: EventInput, opts: FanOutOptions = {}): Promise<string> {
  return (await recordEventWithDeliveries(db, input, opts)).eventId;
}
