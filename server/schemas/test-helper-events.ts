import { z } from "zod";
import { EVENT_API_VERSION } from "@/server/webhook-transport/envelope";
import { EVENT_TYPES } from "@/server/webhook-transport/event-catalog";
import { Timestamp } from "./common";

/** Body of `POST /test-helpers/events` (preview `test-mode`): the catalog type of the sample event. */
export const TestEventCreateSchema = z.strictObject({
  type: z
    .enum(EVENT_TYPES, {
      error: "must be an event type of the catalog (the `webhooks` section of the OpenAPI document lists them)",
    })
    .meta({ description: 'any event type of the catalog (spec "Events: Event types")', example: "lead.created" }),
});
export type TestEventCreate = z.infer<typeof TestEventCreateSchema>;

/**
 * Answer of `POST /test-helpers/events`: the sample event exactly as its deliveries carry it (spec "Events:
 * Delivery format"), `livemode` always false.
 */
export const TestEventSchema = z
  .object({
    id: z.uuid().meta({ description: "event id; equals the Service-Event-Id header of its deliveries" }),
    type: z.string().meta({ description: "the event type asked for", example: "lead.created" }),
    api_version: z.string().meta({ description: "events format version", example: EVENT_API_VERSION }),
    created_at: Timestamp,
    livemode: z.literal(false).meta({ description: "always false: a sample event of the sandbox" }),
    data: z.looseObject({}).meta({
      description:
        "the event's data, shaped as the type's (the `webhooks` section of the OpenAPI document); ids name the sandbox's own rows where it has one",
    }),
  })
  .meta({ id: "TestEvent" });
export type TestEvent = z.infer<typeof TestEventSchema>;
