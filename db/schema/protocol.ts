import { boolean, index, integer, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { tenants } from "./tenants";
import { ts } from "./columns";

/**
 * One idempotent operation (spec "Limits: idempotency rules"). Holds a body fingerprint and a reference to
 * the resource, never the body or the answer, so no personal data is kept. `scope` is the caller's key namespace (`integration:<id>`); the fingerprint covers method, concrete path and body.
 */
export const idempotencyRecords = pgTable(
  "idempotency_records",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    /** Test mode: false for a row of the tenant's sandbox (spec "Me" `key.mode`; DESIGN "Test mode"). */
    livemode: boolean("livemode").notNull().default(true),
    keyMode: text("key_mode").notNull(),
    scope: text("scope").notNull(),
    idempotencyKey: text("idempotency_key").notNull(),
    fingerprint: text("fingerprint").notNull(),
    state: text("state").notNull().default("running"), // running | completed
    responseStatus: integer("response_status"),
    resourceType: text("resource_type"),
    resourceId: text("resource_id"),
    /** While running: when another request may take the operation over (the first one died). */
    lockedUntil: ts("locked_until").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    completedAt: ts("completed_at"),
  },
  (t) => [
    uniqueIndex("idempotency_scope_uq").on(t.tenantId, t.livemode, t.keyMode, t.scope, t.idempotencyKey),
    index("idempotency_created_idx").on(t.createdAt),
  ],
);
