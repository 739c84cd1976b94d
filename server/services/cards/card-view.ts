import { sql } from "drizzle-orm";
import { isoText } from "@/db/iso-text";
import { products } from "@/db/schema";
import type { Card } from "@/server/schemas/cards";
import { expandSiteAddress } from "./card-addresses";
import { formatPrice } from "./price-text";

/** A products row as drizzle reads it. */
export type ProductRow = typeof products.$inferSelect;

/**
 * A card as stored, under the spec's Card names; what {@link renderCard} shapes: `price_text` as set (null
 * when unset), `price_minor` the product price in minor units as decimal text, `page_url` and `buttons`
 * as the client sent them, timestamps ISO Z.
 */
export type CardRecord = Card & { price_minor: string | null; currency: string | null };

/**
 * One card as JSON text built by PostgreSQL; `JSON.parse` of it is the {@link CardRecord} (`price_minor` as
 * text, so a bigint stays exact). A card page parses one text per row instead of drizzle's per-column row
 * mapping (issue 22; the leads page's reason, server/services/leads/lead-view.ts `LEAD_JSON`).
 */
export const CARD_JSON = sql<string>`json_build_object(
  'id', ${products.id}, 'code', ${products.code}, 'name', ${products.name},
  'description', ${products.description}, 'image_url', ${products.imageUrl}, 'price_text', ${products.priceText},
  'price_minor', ${products.priceMinor}::text, 'currency', ${products.currency}, 'badge', ${products.badge},
  'page_url', ${products.pageUrl}, 'buttons', ${products.buttons}, 'ai_enabled', ${products.aiEnabled},
  'sort', ${products.sort}, 'active', ${products.active}, 'created_at', ${isoText(products.createdAt)},
  'updated_at', ${isoText(products.updatedAt)})::text`;

/** A product row (drizzle's) → its CardRecord; the row must have a card (`code` set). */
function recordOf(p: ProductRow): CardRecord {
  return {
    id: p.id,
    code: p.code!,
    name: p.name,
    description: p.description,
    image_url: p.imageUrl,
    price_text: p.priceText,
    price_minor: p.priceMinor === null ? null : String(p.priceMinor),
    currency: p.currency,
    badge: p.badge,
    page_url: p.pageUrl,
    buttons: p.buttons,
    ai_enabled: p.aiEnabled,
    sort: p.sort,
    active: p.active,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

/** A CardRecord → the spec's Card: addresses expanded, price text derived from the product price when unset. */
export function renderCard(r: CardRecord, mainDomain: string | null, cell: string): Card {
  return {
    id: r.id,
    code: r.code,
    name: r.name,
    description: r.description,
    image_url: r.image_url,
    price_text:
      r.price_text ??
      (r.price_minor !== null && r.currency ? formatPrice(BigInt(r.price_minor), r.currency, cell) : null),
    badge: r.badge,
    page_url: expandSiteAddress(r.page_url, mainDomain),
    buttons: r.buttons.map((b) => ({ label: b.label, url: expandSiteAddress(b.url, mainDomain)! })),
    ai_enabled: r.ai_enabled,
    sort: r.sort,
    active: r.active,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** A product row (drizzle's) → the spec's Card; see {@link renderCard}. */
export function toCard(p: ProductRow, mainDomain: string | null, cell: string): Card {
  return renderCard(recordOf(p), mainDomain, cell);
}
