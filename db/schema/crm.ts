import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, json, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
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
