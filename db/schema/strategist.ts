import { bigint, boolean, date, doublePrecision, index, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { integrations } from "./integrations";
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
    type: text("type").notNull().default("propose_topic"),
    title: text("title"),
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
