import { boolean, index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { apiKeys, integrations } from "./integrations";
import { tenants } from "./tenants";

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

/** An asynchronous operation (spec "Operation"), visible only to the integration that started it. */
export const operations = pgTable(
  "operations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    integrationId: uuid("integration_id")
      .notNull()
      .references(() => integrations.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    status: text("status").notNull().default("queued"),
    resourceType: text("resource_type"),
    resourceId: text("resource_id"),
    error: jsonb("error").$type<{ code: string; message: string }>(),
    usage: jsonb("usage").$type<{ cost: { amount: string; currency: string }; model: string }>(),
    createdAt: ts("created_at").notNull().defaultNow(),
    completedAt: ts("completed_at"),
  },
  (t) => [index("operations_integration_idx").on(t.integrationId)],
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
  (t) => [index("disclosures_tenant_idx").on(t.tenantId, t.createdAt)],
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
  (t) => [index("events_tenant_idx").on(t.tenantId, t.createdAt), index("events_created_idx").on(t.createdAt)],
);
