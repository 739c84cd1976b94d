import { sql } from "drizzle-orm";
import { bigint, boolean, index, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { staffUsers } from "./auth";
import { ts } from "./columns";

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
  /**
   * When the tenant's sandbox (test mode, preview `test-mode`) was last seeded with sample data
   * (server/services/sandbox): null until a test key of the tenant is first used with the preview on;
   * `sandbox:reset` (and the console's "Reset test data") seeds it again and sets it anew.
   */
  sandboxSeededAt: ts("sandbox_seeded_at"),
  /** Money balance below which the wallet reports `low`, RUB minor units. */
  lowBalanceMinor: bigint("low_balance_minor", { mode: "bigint" })
    .notNull()
    .default(sql`100000`),
  createdAt: ts("created_at").notNull().defaultNow(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

/** A staff user's membership in a tenant, with the rights that also cut the scopes of integrations they own. */
export const memberships = pgTable(
  "memberships",
  {
    /** The sign-in library's member id (organization plugin "member"), by which it updates and removes. */
    id: text("id")
      .notNull()
      .unique()
      .default(sql`gen_random_uuid()::text`),
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
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.staffUserId] })],
);

/**
 * An invitation to join a tenant's team (better-auth organization plugin "invitation"): the invited email,
 * the rights the membership will carry, `pending` until accepted, canceled (revoked) or past `expires_at`.
 * Its id names it in the console (listing, revoking) and is no secret; the link's secret is a separate
 * random token, mailed to the invited address only and kept here as its SHA-256 (issue 76 item 2).
 */
export const staffInvitations = pgTable(
  "staff_invitations",
  {
    id: text("id").primaryKey(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    /** The plugin's role of the membership to be (`member`); what the member may do is `rights`. */
    role: text("role"),
    rights: text("rights")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    status: text("status").notNull().default("pending"), // pending | accepted | rejected | canceled
    expiresAt: ts("expires_at").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    /** Staff user who invited; null when an operator invited with the CLI. */
    inviterId: text("inviter_id").references(() => staffUsers.id, { onDelete: "set null" }),
    /**
     * SHA-256 (hex) of the link's secret token (`/console/invitations/<token>`); the token itself is never
     * stored. Null for invitations made before the token existed: no link opens those.
     */
    secretHash: text("secret_hash").unique(),
  },
  (t) => [index("staff_invitations_tenant_idx").on(t.tenantId), index("staff_invitations_email_idx").on(t.email)],
);
