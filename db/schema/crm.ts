import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  index,
  integer,
  json,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { contacts, conversations } from "./conversations";
import { tenants } from "./tenants";
import { ts } from "./columns";

/** A CRM lead (spec "Lead"). `version` increments on every change; the etag derives from it. */
export const leads = pgTable(
  "leads",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    /** Test mode: false for a row of the tenant's sandbox (spec "Me" `key.mode`; DESIGN "Test mode"). */
    livemode: boolean("livemode").notNull().default(true),
    externalId: text("external_id"),
    externalUrl: text("external_url"),
    version: integer("version").notNull().default(1),
    status: text("status").notNull().default("new"),
    archived: boolean("archived").notNull().default(false),
    archivedReason: text("archived_reason"),
    owner: text("owner").notNull().default("internal"),
    title: text("title"),
    source: text("source"),
    assignedTo: text("assigned_to"),
    productId: text("product_id"),
    courseSlug: text("course_slug"),
    conversationId: uuid("conversation_id").references(() => conversations.id, { onDelete: "set null" }),
    intent: text("intent"),
    aiSummary: text("ai_summary"),
    nextAction: text("next_action"),
    lostReason: text("lost_reason"),
    valueMinor: bigint("value_minor", { mode: "bigint" }),
    valueCurrency: text("value_currency"),
    contactId: uuid("contact_id").references(() => contacts.id, { onDelete: "set null" }),
    attribution: jsonb("attribution").$type<Record<string, string | null>>(),
    score: jsonb("score").$type<Record<string, unknown>>(),
    flags: jsonb("flags").$type<Record<string, boolean | null>>(),
    // What the API answers for the three sub-objects above, written by the trigger `lead_answer_fields`
    // (migration 0015) on every insert and on every update of them: read field by field by their
    // documented types, keys in the spec's order. Never written by the app; `lead_answer_text` (migration
    // 0016) copies them into `api_tail`, so an update of other columns does not read the jsonb again.
    attributionApi: json("attribution_api"),
    scoreApi: json("score_api"),
    flagsApi: json("flags_api"),
    /**
     * The lead's strong entity tag, `"<version>-<22 base64url chars of sha256(id:version)>"` (spec
     * "Lead": `etag`). The `::bytea` cast reads backslashes as escapes; a uuid's text and digits have none.
     */
    etag: text("etag")
      .notNull()
      .generatedAlwaysAs(
        sql`'"' || version::text || '-' || left(translate(encode(sha256((id::text || ':' || version::text)::bytea), 'base64'), '+/', '-_'), 22) || '"'`,
      ),
    // The lead as the API answers it (spec "Lead"), in three texts around the two values a read adds:
    // `api_head` ends at `"etag":`, `api_middle` runs from `,"status":` to `"contact":` and `api_tail` from
    // `,"attribution":` to the closing brace. Written by the trigger `lead_answer_text` (migration 0016) on
    // every insert and update; never by the app. See server/services/leads/lead-view.ts `LEAD_SELECT`.
    apiHead: text("api_head"),
    apiMiddle: text("api_middle"),
    apiTail: text("api_tail"),
    nextActionAt: ts("next_action_at"),
    qualifiedAt: ts("qualified_at"),
    wonAt: ts("won_at"),
    lostAt: ts("lost_at"),
    lastActivityAt: ts("last_activity_at"),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [index("leads_tenant_updated_idx").on(t.tenantId, t.livemode, t.archived, t.updatedAt, t.id)],
);

/**
 * One paid scoring of a lead (issue 70, `POST /leads/{id}/score`): what the scorer answered, the features it
 * read and what it cost. The lead's `score` and `flags` carry the latest; these rows are its history and the
 * resource an idempotent replay of the scoring is rebuilt from (the same score, no second charge).
 */
export const leadScores = pgTable(
  "lead_scores",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    livemode: boolean("livemode").notNull().default(true),
    leadId: uuid("lead_id")
      .notNull()
      .references(() => leads.id, { onDelete: "cascade" }),
    /** Who scored: the integration (API) or the staff user (console's Score button); exactly one is set. */
    integrationId: uuid("integration_id"),
    staffUserId: text("staff_user_id"),
    /**
     * The console's per-click key of a staff scoring (a client-made UUID, no secret): a repeat of the click
     * answers this row and charges nothing again; the unique index settles two racing repeats.
     */
    consoleKey: text("console_key"),
    /** The paid operation that held and charged the cost (operations.id); null for an unpaid scoring. */
    operationId: uuid("operation_id"),
    score: integer("score").notNull(),
    grade: text("grade").notNull(),
    reason: text("reason").notNull(),
    flags: jsonb("flags").$type<{ buy_intent: boolean; support: boolean; supplier: boolean }>().notNull(),
    /** Each feature's points as the scorer weighed them (lead-scorer.ts), for the console's explanation. */
    features: jsonb("features").$type<Record<string, number>>().notNull(),
    source: text("source").notNull(),
    model: text("model").notNull(),
    /** Cost charged, RUB minor units (0 for a test key without the sandbox). */
    costMinor: bigint("cost_minor", { mode: "bigint" }).notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    index("lead_scores_lead_idx").on(t.tenantId, t.livemode, t.leadId, t.createdAt),
    uniqueIndex("lead_scores_console_key_idx")
      .on(t.tenantId, t.livemode, t.leadId, t.staffUserId, t.consoleKey)
      .where(sql`console_key is not null`),
  ],
);

/**
 * The timeline of a lead's changes (issue 70): one row per new version written by the API, the console or
 * a scoring: which fields changed, the status move if any, and who changed it (an actor label, no personal data).
 */
export const leadChanges = pgTable(
  "lead_changes",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    livemode: boolean("livemode").notNull().default(true),
    leadId: uuid("lead_id")
      .notNull()
      .references(() => leads.id, { onDelete: "cascade" }),
    /** The lead's version this change produced. */
    version: integer("version").notNull(),
    /** `created`, `updated` or `scored`. */
    kind: text("kind").notNull(),
    fields: text("fields").array().notNull(),
    fromStatus: text("from_status"),
    toStatus: text("to_status"),
    actor: text("actor").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [index("lead_changes_lead_idx").on(t.tenantId, t.livemode, t.leadId, t.version)],
);

/**
 * The tenant's map of an external CRM's statuses to the six canonical ones (issue 70, `PUT /crm/status-map`),
 * one row per tenant and mode: `{"<external status>": "<canonical>"}`, at most 200 entries.
 */
export const crmStatusMaps = pgTable(
  "crm_status_maps",
  {
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    livemode: boolean("livemode").notNull().default(true),
    map: jsonb("map").$type<Record<string, string>>().notNull(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.livemode] })],
);
