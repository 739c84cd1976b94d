import { sql } from "drizzle-orm";
import { boolean, index, integer, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { articles } from "./content";
import { tenants } from "./tenants";
import { ts } from "./columns";

/**
 * A tenant's website that a site connector publishes to (issue 71). The connector authenticates with a
 * token shown once; only its hash is stored (like API keys). `drafts_only` is the site owner's ceiling:
 * a publish request becomes a draft. `last_seen_at` is the connector's last poll (null: never linked).
 */
export const sites = pgTable(
  "sites",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    livemode: boolean("livemode").notNull().default(true),
    domain: text("domain").notNull(),
    draftsOnly: boolean("drafts_only").notNull().default(false),
    connectorTokenHash: text("connector_token_hash").notNull(),
    lastSeenAt: ts("last_seen_at"),
    createdAt: ts("created_at").notNull().defaultNow(),
    revokedAt: ts("revoked_at"),
  },
  (t) => [
    index("sites_tenant_idx").on(t.tenantId, t.livemode, t.createdAt),
    uniqueIndex("sites_token_hash_idx").on(t.connectorTokenHash),
  ],
);

/**
 * One version of an article's publication through a site connector (spec States "Article and
 * publication"): `queued` → claimed under a lease → `applied|skipped|conflict|failed`. A publish of an
 * unchanged article answers its existing job; a changed article gets a new job with its `version`.
 */
export const publicationJobs = pgTable(
  "publication_jobs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    livemode: boolean("livemode").notNull().default(true),
    articleId: uuid("article_id")
      .notNull()
      .references(() => articles.id, { onDelete: "cascade" }),
    siteId: uuid("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    /** The article's version this job sends. */
    version: integer("version").notNull(),
    state: text("state").notNull().default("queued"),
    /** After the site's drafts-only ceiling. */
    publishMode: text("publish_mode").notNull(),
    leaseUntil: ts("lease_until"),
    claimedBy: text("claimed_by"),
    publishedUrl: text("published_url"),
    error: text("error"),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    index("publication_jobs_article_idx").on(t.tenantId, t.livemode, t.articleId, t.createdAt),
    // The connector's claim: due jobs of one site, oldest first.
    index("publication_jobs_site_due_idx")
      .on(t.siteId, t.createdAt)
      .where(sql`${t.state} = 'queued'`),
  ],
);
