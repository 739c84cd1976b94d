import { TestEventCreateSchema, TestEventSchema } from "@/server/schemas/test-helper-events";
import { emitSampleEvent, getSampleEvent } from "@/server/services/events/sample-events";
import { defineRoute } from "../define-route";

// Test helpers of the preview `test-mode` (issue 69 item 4): for a tenant without the preview the route
// answers the Planned 404 before authentication; with it, a live key gets 404 `not_found` after
// authentication (the service refuses every live actor). Only test keys reach the sandbox.

/**
 * `POST /test-helpers/events`: emits a sample event of any catalog type in the sandbox, delivered to the
 * sandbox's subscriptions (scope `webhooks:manage`). 202 with the event as its deliveries carry it: like
 * `POST /webhooks/{id}/test`, the deliveries are queued, not made, when the answer leaves.
 */
export const emitTestEventRoute = defineRoute({
  operationId: "emitTestEvent",
  summary: "Emit a sample event to the sandbox's webhook subscriptions (preview test-mode)",
  method: "POST",
  path: "/test-helpers/events",
  scope: "webhooks:manage",
  rate: "write",
  preview: "test-mode",
  body: TestEventCreateSchema,
  responses: { 202: TestEventSchema },
  handler: async ({ db, actor, body }) => {
    const event = await emitSampleEvent(db, actor, body.type);
    return { status: 202, body: event, resource: { type: "event", id: event.id } };
  },
  replay: async ({ db, actor }, id, status) => ({ status, body: await getSampleEvent(db, actor, id) }),
});

/** The event test helpers, for the route table's preview routes. */
export const TEST_HELPER_EVENT_ROUTES = [emitTestEventRoute];
