import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { integrations } from "./integrations";
import { events } from "./operations";
import { tenants } from "./tenants";
import { ts } from "./columns";

/**
 * A webhook subscription (spec "Webhook resources"), visible only to the integration that created it.
 * Secrets are kept encrypted (AES-256-GCM, key from the environment): they are needed in clear to sign.
 * While a rotation window is open, `previous_secret_enc` also signs until `previous_secret_expires_at`.
 */
export const webhookSubscriptions = pgTable(
  "webhook_subscriptions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    /** Test mode: false for a row of the tenant's sandbox (spec "Me" `key.mode`; DESIGN "Test mode"). */
    livemode: boolean("livemode").notNull().default(true),
    integrationId: uuid("integration_id")
      .notNull()
      .references(() => integrations.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    /** Exact event types or `<family>.*` patterns. */
    events: text("events")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    includePii: boolean("include_pii").notNull().default(false),
    description: text("description"),
    status: text("status").notNull().default("active"), // active | paused
    /**
     * Why the platform paused it (issue 75): `failing` when every delivery failed for 3 days in a row;
     * null when active or paused by staff or the API. Cleared when it is set `active` again.
     */
    pausedReason: text("paused_reason"),
    /**
     * Start of the current run of failed attempts (the first failure after the last success); null while
     * the last attempt succeeded. Three days of it pause the subscription (`paused_reason: failing`).
     */
    failingSince: ts("failing_since"),
    secretEnc: text("secret_enc").notNull(),
    previousSecretEnc: text("previous_secret_enc"),
    previousSecretExpiresAt: ts("previous_secret_expires_at"),
    secretRotatedAt: ts("secret_rotated_at"),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    index("webhook_subscriptions_integration_idx").on(t.integrationId, t.createdAt, t.id),
    index("webhook_subscriptions_tenant_idx").on(t.tenantId, t.livemode),
  ],
);

/**
 * One event to one subscription (spec "Webhook delivery" states): a state machine advanced by idempotent
 * steps. `attempt` counts attempts made (0 = none yet); `next_attempt_at` is when a worker may take it;
 * `locked_until` is the lease of the worker that claimed it (a crashed worker's claim expires).
 * Deleted with its subscription (the journal goes with it) and after 30 days.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    /** Test mode: false for a row of the tenant's sandbox (spec "Me" `key.mode`; DESIGN "Test mode"). */
    livemode: boolean("livemode").notNull().default(true),
    subscriptionId: uuid("subscription_id")
      .notNull()
      .references(() => webhookSubscriptions.id, { onDelete: "cascade" }),
    eventId: uuid("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    eventType: text("event_type").notNull(),
    state: text("state").notNull().default("pending"), // pending | delivered | failed | dead
    attempt: integer("attempt").notNull().default(0),
    statusCode: integer("status_code"),
    durationMs: integer("duration_ms"),
    error: text("error"),
    nextAttemptAt: ts("next_attempt_at").defaultNow(),
    lockedUntil: ts("locked_until"),
    deliveredAt: ts("delivered_at"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    // Fair delivery (issue 75): the attempts in flight (leased) of one subscription, counted at each claim.
    index("webhook_deliveries_in_flight_idx")
      .on(t.subscriptionId, t.lockedUntil)
      .where(sql`locked_until is not null`),
    index("webhook_deliveries_subscription_idx").on(t.subscriptionId, t.createdAt, t.id),
    index("webhook_deliveries_due_idx")
      .on(t.nextAttemptAt)
      .where(sql`state in ('pending', 'failed')`),
    index("webhook_deliveries_event_idx").on(t.eventId),
    index("webhook_deliveries_created_idx").on(t.createdAt),
  ],
);

/**
 * One HTTP attempt of a delivery (issue 75, the attempt log): what was sent when, and what the receiver
 * answered. `response_headers` holds only the allow list (content-type, retry-after, date, server);
 * `response_body` the first 2 KB as text. `error` is the journal's short code (`http_503`,
 * `network_error`…), null on success. Deleted with its delivery.
 */
export const webhookDeliveryAttempts = pgTable(
  "webhook_delivery_attempts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    /** Test mode: false for a row of the tenant's sandbox (spec "Me" `key.mode`; DESIGN "Test mode"). */
    livemode: boolean("livemode").notNull().default(true),
    deliveryId: uuid("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    attemptedAt: ts("attempted_at").notNull(),
    durationMs: integer("duration_ms"),
    responseStatus: integer("response_status"),
    responseHeaders: jsonb("response_headers").$type<Record<string, string>>(),
    responseBody: text("response_body"),
    error: text("error"),
  },
  (t) => [index("webhook_delivery_attempts_delivery_idx").on(t.deliveryId, t.attemptedAt, t.id)],
);
