import { nowMs } from "@/server/lib/clock";
import { IntakeBatchSchema, IntakeResponseSchema } from "@/server/schemas/intake";
import { ingestEvents } from "@/server/services/intake/intake";
import { ensurePartitions } from "@/server/services/intake/partitions";
import type { AnyRoute } from "../define-route";
import { defineRoute, ok } from "../define-route";

// Event and conversion intake (issue 74 items 1 and 2), released to tenants with the `event-intake` preview
// (server/schemas/previews.ts); every other caller gets the Planned 404.

/** `POST /intake/events`: a batch of 1 to 100 events, one verdict per event in request order. */
export const ingestEventsRoute = defineRoute({
  operationId: "ingestEvents",
  summary: "Send events and conversions (preview event-intake)",
  description: [
    "Your site and CRM report what happens: `page_view`, `form_submit`, `signup`, `purchase`, `conversion` or `custom:<name>`. A batch of 1 to 100 events counts as one write.",
    "Each event is judged on its own and answered in request order: `accepted`, `duplicate` (its `event_id` was accepted in the last 7 days, in this tenant and key mode, or earlier in this batch) or `rejected` with `errors` (JSON Pointers into the body). One bad event never refuses the batch; only a malformed envelope is 422 (`/events`: not an array, empty, or more than 100 events).",
    "Rules: `event_id` 1 to 100 characters; `occurred_at` from 7 days ago to 10 minutes ahead; `value` and `order_id` only on purchase and conversion; at most 50 `properties` and 32 KB per event; `lead_id` and `conversation_id` must be yours (else `not_found` on that field).",
    "Accepted events are stored when the answer is sent. A purchase or conversion of a lead (by `lead_id`, `conversation_id` or contact email, phone or `external_id`) wins it and sets its empty `value` (with the preview `leads-writes`: `lead.updated`, `lead.status_changed`); a form submission or sign-up of a new contact with an email or phone makes a lead with its attribution (`lead.created`).",
    "Contact emails and phones find leads and are never stored with the events. No `Idempotency-Key` is needed: sending a batch again answers `duplicate` for what was accepted.",
  ].join(" "),
  method: "POST",
  path: "/intake/events",
  scope: "analytics:write",
  rate: "write",
  idempotency: "none",
  preview: "event-intake",
  body: IntakeBatchSchema,
  // A control character in one event rejects that event alone (event-rules.ts), not the batch.
  itemsJudgedByHandler: "/events",
  responses: { 200: IntakeResponseSchema },
  // Outside the batch's transaction: a partition made inside it would hold the catalog lock to its end.
  before: async ({ db }) => {
    const at = nowMs();
    await ensurePartitions(db, [at, at + 60_000]);
  },
  handler: async ({ db, actor, caller, body }) =>
    ok(await ingestEvents(db, actor, body.events, { leadsWrites: caller.previews.includes("leads-writes") })),
});

/** Routes of the `event-intake` preview. */
export const INTAKE_ROUTES: AnyRoute[] = [ingestEventsRoute];
