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
  /**
   * The world the event belongs to (issue 69): `livemodeOf(actor)` for an actor's change, the row's mode
   * for a background job; false = the tenant's sandbox. Required, so that no caller can forget it and send
   * a sandbox event to live subscriptions. A `webhook.test` takes its subscription's mode (its envelope says
   * `livemode: false` whatever the mode: server/webhook-transport/envelope.ts).
   */
  livemode: boolean;
}

/** What {@link recordEventWithDeliveries} wrote: the event and the deliveries queued for it. */
export interface RecordedEvent {
  eventId: string;
  /** The event's `created_at` (the database clock), as its envelope carries it. */
  createdAt: Date;
  /** `webhook_deliveries` ids queued in the same transaction (pending, due now). */
  deliveryIds: string[];
}

/**
 * Records an event in the outbox and fans it out to the matching active webhook subscriptions of its
 * tenant and mode ({@link fanOutEvent}). Call it with the transaction of the change that causes the event, so
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
    .values({ tenantId: input.tenantId, type: input.type, data: input.data, livemode: input.livemode })
    .returning({ id: events.id, createdAt: events.createdAt });
  const eventId = row!.id;
  const deliveryIds = await fanOutEvent(
    db,
    { id: eventId, tenantId: input.tenantId, livemode: input.livemode, type: input.type, data: input.data },
    opts,
  );
  announceDeliveries(deliveryIds);
  return { eventId, createdAt: row!.createdAt, deliveryIds };
}

/**
 * Records an event and queues its webhook deliveries, as {@link recordEventWithDeliveries}.
 * @returns the event id (equals `Service-Event-Id` of its deliveries).
 */
export async function recordEvent(db: Db, input: EventInput, opts: FanOutOptions = {}): Promise<string> {
  return (await recordEventWithDeliveries(db, input, opts)).eventId;
}
