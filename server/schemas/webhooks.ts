import { z } from "zod";
import { isEventPattern } from "@/server/webhook-transport/event-catalog";
import { cursorParam, includeDeletedAddsNothing, includeDeletedNotStored, limitParam, Timestamp } from "./common";

/** Most patterns one subscription may list (the catalog has 21 types; this only bounds the payload). */
export const MAX_EVENTS_PER_SUBSCRIPTION = 50;

const WebhookUrl = z.string().min(1, "must not be empty").max(2048, "must be at most 2048 characters").meta({
  description:
    "https address on port 443 with a host name; checked against private addresses at creation and at every connection",
});

/**
 * `events` of a subscription: non-empty, unique, each an exact type of the catalog or `<family>.*`.
 * Errors point at the item: `/events/<i>` with `unknown_event` or `duplicate`.
 */
const EventList = z
  .array(z.string().max(100, "must be at most 100 characters"))
  .min(1, "must list at least one event type or pattern")
  .max(MAX_EVENTS_PER_SUBSCRIPTION, `must list at most ${MAX_EVENTS_PER_SUBSCRIPTION} items`)
  .superRefine((items, ctx) => {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      if (!isEventPattern(item)) {
        ctx.addIssue({
          code: "custom",
          path: [i],
          message: `"${item.slice(0, 100)}" is neither an event type nor a <family>.* pattern of the catalog`,
          params: { code: "unknown_event" },
        });
      } else if (seen.has(item)) {
        ctx.addIssue({ code: "custom", path: [i], message: "is listed twice", params: { code: "duplicate" } });
      }
      seen.add(item);
    });
  })
  .meta({ description: "exact event types or family patterns `<family>.*`" });

const Description = z.string().max(200, "must be at most 200 characters").nullable();

/** Subscription state (spec "States and transitions: Webhook subscription"). */
export const WebhookStatus = z.enum(["active", "paused"]);

/** Body of `POST /webhooks` (spec "Webhook resources": WebhookCreate). */
export const WebhookCreateSchema = z.strictObject({
  url: WebhookUrl,
  events: EventList,
  include_pii: z
    .boolean()
    .default(false)
    .meta({ description: "add personal data to lead.*, contact.* and conversation.* events" }),
  description: Description.optional(),
});
export type WebhookCreate = z.infer<typeof WebhookCreateSchema>;

/** Body of `PATCH /webhooks/{id}` (WebhookUpdate): any of the fields, at least one. */
export const WebhookUpdateSchema = z
  .strictObject({
    url: WebhookUrl.optional(),
    events: EventList.optional(),
    include_pii: z.boolean().optional(),
    description: Description.optional(),
    status: WebhookStatus.optional(),
  })
  .refine((b) => Object.keys(b).length > 0, {
    message: "send at least one of url, events, include_pii, description, status",
    params: { code: "required" },
  });
export type WebhookUpdate = z.infer<typeof WebhookUpdateSchema>;

/** A subscription as answered (spec "Webhook resources": Webhook); the secret is never part of it. */
export const WebhookSchema = z.object({
  id: z.uuid(),
  url: z.string(),
  events: z.array(z.string()),
  include_pii: z.boolean(),
  description: z.string().nullable(),
  status: WebhookStatus,
  paused_reason: z.enum(["failing"]).nullable().optional().meta({
    description:
      "why the platform paused the subscription: `failing` when every delivery attempt failed for 3 days; null when active or paused by you. Setting `status` active clears it",
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
  secret_rotated_at: Timestamp.nullable(),
  previous_secret_expires_at: Timestamp.nullable().meta({
    description: "end of the 24-hour rotation window while it is open, else null",
  }),
});
export type Webhook = z.infer<typeof WebhookSchema>;

/** WebhookWithSecret: `secret` is shown once and null on an idempotent replay. */
export const WebhookWithSecretSchema = WebhookSchema.extend({
  secret: z.string().nullable().meta({ description: "signing secret, shown once; null on an idempotent replay" }),
});
export type WebhookWithSecret = z.infer<typeof WebhookWithSecretSchema>;

/** Delivery state (spec "States and transitions: Webhook delivery"). */
export const DeliveryState = z.enum(["pending", "delivered", "failed", "dead"]);

/** One journal row (spec "Webhook resources": WebhookDelivery). */
export const WebhookDeliverySchema = z.object({
  id: z.uuid(),
  event_id: z.uuid(),
  state: DeliveryState,
  attempt: z.number().int().meta({ description: "attempts made; 0 = none yet" }),
  status_code: z.number().int().nullable(),
  duration_ms: z.number().int().nullable(),
  error: z.string().nullable().meta({ description: "short code such as http_500, network_error, private_address" }),
  next_attempt_at: Timestamp.nullable(),
  delivered_at: Timestamp.nullable(),
  created_at: Timestamp,
});
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

/**
 * One HTTP attempt of a delivery (issue 75 item 2, the attempt log): when it was made, how long it took,
 * what the receiver answered. Headers are an allow list; the body is cut at 2 KB. A connection error or
 * timeout has `response_status`, `response_headers` and `response_body` null and its code in `error`.
 */
export const WebhookDeliveryAttemptSchema = z
  .object({
    attempted_at: Timestamp,
    duration_ms: z.number().int().nullable().meta({ description: "wall time of the attempt, ms" }),
    response_status: z
      .number()
      .int()
      .nullable()
      .meta({ description: "HTTP status the receiver answered; null when no answer came" }),
    response_headers: z.record(z.string(), z.string()).nullable().meta({
      description:
        "the receiver's answer headers of the allow list content-type, retry-after, date and server (lower-case names); null when no answer came",
    }),
    response_body: z
      .string()
      .nullable()
      .meta({ description: "the first 2 KB of the answer body as UTF-8 text; null when no answer came" }),
    error: z
      .string()
      .nullable()
      .meta({ description: "short code as in the journal (http_503, timeout, network_error); null on success" }),
  })
  .meta({ id: "WebhookDeliveryAttempt" });
export type WebhookDeliveryAttempt = z.infer<typeof WebhookDeliveryAttemptSchema>;

/** Answer of `GET /webhooks/{id}/deliveries/{delivery_id}`: the WebhookDelivery with its attempt log. */
export const WebhookDeliveryWithAttemptsSchema = WebhookDeliverySchema.extend({
  attempts: z
    .array(WebhookDeliveryAttemptSchema)
    .meta({ description: "every HTTP attempt, oldest first; attempts before a resend stay" }),
}).meta({ id: "WebhookDeliveryWithAttempts" });
export type WebhookDeliveryWithAttempts = z.infer<typeof WebhookDeliveryWithAttemptsSchema>;

/** Path of one delivery of a subscription: `/webhooks/{id}/deliveries/{delivery_id}` (anything not a uuid answers 404). */
export const DeliveryParams = z.object({ id: z.uuid(), delivery_id: z.uuid() });

/** Answer of `POST /webhooks/{id}/test` (WebhookTestResult). */
export const WebhookTestResultSchema = z.object({
  event_id: z.uuid().nullable(),
  type: z.literal("webhook.test"),
  status: z.literal("queued"),
});

/** Query of `GET /webhooks`: common list parameters (at most 10 subscriptions exist per integration); `include_deleted=true` is 422 `not_supported`. */
export const WebhookListQuery = z.strictObject({
  limit: limitParam(25),
  cursor: cursorParam.optional(),
  include_deleted: includeDeletedNotStored("a deleted subscription is removed with its delivery journal"),
});

/** Query of `GET /webhooks/{id}/deliveries`: `limit` (default 25), `cursor`, `state`, `include_deleted` (adds nothing). */
export const DeliveryListQuery = z.strictObject({
  limit: limitParam(25),
  cursor: cursorParam.optional(),
  state: z
    .enum(["pending", "delivered", "failed", "dead"], { message: "must be one of pending, delivered, failed, dead" })
    .optional(),
  include_deleted: includeDeletedAddsNothing("deliveries are never deleted one by one; the journal keeps 30 days"),
});
