import { z } from "zod";
import { LeadContactInputSchema, MoneyInputSchema } from "./lead-writes";
import { FieldErrorSchema } from "./problem";

// `POST /intake/events` (issue 74 items 1 and 2), released to tenants with the `event-intake` preview. The
// spec names event and conversion intake only in its Planned list and its Limits ("writes", at most 100
// events per batch); the shapes below are this issue's.

/** Events of one batch: 1 to 100 (spec "Limits"). */
export const INTAKE_BATCH_MAX = 100;
/** Longest client `event_id`, characters. */
export const EVENT_ID_MAX = 100;
/** Largest event as JSON, bytes (32 KB). */
export const EVENT_BYTES_MAX = 32 * 1024;
/** Most keys of an event's `properties`. */
export const PROPERTIES_MAX = 50;
/** How old an event's `occurred_at` may be (7 days), ms. */
export const LATE_WINDOW_MS = 7 * 86_400_000;
/** How far ahead of the server clock `occurred_at` may be (10 minutes), ms. */
export const EARLY_WINDOW_MS = 10 * 60_000;

/** The fixed event types; `custom:<name>` is the open one. */
export const INTAKE_TYPES = ["page_view", "form_submit", "signup", "purchase", "conversion"] as const;
/** An event type: a fixed one, or `custom:` and a name of 1 to 64 of `a-z 0-9 _ . -`. */
export const INTAKE_TYPE_PATTERN = /^(page_view|form_submit|signup|purchase|conversion|custom:[a-z0-9_.-]{1,64})$/;
/** Types that may carry `value` and `order_id`. */
export const VALUE_TYPES: readonly string[] = ["purchase", "conversion"];

const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);
const optionalText = (max: number) => text(max).nullable().optional();

/** An absolute http(s) address, or a path of the site starting with `/`. */
const address = (what: string) =>
  text(2000)
    .refine((v) => v === "" || v.startsWith("/") || /^https?:\/\/[^\s/?#]+/i.test(v), {
      message: `must be an http(s) address or a path starting with /`,
      params: { code: "invalid_format" },
    })
    .nullable()
    .optional()
    .meta({ description: what });

/** The person an event is about: how intake finds (or makes) their lead. Never stored with the event. */
export const IntakeContactSchema = z
  .strictObject({
    email: LeadContactInputSchema.shape.email,
    phone: LeadContactInputSchema.shape.phone,
    external_id: z
      .string()
      .min(1, "must not be empty")
      .max(200, "must be at most 200 characters")
      .nullable()
      .optional()
      .meta({ description: "the customer's id in your system (as `external_customer_id` of your conversations)" }),
  })
  .meta({ id: "IntakeContact" });

/**
 * One event of `POST /intake/events`. Each event is judged on its own: one that breaks a rule here is
 * answered `rejected` with its `errors`, and the rest of the batch is still taken.
 */
export const IntakeEventSchema = z
  .strictObject({
    event_id: z
      .string({ message: "must be a string" })
      .min(1, "must not be empty")
      .max(EVENT_ID_MAX, `must be at most ${EVENT_ID_MAX} characters`)
      .meta({ description: "your id of the event; the same id again within 7 days is answered `duplicate`" }),
    type: z
      .string({ message: "must be a string" })
      .regex(
        INTAKE_TYPE_PATTERN,
        "must be page_view, form_submit, signup, purchase, conversion or custom:<name> (a-z, 0-9, _ . -; up to 64)",
      ),
    occurred_at: z.iso
      .datetime({ offset: true, message: "must be an ISO 8601 date-time with a time zone" })
      .meta({ description: "from 7 days ago to 10 minutes ahead of the server clock" }),
    contact: IntakeContactSchema.nullable().optional(),
    lead_id: z.uuid("must be the id of one of your leads").nullable().optional(),
    conversation_id: z.uuid("must be the id of one of your conversations").nullable().optional(),
    page: z
      .strictObject({
        url: address("the page's address"),
        title: optionalText(500),
        referrer: address("the address the visitor came from (empty or absent: none)"),
      })
      .nullable()
      .optional(),
    utm: z
      .strictObject({ source: optionalText(200), medium: optionalText(200), campaign: optionalText(200) })
      .nullable()
      .optional(),
    value: MoneyInputSchema.nullable().optional().meta({ description: "purchase and conversion only" }),
    order_id: z
      .string()
      .min(1, "must not be empty")
      .max(200, "must be at most 200 characters")
      .nullable()
      .optional()
      .meta({ description: "purchase and conversion only" }),
    properties: z
      .record(z.string(), z.unknown())
      .nullable()
      .optional()
      .meta({
        description: `at most ${PROPERTIES_MAX} keys; \`visitor_id\` (string) is the site snippet's anonymous visitor`,
      }),
  })
  .meta({
    id: "IntakeEvent",
    description: `One event; at most ${EVENT_BYTES_MAX / 1024} KB as JSON. \`value\` and \`order_id\` only on purchase and conversion.`,
  });
export type IntakeEvent = z.infer<typeof IntakeEventSchema>;

/**
 * Body of `POST /intake/events`. Only the envelope is checked before the events (422 on `/events`): each
 * item is judged on its own by the service, so an item is documented as an IntakeEvent or anything else
 * (which is then answered `rejected`), and the union takes any item as it is without parsing it twice.
 */
export const IntakeBatchSchema = z
  .strictObject({
    events: z
      .array(
        z.union([z.unknown(), IntakeEventSchema]).meta({
          description: "an IntakeEvent; an item that is not a valid one is answered `rejected`, never the batch",
          // The document names IntakeEvent first; parsing tries `unknown` first, which takes any item at once.
          override: ({ jsonSchema }: { jsonSchema: { anyOf?: unknown[] } }) => void jsonSchema.anyOf?.reverse(),
        }),
        { message: "must be an array of events" },
      )
      .min(1, `must hold 1 to ${INTAKE_BATCH_MAX} events`)
      .max(INTAKE_BATCH_MAX, `must hold 1 to ${INTAKE_BATCH_MAX} events`),
  })
  .meta({ id: "IntakeBatch" });
export type IntakeBatch = z.infer<typeof IntakeBatchSchema>;

/** What became of one event. */
export const INTAKE_STATUSES = ["accepted", "duplicate", "rejected"] as const;
export type IntakeStatus = (typeof INTAKE_STATUSES)[number];

/** The verdict on one event, at its index in the batch. */
export const IntakeResultSchema = z
  .object({
    event_id: z.string().nullable().meta({ description: "the event's `event_id` as sent; null when it sent none" }),
    status: z.enum(INTAKE_STATUSES),
    errors: z
      .array(FieldErrorSchema)
      .optional()
      .meta({ description: "only when rejected; `field` points into the body, e.g. `/events/3/occurred_at`" }),
  })
  .meta({ id: "IntakeResult" });
export type IntakeResult = z.infer<typeof IntakeResultSchema>;

/** Answer of `POST /intake/events`: one result per event, in request order. */
export const IntakeResponseSchema = z.object({ results: z.array(IntakeResultSchema) }).meta({ id: "IntakeResponse" });
export type IntakeResponse = z.infer<typeof IntakeResponseSchema>;
