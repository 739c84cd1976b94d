import { sql } from "drizzle-orm";
import { bigint, boolean, date, index, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { integrations } from "./integrations";
import { tenants } from "./tenants";
import { ts } from "./columns";

/** The tenant's wallet (live, or its sandbox's with `livemode` false), always in RUB minor units (kopecks) whatever the cell. */
export const wallets = pgTable(
  "wallets",
  {
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    /** Test mode: false for a row of the tenant's sandbox (spec "Me" `key.mode`; DESIGN "Test mode"). */
    livemode: boolean("livemode").notNull().default(true),
    balanceMinor: bigint("balance_minor", { mode: "bigint" })
      .notNull()
      .default(sql`0`),
    blocked: boolean("blocked").notNull().default(false),
    /** Sum of open holds of paid operations (DESIGN "Money"); available balance = balance - held. */
    heldMinor: bigint("held_minor", { mode: "bigint" })
      .notNull()
      .default(sql`0`),
    /** Tenant daily spend limit (UTC day), RUB minor units; null = none. */
    dailySpendLimitMinor: bigint("daily_spend_limit_minor", { mode: "bigint" }),
    /** Maximum cost of one paid operation, RUB minor units (spec "Limits": 100 RUB by default). */
    maxOperationCostMinor: bigint("max_operation_cost_minor", { mode: "bigint" })
      .notNull()
      .default(sql`10000`),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  // One live wallet and one sandbox wallet (10,000.00 RUB at seeding) per tenant.
  (t) => [primaryKey({ columns: [t.tenantId, t.livemode] })],
);

/** Every change of a wallet, written in the same transaction as the balance. */
export const walletLedger = pgTable(
  "wallet_ledger",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    /** Test mode: false for a row of the tenant's sandbox (spec "Me" `key.mode`; DESIGN "Test mode"). */
    livemode: boolean("livemode").notNull().default(true),
    kind: text("kind").notNull(), // credit | debit | topup | charge | block | unblock | hold | release
    amountMinor: bigint("amount_minor", { mode: "bigint" }).notNull(), // signed
    /** Change of the open holds: + on `hold`, - on `charge` and `release`; their sum equals `wallets.held_minor`. */
    holdMinor: bigint("hold_minor", { mode: "bigint" })
      .notNull()
      .default(sql`0`),
    /** The paid operation a `hold`, `charge` or `release` belongs to. */
    operationId: uuid("operation_id"),
    balanceAfterMinor: bigint("balance_after_minor", { mode: "bigint" }).notNull(),
    integrationId: uuid("integration_id").references(() => integrations.id, { onDelete: "set null" }),
    description: text("description"),
    actor: text("actor").notNull(), // operator | staff:<id> | integration:<id> | system
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [index("wallet_ledger_tenant_idx").on(t.tenantId, t.livemode, t.createdAt, t.id)],
);

/** Money spent by an integration on one UTC day, RUB minor units. */
export const integrationDailySpend = pgTable(
  "integration_daily_spend",
  {
    integrationId: uuid("integration_id")
      .notNull()
      .references(() => integrations.id, { onDelete: "cascade" }),
    /** Test mode: sandbox spend is counted apart from live spend. */
    livemode: boolean("livemode").notNull().default(true),
    day: date("day", { mode: "string" }).notNull(),
    usedMinor: bigint("used_minor", { mode: "bigint" })
      .notNull()
      .default(sql`0`),
  },
  (t) => [primaryKey({ columns: [t.integrationId, t.livemode, t.day] })],
);
