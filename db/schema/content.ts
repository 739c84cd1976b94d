import { boolean, index, integer, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { tenants } from "./tenants";
import { ts } from "./columns";

/** Publication of an article through a site module (spec "Publication"). */
export interface PublicationRecord {
  /** `none`: handed off to the tenant (preview `articles-writes`, issue 71); v1 answers such a record as null. */
  target: "connector" | "none";
  state: "queued" | "applied" | "skipped" | "conflict" | "failed";
  published_url: string | null;
  error: string | null;
}

/**
 * An SEO article. The body is HTML as stored (`body_html`, cleaned only when read) or an editor
 * document (`body_doc`, converted to HTML when read). `blog` `shared` = the platform's shared blog,
 * never listed for the tenant; a `transferred` article's body lives there.
 */
export const articles = pgTable(
  "articles",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    /** Test mode: false for a row of the tenant's sandbox (spec "Me" `key.mode`; DESIGN "Test mode"). */
    livemode: boolean("livemode").notNull().default(true),
    blog: text("blog").notNull().default("tenant"), // tenant | shared
    title: text("title").notNull(),
    slug: text("slug"),
    status: text("status").notNull().default("draft"),
    locale: text("locale"),
    keyword: text("keyword"),
    metaTitle: text("meta_title"),
    metaDescription: text("meta_description"),
    coverImageUrl: text("cover_image_url"),
    wordCount: integer("word_count").notNull().default(0),
    bodyHtml: text("body_html"),
    bodyDoc: jsonb("body_doc"),
    publication: jsonb("publication").$type<PublicationRecord>(),
    /** Bumped by every change of the article (issue 71); the strong `ETag` is derived from id and version. */
    version: integer("version").notNull().default(1),
    createdAt: ts("created_at").defaultNow(),
    updatedAt: ts("updated_at"),
    publishedAt: ts("published_at"),
  },
  // The list order of GET /articles: updated_at descending with undated last, then id descending.
  (t) => [
    index("articles_tenant_updated_idx").on(
      t.tenantId,
      t.livemode,
      t.updatedAt.desc().nullsLast(),
      t.id.desc().nullsFirst(),
    ),
  ],
);
