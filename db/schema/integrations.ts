import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { staffUsers } from "./auth";
import { tenants } from "./tenants";
import { ts } from "./columns";

/** A service account of a tenant; its API keys act as it. */
export const integrations = pgTable(
  "integrations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    status: text("status").notNull().default("active"), // active | suspended | revoked
    role: text("role").notNull().default("full"),
    scopes: text("scopes")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** Staff user whose current rights also cut the scopes; null = created by platform operators. */
    ownerStaffUserId: text("owner_staff_user_id").references(() => staffUsers.id, { onDelete: "set null" }),
    piiCountry: text("pii_country"), // ISO 3166-1 alpha-2 of the receiving system
    legalBasis: text("legal_basis"),
    /** Addresses and CIDR networks every key of this integration is limited to; null = any. */
    ipAllowlist: text("ip_allowlist").array(),
    /** Daily spend limit of this integration in RUB minor units; null = none. */
    dailySpendLimitMinor: bigint("daily_spend_limit_minor", { mode: "bigint" }),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [index("integrations_tenant_idx").on(t.tenantId)],
);

/** A channel through which conversations arrive; each integration has one of type `api`. */
export const channels = pgTable(
  "channels",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    type: text("type").notNull(), // api | telegram | website | vk | max | ...
    name: text("name").notNull(),
    integrationId: uuid("integration_id").references(() => integrations.id, { onDelete: "cascade" }),
    aiDailyLimit: integer("ai_daily_limit").notNull().default(200),
    /** The AI seller answers customers of this channel; false = `no_agent`. */
    aiEnabled: boolean("ai_enabled").notNull().default(true),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    index("channels_tenant_idx").on(t.tenantId),
    uniqueIndex("channels_api_integration_uq")
      .on(t.integrationId)
      .where(sql`type = 'api'`),
  ],
);

/** An API key. Only the SHA-256 of its secret part is stored; `key_id` is public. */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    keyId: text("key_id").notNull().unique(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    integrationId: uuid("integration_id")
      .notNull()
      .references(() => integrations.id, { onDelete: "cascade" }),
    mode: text("mode").notNull(), // live | test
    /** What the tenant calls this key in the console (e.g. "shop backend"); null = unnamed. */
    name: text("name"),
    secretHash: text("secret_hash").notNull(), // hex SHA-256 of the secret part
    expiresAt: ts("expires_at").notNull(),
    ipAllowlist: text("ip_allowlist").array(),
    revokedAt: ts("revoked_at"),
    /**
     * Staff user who issued (or rolled) the key in the console; null = issued by platform operators (CLI,
     * demo seed). The key's effective scopes are also cut by this member's current rights in the tenant, and
     * the key stops (401 `integration_inactive`) when that membership ends (issue 76 item 1). No foreign key
     * on purpose: a null here would mean "not cut", so the id must outlive the user row; removing the
     * membership revokes the key (trigger `revoke_keys_of_removed_issuer`).
     */
    issuedByStaffUserId: text("issued_by_staff_user_id"),
    /** `key_id` of the key this one was rolled to (server/services/keys/key-roll.ts); null = never rolled. */
    replacedBy: text("replaced_by"),
    lastUsedAt: ts("last_used_at"),
    /** The caller's address of the request that last used the key (written with the request log, batched). */
    lastUsedAddress: text("last_used_address"),
    /** When the 30-day `api_key.expiring` notice was recorded (server/jobs/key-expiry.ts); null = not yet. */
    expiryWarned30At: ts("expiry_warned_30_at"),
    /** When the 7-day `api_key.expiring` notice was recorded; null = not yet. */
    expiryWarned7At: ts("expiry_warned_7_at"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    index("api_keys_integration_idx").on(t.integrationId),
    index("api_keys_issuer_idx").on(t.tenantId, t.issuedByStaffUserId),
  ],
);
