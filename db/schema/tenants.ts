import { sql } from "drizzle-orm";
import { bigint, boolean, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { staffUsers } from "./auth";

/** A customer account of the platform. `cell` is where it lives; `api_access` and `features` are its license. */
export const tenants = pgTable("tenants", {
  id: uuid("id").primaryKey().defaultRandom(),
  name: text("name").notNull(),
  cell: text("cell").notNull().default("ru"),
  status: text("status").notNull().default("active"), // active | inactive
  plan: text("plan").notNull().default("standard"),
  apiAccess: boolean("api_access").notNull().default(true),
  features: text("features")
    .array()
    .notNull()
    .default(sql`'{chat,catalog,crm,articles,strategist,analytics}'::text[]`),
  crmMode: text("crm_mode").notNull().default("internal"),
  mainDomain: text("main_domain"),
  /** Preview features switched on for this tenant (`npm run admin -- preview:set`), e.g. `conversation-writes`. */
  previews: text("previews")
    .array()
    .notNull()
    .default(sql`'{}'::text[]`),
  /** Money balance below which the wallet reports `low`, RUB minor units. */
  lowBalanceMinor: bigint("low_balance_minor", { mode: "bigint" })
    .notNull()
    .default(sql`100000`),
  createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
});

/** A staff user's membership in a tenant, with the rights that also cut the scopes of integrations they own. */
export const memberships = pgTable(
  "memberships",
  {
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    staffUserId: text("staff_user_id")
      .notNull()
      .references(() => staffUsers.id, { onDelete: "cascade" }),
    role: text("role").notNull().default("admin"), // owner | admin | member
    rights: text("rights")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    active: boolean("active").notNull().default(true),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.staffUserId] })],
);
