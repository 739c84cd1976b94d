import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { tenants } from "./tenants";
import { ts } from "./columns";

/** A button of a card as stored: `url` as the client sent it (a site path is expanded when read). */
export interface StoredButton {
  label: string;
  url: string;
}

/**
 * A product of the tenant's catalog. It has a card while `code` is set; deleting the card clears the
 * card-only columns (code, image, buttons, AI access) and keeps the product.
 */
export const products = pgTable(
  "products",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    /** Test mode: false for a row of the tenant's sandbox (spec "Me" `key.mode`; DESIGN "Test mode"). */
    livemode: boolean("livemode").notNull().default(true),
    name: text("name").notNull(),
    description: text("description"),
    priceMinor: bigint("price_minor", { mode: "bigint" }),
    currency: text("currency"),
    priceText: text("price_text"),
    badge: text("badge"),
    pageUrl: text("page_url"),
    sort: integer("sort").notNull().default(0),
    active: boolean("active").notNull().default(true),
    code: text("code"),
    imageUrl: text("image_url"),
    buttons: jsonb("buttons")
      .$type<StoredButton[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    aiEnabled: boolean("ai_enabled").notNull().default(false),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
    // The card's JSON record (server/services/cards/card-view.ts `CARD_JSON`), written by the trigger
    // `card_answer_text` (migration 0017) whenever the row is written; never written by the app.
    apiJson: text("api_json"),
  },
  (t) => [
    uniqueIndex("products_tenant_code_uq")
      .on(t.tenantId, t.livemode, t.code)
      .where(sql`code is not null`),
    index("products_cards_order_idx")
      .on(t.tenantId, t.livemode, t.sort, t.createdAt, t.id)
      .where(sql`code is not null`),
  ],
);
