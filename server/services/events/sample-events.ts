import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { events } from "@/db/schema";
import { ApiError, notFound } from "@/server/errors";
import type { EventType } from "@/server/webhook-transport/event-catalog";
import { buildEnvelope, type EventEnvelope } from "@/server/webhook-transport/envelope";
import type { IntegrationActor } from "../actor";
import { livemodeOf, ownedBy } from "../tenant-scope";
import { recordEventWithDeliveries } from "./outbox";
import { SAMPLE_DATA } from "./sample-data";
import { sampleSources } from "./sample-sources";

/**
 * The test helpers act only in the sandbox (issue 69 item 4): a live actor (a live key, whatever the tenant's
 * previews) is told the helper does not exist for it, as the route table tells a tenant without the preview.
 * @throws ApiError 404 `not_found`.
 */
export function assertSandbox(actor: IntegrationActor): void {
  if (livemodeOf(actor)) {
    throw new ApiError(
      "not_found",
      "Test helpers exist only for test keys of a tenant with the preview test-mode; this key works in live data.",
    );
  }
}

/**
 * `POST /test-helpers/events`: emits a sample event of `type` in the caller's sandbox, so that every type
 * of the catalog can be received and verified before going live. Its `data` names the sandbox's own rows
 * where the type names a resource (./sample-data.ts); it is recorded with `livemode: false` and queued, as
 * any sandbox event, to the sandbox's active subscriptions whose `events` match it (never to a live
 * subscription: server/services/webhooks/fan-out.ts), with the usual delivery, retries and journal. Call
 * inside the request's transaction (deliveries are announced after the commit).
 * @returns the event as its deliveries carry it (the envelope; without `include_pii` additions, which
 *   are read at send time).
 * @throws ApiError 404 `not_found` for a live actor ({@link assertSandbox}).
 */
export async function emitSampleEvent(db: Db, actor: IntegrationActor, type: EventType): Promise<EventEnvelope> {
  assertSandbox(actor);
  const data = await SAMPLE_DATA[type](sampleSources(db, actor), actor);
  const recorded = await recordEventWithDeliveries(db, { tenantId: actor.tenantId, livemode: false, type, data });
  return buildEnvelope({ id: recorded.eventId, type, livemode: false, data, createdAt: recorded.createdAt });
}

/**
 * The sample event `id` of the caller's sandbox, as {@link emitSampleEvent} answered it (an idempotent replay).
 * @throws ApiError 404 `not_found` for a live actor, or when the event is gone (30-day retention) or not the
 *   sandbox's.
 */
export async function getSampleEvent(db: Db, actor: IntegrationActor, id: string): Promise<EventEnvelope> {
  assertSandbox(actor);
  const [row] = await db
    .select()
    .from(events)
    .where(and(ownedBy(events, actor), eq(events.id, id)));
  if (!row) throw notFound("Event");
  return buildEnvelope(row);
}
