import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { channels } from "./integrations";
import { tenants } from "./tenants";
import { ts } from "./columns";

/** A customer of the tenant (LeadContact fields). */
export const contacts = pgTable(
  "contacts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    /** Test mode: false for a row of the tenant's sandbox (spec "Me" `key.mode`; DESIGN "Test mode"). */
    livemode: boolean("livemode").notNull().default(true),
    firstName: text("first_name"),
    lastName: text("last_name"),
    email: text("email"),
    phone: text("phone"),
    tags: text("tags")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    geoCountry: text("geo_country"),
    geoCity: text("geo_city"),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [index("contacts_tenant_idx").on(t.tenantId, t.livemode)],
);

/**
 * A conversation. `kind` `personal_mailbox` and `student_cabinet` are never returned by the API
 * (spec general fact 6); `channel_type` copies the channel's type for filtering and the answer.
 */
export const conversations = pgTable(
  "conversations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    /** Test mode: false for a row of the tenant's sandbox (spec "Me" `key.mode`; DESIGN "Test mode"). */
    livemode: boolean("livemode").notNull().default(true),
    channelId: uuid("channel_id").references(() => channels.id, { onDelete: "set null" }),
    channelType: text("channel_type"),
    kind: text("kind").notNull().default("customer"), // customer | personal_mailbox | student_cabinet
    contactId: uuid("contact_id").references(() => contacts.id, { onDelete: "set null" }),
    externalCustomerId: text("external_customer_id"),
    status: text("status").notNull().default("open"), // open | handoff_pending | resolved | closed
    mode: text("mode").notNull().default("ai"), // ai | operator
    language: text("language"),
    createdAt: ts("created_at").defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    index("conversations_tenant_updated_idx").on(t.tenantId, t.livemode, t.updatedAt, t.id),
    // POST /conversations finds a customer's conversation in the `api` channel by its external id.
    index("conversations_channel_customer_idx").on(t.channelId, t.externalCustomerId),
  ],
);

/** A card copied into a message at send time (MessageCard), addresses already expanded. */
export interface MessageCardCopy {
  code: string;
  name: string;
  description: string | null;
  image_url: string | null;
  price_text: string | null;
  badge: string | null;
  page_url: string | null;
  buttons: { label: string; url: string }[];
}

/**
 * A message. `internal` marks operator notes (never returned); `deleted_at` makes a tombstone;
 * `cards` holds the copies sent by `POST /conversations/{id}/cards`.
 */
export const messages = pgTable(
  "messages",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    /** Test mode: false for a row of the tenant's sandbox (spec "Me" `key.mode`; DESIGN "Test mode"). */
    livemode: boolean("livemode").notNull().default(true),
    conversationId: uuid("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    sender: text("sender").notNull(), // customer | ai | operator | system
    contentType: text("content_type").notNull().default("text"),
    content: text("content"),
    internal: boolean("internal").notNull().default(false),
    cards: jsonb("cards").$type<MessageCardCopy[]>(),
    deliveryStatus: text("delivery_status"),
    /** Customer messages of the write routes: `replied` | `queued` | `skipped` (spec `ai_reply.status`). */
    aiReplyStatus: text("ai_reply_status"),
    /** Why the AI did not answer (spec skip reasons), when `ai_reply_status` is `skipped`. */
    aiReplyReason: text("ai_reply_reason"),
    deletedAt: ts("deleted_at"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    index("messages_conversation_idx").on(t.conversationId, t.createdAt, t.id),
    index("messages_tenant_idx").on(t.tenantId, t.livemode, t.createdAt),
  ],
);

/**
 * A file of a message. `storage_path` is in our storage and is served by temporary signed links;
 * `external_url` (a messenger's file address) never leaves the platform.
 */
export const messageAttachments = pgTable(
  "message_attachments",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    /** Test mode: false for a row of the tenant's sandbox (spec "Me" `key.mode`; DESIGN "Test mode"). */
    livemode: boolean("livemode").notNull().default(true),
    messageId: uuid("message_id")
      .notNull()
      .references(() => messages.id, { onDelete: "cascade" }),
    fileName: text("file_name").notNull(),
    mimeType: text("mime_type").notNull(),
    sizeBytes: bigint("size_bytes", { mode: "number" }).notNull(),
    storagePath: text("storage_path"),
    externalUrl: text("external_url"),
    position: integer("position").notNull().default(0),
  },
  (t) => [index("message_attachments_message_idx").on(t.messageId)],
);
