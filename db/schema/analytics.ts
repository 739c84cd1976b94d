import { boolean, jsonb, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { tenants } from "./tenants";

/**
 * One block of the overview dashboard as its data source last produced it. `source_error` set = the
 * source is failing now: the overview answers 503 rather than an empty block (spec "GET /dashboards/overview").
 */
export const dashboardBlocks = pgTable(
  "dashboard_blocks",
  {
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    /** Test mode: false for a row of the tenant's sandbox (spec "Me" `key.mode`; DESIGN "Test mode"). */
    livemode: boolean("livemode").notNull().default(true),
    block: text("block").notNull(),
    availability: text("availability").notNull(), // ok | no_data | no_source | not_connected
    reason: text("reason"),
    dataAsOf: jsonb("data_as_of").$type<Record<string, string>>().notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>(),
    sourceError: text("source_error"),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.livemode, t.block] })],
);
