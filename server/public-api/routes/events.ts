import { UuidParam, pageOf } from "@/server/schemas/common";
import { EventListQuery, EventSchema } from "@/server/schemas/events";
import type { ApiCaller } from "@/server/services/actor";
import { getEvent, listEvents, type EventReader } from "@/server/services/events/event-journal";
import { livemodeOf } from "@/server/services/tenant-scope";
import { defineRoute, ok, page } from "../define-route";
import { InstantIdPosition } from "../positions";

// Issue 75 item 1: the event journal. A receiver that was down reads what it missed without waiting for
// retries. Same scope as the webhook routes; an event is shown exactly as its deliveries carry it (thin).

/** The journal's reader: the calling key's tenant, mode, integration and effective scopes. */
const readerOf = (caller: ApiCaller): EventReader => ({
  tenantId: caller.tenantId,
  livemode: livemodeOf(caller.actor),
  integrationId: caller.integrationId,
  scopes: caller.scopes,
});

const THIN =
  "Each event is the envelope its webhook deliveries carry, always thin: never personal data, whatever `include_pii` a subscription has. `webhook.test` events are not listed; events about conversations, messages, leads and contacts only with a matching read scope, `api_key.expiring` only for the key's own integration.";

/** `GET /events`: the last 30 days, newest first; `limit`, `cursor`, `type` (exact or `<family>.*`), `created_after`. */
export const listEventsRoute = defineRoute({
  operationId: "listEvents",
  summary: "List the events of the last 30 days",
  description: `The events emitted in the key's tenant and mode in the last 30 days, newest first: a receiver that was down reads what it missed. ${THIN}`,
  method: "GET",
  path: "/events",
  scope: "webhooks:manage",
  rate: "read",
  query: EventListQuery,
  list: { position: InstantIdPosition },
  responses: { 200: pageOf(EventSchema) },
  handler: async ({ db, caller, query, after }) => {
    const p = await listEvents(db, readerOf(caller), {
      limit: query.limit,
      type: query.type,
      createdAfter: query.created_after,
      after,
    });
    return page(p.events, p.next);
  },
});

/** `GET /events/{id}`: one event of the last 30 days, as its deliveries carry it. */
export const getEventRoute = defineRoute({
  operationId: "getEvent",
  summary: "Read one event",
  description: `One event of the key's tenant and mode of the last 30 days; an older one, or one of another tenant or mode, is 404. ${THIN}`,
  method: "GET",
  path: "/events/{id}",
  scope: "webhooks:manage",
  rate: "read",
  params: UuidParam,
  responses: { 200: EventSchema },
  handler: async ({ db, caller, params }) => ok(await getEvent(db, readerOf(caller), params.id)),
});

/** The event journal's routes, after the webhook routes in the route table. */
export const EVENT_ROUTES = [listEventsRoute, getEventRoute];
