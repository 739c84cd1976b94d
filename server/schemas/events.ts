import { z } from "zod";
import { EVENT_API_VERSION } from "@/server/webhook-transport/envelope";
import { isEventPattern } from "@/server/webhook-transport/event-catalog";
import { cursorParam, includeDeletedAddsNothing, instantParam, limitParam, Timestamp } from "./common";

/**
 * One event of the journal (issue 75 item 1): exactly the thin envelope a webhook delivery of it carries
 * (spec "Events: Delivery format"; server/webhook-transport/envelope.ts `buildEnvelope`), never personal
 * data, whatever `include_pii` a subscription has.
 */
export const EventSchema = z
  .object({
    id: z.uuid().meta({ description: "event id; equals the Service-Event-Id header of its deliveries" }),
    type: z
      .string()
      .meta({ description: "the event type; equals the Service-Event-Type header", example: "lead.created" }),
    api_version: z.string().meta({ description: "events format version", example: EVENT_API_VERSION }),
    created_at: Timestamp,
    livemode: z.boolean().meta({ description: "false for sandbox data" }),
    data: z.looseObject({}).meta({
      description:
        "the event's thin data (resource ids; lead events add `version`), shaped as the type's in the `webhooks` section; never personal data",
    }),
  })
  .meta({ id: "Event" });
export type Event = z.infer<typeof EventSchema>;

/**
 * Query of `GET /events`: `limit` (default 25), `cursor`, `type` (an exact type of the catalog or
 * `<family>.*`, as a subscription's `events` take them; else 422 `unknown_event` on `/type`),
 * `created_after` (strictly after this moment), `include_deleted` (adds nothing).
 */
export const EventListQuery = z.strictObject({
  limit: limitParam(25),
  cursor: cursorParam.optional(),
  type: z
    .string()
    .max(100, "must be at most 100 characters")
    .refine(isEventPattern, {
      message: "must be an event type of the catalog or a <family>.* pattern, e.g. lead.created or lead.*",
      params: { code: "unknown_event" },
    })
    .optional()
    .meta({ description: "an exact event type or a family pattern `<family>.*`", example: "lead.*" }),
  created_after: instantParam
    .optional()
    .meta({ description: "only events created strictly after this moment (ISO 8601 with a time zone)" }),
  include_deleted: includeDeletedAddsNothing("events are never deleted one by one; the journal keeps 30 days"),
});
export type EventListQuery = z.infer<typeof EventListQuery>;
