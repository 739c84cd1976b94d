import { sql } from "drizzle-orm";
import { bigint, check, integer, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { tenants } from "./tenants";
import { ts } from "./columns";

/**
 * Request counters of the sliding rate windows when PostgreSQL is the limit store: one row per bucket
 * (`key:<key_id>:<class>` or `tenant:<id>:<class>`) and fixed 60 s window (`window_start`, epoch
 * seconds). Rows older than two windows are deleted as the function `rate_limit_take` goes.
 */
export const rateCounters = pgTable(
  "rate_counters",
  {
    bucket: text("bucket").notNull(),
    windowStart: bigint("window_start", { mode: "number" }).notNull(),
    count: integer("count").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.bucket, t.windowStart] })],
);

/**
 * Limits set by operators (`npm run admin -- limits:set`), for a whole tenant or one key. A null
 * column keeps the value from the next level: key → tenant → the spec's starting values.
 */
export const rateLimitOverrides = pgTable(
  "rate_limit_overrides",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .references(() => tenants.id, { onDelete: "cascade" })
      .unique(),
    keyId: text("key_id").unique(),
    readPerMin: integer("read_per_min"),
    writePerMin: integer("write_per_min"),
    paidPerMin: integer("paid_per_min"),
    paidConcurrency: integer("paid_concurrency"),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [check("rate_limit_overrides_one_target", sql`(${t.tenantId} is null) <> (${t.keyId} is null)`)],
);
