import { sql } from "drizzle-orm";
import { bigint, boolean, index, pgTable, primaryKey, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { tenants } from "./tenants";
import { walletLedger } from "./wallet";
import { ts } from "./columns";

/**
 * A wallet top-up paid through a provider (DESIGN "Money"): `pending` until a verified notification or
 * a status check settles it `succeeded` (credited once, `ledger_id` names the `topup` row) or `canceled`.
 */
export const payments = pgTable(
  "payments",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    /** Test mode: false for a row of the tenant's sandbox (spec "Me" `key.mode`; DESIGN "Test mode"). */
    livemode: boolean("livemode").notNull().default(true),
    amountMinor: bigint("amount_minor", { mode: "bigint" }).notNull(), // RUB kopecks, > 0
    currency: text("currency").notNull().default("RUB"),
    provider: text("provider").notNull(), // sandbox | yookassa | stripe
    providerPaymentId: text("provider_payment_id"), // set once the provider made the checkout
    idempotencyKey: text("idempotency_key").notNull(),
    status: text("status").notNull().default("pending"), // pending | succeeded | canceled
    confirmationUrl: text("confirmation_url"),
    staffUserId: text("staff_user_id").notNull(), // who started it (staff_users.id; kept if the user goes)
    ledgerId: uuid("ledger_id").references(() => walletLedger.id, { onDelete: "set null" }),
    createdAt: ts("created_at").notNull().defaultNow(),
    settledAt: ts("settled_at"),
  },
  (t) => [
    uniqueIndex("payments_provider_payment_uq").on(t.provider, t.providerPaymentId),
    uniqueIndex("payments_idempotency_uq").on(t.idempotencyKey),
    index("payments_tenant_idx").on(t.tenantId, t.livemode, t.createdAt, t.id),
  ],
);

/** Provider notifications already handled, by the provider's event id (Stripe resends events). */
export const paymentEvents = pgTable(
  "payment_events",
  {
    provider: text("provider").notNull(),
    eventId: text("event_id").notNull(),
    receivedAt: ts("received_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.eventId] })],
);

/**
 * The built-in sandbox provider's own side (what a real provider keeps at its end): the outcome the
 * payer chose on the test checkout page, read back by status checks like any provider's API.
 */
export const sandboxCheckouts = pgTable("sandbox_checkouts", {
  id: uuid("id").primaryKey(), // = payments.id; the sandbox's payment id
  amountMinor: bigint("amount_minor", { mode: "bigint" }).notNull(),
  status: text("status")
    .notNull()
    .default(sql`'pending'`), // pending | succeeded | canceled
  updatedAt: ts("updated_at").notNull().defaultNow(),
});
