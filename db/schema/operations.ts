import { sql } from "drizzle-orm";
import { bigint, boolean, check, index, integer, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { apiKeys, integrations } from "./integrations";
import { tenants } from "./tenants";
import { ts } from "./columns";

/**
 * An asynchronous operation (spec "Operation"), visible only to the integration that started it. Exactly one
 * starter: an integration (`integration_id`) or a staff member in the console (`staff_user_id`, issue 70: the
 * console's Score button), whose operation is the tenant's and paid from the tenant's wallet like any other.
 */
export const operations = pgTable(
  "operations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    integrationId: uuid("integration_id").references(() => integrations.id, { onDelete: "cascade" }),
    /**
     * The staff user (staff_users.id) who started it in the console; null for an integration's. No foreign
     * key: the operation and its money outlive the staff account.
     */
    staffUserId: text("staff_user_id"),
    type: text("type").notNull(),
    status: text("status").notNull().default("queued"),
    resourceType: text("resource_type"),
    resourceId: text("resource_id"),
    error: jsonb("error").$type<{ code: string; message: string }>(),
    usage: jsonb("usage").$type<{ cost: { amount: string; currency: string }; model: string }>(),
    createdAt: ts("created_at").notNull().defaultNow(),
    completedAt: ts("completed_at"),
    /** False for operations of test-mode keys: nothing held or charged. */
    livemode: boolean("livemode").notNull().default(true),
    /** Conversation and customer message an AI reply answers. */
    conversationId: uuid("conversation_id"),
    messageId: uuid("message_id"),
    channelId: uuid("channel_id"),
    /** Hold placed at creation, RUB minor units (0 for unpaid and test-mode operations). */
    holdMinor: bigint("hold_minor", { mode: "bigint" })
      .notNull()
      .default(sql`0`),
    /** True while the hold is open; the settling transaction closes it exactly once. */
    holdOpen: boolean("hold_open").notNull().default(false),
    /** Cost charged on success, RUB minor units. */
    chargedMinor: bigint("charged_minor", { mode: "bigint" }),
    /** Runs started (claims); a lease `locked_until` keeps two workers from running it at once. */
    attempts: integer("attempts").notNull().default(0),
    lockedUntil: ts("locked_until"),
    /** After this moment an unfinished operation is failed with `operation_timeout` and its hold released. */
    deadlineAt: ts("deadline_at").notNull().defaultNow(),
  },
  (t) => [
    index("operations_integration_idx").on(t.integrationId),
    index("operations_message_idx").on(t.messageId),
    index("operations_channel_day_idx").on(t.channelId, t.createdAt),
    index("operations_open_idx")
      .on(t.tenantId, t.status)
      .where(sql`status in ('queued', 'running')`),
    // The tenant's daily spend limit counts staff-started charges of the day (paid-operations.ts).
    index("operations_staff_day_idx")
      .on(t.tenantId, t.livemode, t.completedAt)
      .where(sql`staff_user_id is not null`),
    check("operations_one_starter", sql`(${t.integrationId} is null) <> (${t.staffUserId} is null)`),
  ],
);

/**
 * The disclosure journal (spec general fact 6): one row per answer that carried personal data, written
 * in the same request; when it cannot be written no data leaves (503).
 */
export const disclosures = pgTable(
  "disclosures",
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
    apiKeyId: uuid("api_key_id").references(() => apiKeys.id, { onDelete: "set null" }),
    route: text("route").notNull(),
    resourceType: text("resource_type").notNull(),
    resourceIds: text("resource_ids").array().notNull(),
    requestId: text("request_id").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [index("disclosures_tenant_idx").on(t.tenantId, t.livemode, t.createdAt)],
);

/**
 * The outbox of events (spec "Events"): written in the same transaction as the change that causes it;
 * webhook fan-out reads from here. `data` holds thin ids only.
 */
export const events = pgTable(
  "events",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    livemode: boolean("livemode").notNull().default(true),
    data: jsonb("data").$type<Record<string, unknown>>().notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  // events_created_idx: the retention job (server/jobs/retention.ts) deletes old events in batches by age.
  (t) => [
    index("events_tenant_idx").on(t.tenantId, t.livemode, t.createdAt),
    index("events_created_idx").on(t.createdAt),
  ],
);
