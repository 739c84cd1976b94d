import { boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { ts } from "./columns";
import { articles } from "./content";
import { operations } from "./operations";
import { strategistTopics } from "./strategist";
import { tenants } from "./tenants";

/**
 * A tenant's editorial profile (issue 72; spec "Articles: planned routes"), one per tenant and mode: what
 * generated articles are about and how they read. No row = an empty profile (generation answers 409
 * `editorial_profile_required`). Arrays are stored as JSON arrays of strings.
 */
export const editorialProfiles = pgTable(
  "editorial_profiles",
  {
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    /** Test mode: false for the sandbox's profile (DESIGN "Test mode"). */
    livemode: boolean("livemode").notNull().default(true),
    niche: text("niche"),
    audience: text("audience"),
    tone: text("tone"),
    presentation: text("presentation"),
    topicSources: jsonb("topic_sources").$type<string[]>().notNull().default([]),
    sourceUrls: jsonb("source_urls").$type<string[]>().notNull().default([]),
    avoid: jsonb("avoid").$type<string[]>().notNull().default([]),
    exampleText: text("example_text"),
    locale: text("locale"),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.livemode] })],
);

/**
 * One ordered article generation (issue 72; spec "Operation" resource `generation_job`): made with its paid
 * operation `article.generation` in one transaction, run by the operation engine, finished in the
 * operation's finishing transaction. `status` follows the operation: `queued`, `running`, `succeeded`,
 * `failed`. `topic_previous_status` is what the topic returns to when the generation fails.
 */
export const generationJobs = pgTable(
  "generation_jobs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    livemode: boolean("livemode").notNull().default(true),
    // No cascade: a sandbox reset deletes test-mode operations, and a live job (a test key's without the
    // sandbox) must not go with its operation (sandbox-tables.ts keeps that operation).
    operationId: uuid("operation_id")
      .notNull()
      .references(() => operations.id),
    /** The integration or staff member who ordered it (the operation says the same). */
    integrationId: uuid("integration_id"),
    staffUserId: text("staff_user_id"),
    /** The console click's key: a repeat of the click answers this job (no second charge). */
    consoleKey: text("console_key"),
    topicId: uuid("topic_id").references(() => strategistTopics.id, { onDelete: "set null" }),
    topicPreviousStatus: text("topic_previous_status"),
    keyword: text("keyword"),
    title: text("title"),
    locale: text("locale"),
    targetWords: integer("target_words").notNull(),
    status: text("status").notNull().default("queued"),
    articleId: uuid("article_id").references(() => articles.id, { onDelete: "set null" }),
    error: jsonb("error").$type<{ code: string; message: string }>(),
    usage: jsonb("usage").$type<{ cost: { amount: string; currency: string }; model: string }>(),
    createdAt: ts("created_at").notNull().defaultNow(),
    completedAt: ts("completed_at"),
  },
  (t) => [
    index("generation_jobs_tenant_idx").on(t.tenantId, t.livemode, t.createdAt),
    index("generation_jobs_operation_idx").on(t.operationId),
    // A console click answered twice (a double click, a retry) makes one job: the second insert fails here.
    uniqueIndex("generation_jobs_console_key_idx").on(t.tenantId, t.staffUserId, t.consoleKey),
  ],
);
