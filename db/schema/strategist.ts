import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  date,
  doublePrecision,
  index,
  jsonb,
  pgTable,
  text,
  uniqueIndex,
  uuid,
  type AnyPgColumn,
} from "drizzle-orm/pg-core";
import { integrations } from "./integrations";
import { operations } from "./operations";
import { tenants } from "./tenants";
import { ts } from "./columns";

/**
 * A strategist report. `run_kind` `creative` is never returned; `snapshot`, `model`, `cost_minor` are
 * internal; `competitor_names` are masked wherever they appear in the texts.
 */
export const strategistReports = pgTable(
  "strategist_reports",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    /** Test mode: false for a row of the tenant's sandbox (spec "Me" `key.mode`; DESIGN "Test mode"). */
    livemode: boolean("livemode").notNull().default(true),
    reportDate: date("report_date", { mode: "string" }).notNull(),
    reportType: text("report_type").notNull(), // daily | weekly
    runKind: text("run_kind").notNull().default("regular"), // regular | creative
    summaryText: text("summary_text"),
    dataAsOf: jsonb("data_as_of").$type<Record<string, string>>().notNull(),
    highlights: jsonb("highlights").$type<Record<string, unknown>[]>().notNull(),
    concerns: jsonb("concerns").$type<Record<string, unknown>[]>().notNull(),
    actions: jsonb("actions").$type<Record<string, unknown>[]>().notNull(),
    evidence: jsonb("evidence").$type<Record<string, unknown>>().notNull(),
    snapshot: jsonb("snapshot"),
    model: text("model"),
    costMinor: bigint("cost_minor", { mode: "bigint" }),
    competitorNames: text("competitor_names").array(),
    deliveredAt: ts("delivered_at"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [index("strategist_reports_tenant_idx").on(t.tenantId, t.livemode, t.createdAt, t.id)],
);

/** A topic proposed by the strategist; `competitor_domain` is never returned. */
export const strategistTopics = pgTable(
  "strategist_topics",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    /** Test mode: false for a row of the tenant's sandbox (spec "Me" `key.mode`; DESIGN "Test mode"). */
    livemode: boolean("livemode").notNull().default(true),
    title: text("title"),
    rationale: text("rationale"),
    trendScore: doublePrecision("trend_score"),
    source: text("source").notNull(),
    status: text("status").notNull().default("proposed"),
    clusterId: text("cluster_id"),
    generatedArticleId: uuid("generated_article_id"),
    competitorDomain: text("competitor_domain"),
    proposedAt: ts("proposed_at"),
    decidedAt: ts("decided_at"),
    expiresAt: ts("expires_at"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  // The list order of GET /strategist/topics: trend_score descending with unscored last, then id descending.
  (t) => [
    index("strategist_topics_tenant_idx").on(
      t.tenantId,
      t.livemode,
      t.trendScore.desc().nullsLast(),
      t.id.desc().nullsFirst(),
    ),
  ],
);

/** A strategist chat session; `integration_id` null = a staff session (its actions are not visible to the API). */
export const strategistSessions = pgTable("strategist_sessions", {
  id: uuid("id").primaryKey().defaultRandom(),
  tenantId: uuid("tenant_id")
    .notNull()
    .references(() => tenants.id, { onDelete: "cascade" }),
  /** Test mode: false for a row of the tenant's sandbox (spec "Me" `key.mode`; DESIGN "Test mode"). */
  livemode: boolean("livemode").notNull().default(true),
  integrationId: uuid("integration_id").references(() => integrations.id, { onDelete: "cascade" }),
  staffUserId: text("staff_user_id"),
  createdAt: ts("created_at").notNull().defaultNow(),
});

/** An action the strategist proposed in a session. */
export const strategistActions = pgTable(
  "strategist_actions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    /** Test mode: false for a row of the tenant's sandbox (spec "Me" `key.mode`; DESIGN "Test mode"). */
    livemode: boolean("livemode").notNull().default(true),
    sessionId: uuid("session_id").references(() => strategistSessions.id, { onDelete: "cascade" }),
    /** The chat turn that proposed it (issue 73); null for a seeded or staff-less one. */
    turnId: uuid("turn_id").references((): AnyPgColumn => strategistTurns.id, { onDelete: "set null" }),
    type: text("type").notNull().default("propose_topic"),
    title: text("title"),
    /** What confirming creates (a `propose_topic`'s topic): rationale, trend score, cluster. */
    proposal: jsonb("proposal").$type<{
      rationale: string | null;
      trend_score: number | null;
      cluster_id: string | null;
    }>(),
    status: text("status").notNull().default("proposed"),
    result: jsonb("result").$type<{ topic_id: string }>(),
    error: jsonb("error").$type<{ code: string; message: string }>(),
    createdAt: ts("created_at").notNull().defaultNow(),
    decidedAt: ts("decided_at"),
    expiresAt: ts("expires_at"),
  },
  // GET /strategist/actions lists a tenant's actions newest first.
  (t) => [
    index("strategist_actions_session_idx").on(t.sessionId, t.createdAt, t.id),
    index("strategist_actions_tenant_idx").on(t.tenantId, t.livemode, t.createdAt, t.id),
  ],
);

/**
 * One turn of a strategist chat session (issue 73 item 2): the user's `content`, the strategist's `reply`
 * once its paid operation (`strategist.turn`) succeeded, its `usage`, or its `error` when it failed. At most
 * one unfinished (`queued`/`running`) turn per session: the partial unique index refuses a second.
 */
export const strategistTurns = pgTable(
  "strategist_turns",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    /** Test mode: false for a row of the tenant's sandbox (spec "Me" `key.mode`; DESIGN "Test mode"). */
    livemode: boolean("livemode").notNull().default(true),
    sessionId: uuid("session_id")
      .notNull()
      .references(() => strategistSessions.id, { onDelete: "cascade" }),
    // No cascade, as a generation job's: a sandbox reset deletes test-mode operations with their turns.
    operationId: uuid("operation_id")
      .notNull()
      .references(() => operations.id),
    /** The console click's key: a repeat of the click answers this turn (no second charge). */
    consoleKey: text("console_key"),
    content: text("content").notNull(),
    status: text("status").notNull().default("queued"), // queued | running | succeeded | failed
    reply: text("reply"),
    usage: jsonb("usage").$type<{ cost: { amount: string; currency: string }; model: string }>(),
    error: jsonb("error").$type<{ code: string; message: string }>(),
    createdAt: ts("created_at").notNull().defaultNow(),
    completedAt: ts("completed_at"),
  },
  (t) => [
    index("strategist_turns_session_idx").on(t.sessionId, t.createdAt, t.id),
    index("strategist_turns_operation_idx").on(t.operationId),
    // One turn at a time per session (issue 73 item 2): a second unfinished turn cannot be written.
    uniqueIndex("strategist_turns_one_open_idx")
      .on(t.sessionId)
      .where(sql`${t.status} in ('queued', 'running')`),
    uniqueIndex("strategist_turns_console_key_idx").on(t.sessionId, t.consoleKey),
  ],
);
