import { sql } from "drizzle-orm";
import { products, type MessageCardCopy } from "@/db/schema";
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
 * One card as JSON text, selected from {@link CARD_FROM}: `JSON.parse` of it is the {@link CardRecord}
 * (`price_minor` as text, so a bigint stays exact), the Card's fields in the spec's order, then `price_minor`
 * and `currency` last ({@link cardText} cuts them off, and makes it the Card's JSON text). A card page reads
 * one text per row instead of drizzle's per-column row mapping.
 *
 * The text is written when the row is written, by the trigger `card_answer_text` (migration 0017, the
 * column `api_json`): as `row_to_json` of the row's fields under those names, moments as ISO Z text (the
 * form of db/iso-text.ts `isoText`). Why (issue 22): building it on every read was about 150 µs of a 10-card page's query on
 * the embedded database, where PostgreSQL runs in the app's thread (the same query selecting ids took about
 * 400 µs; PGlite, one query at a time); the leads page's texts are made the same way
 * (server/services/leads/lead-view.ts `LEAD_SELECT`).
 */
export const CARD_JSON = sql<string>`${products.apiJson}`;

/** The FROM list of a card query read with {@link CARD_JSON}. */
export const CARD_FROM = sql`${products}`;

/** A {@link CARD_JSON} text's id: it starts `{"id":"<36 characters of uuid>",`. */
export const cardIdOf = (json: string): string => json.slice(7, 43);

/**
 * A {@link CARD_JSON} text → the JSON text of the spec's Card, as `JSON.stringify(renderCard(...))` would
 * write it but for whitespace-free spacing PostgreSQL shares: the record's `price_minor` and `currency` cut
 * off and, for a card without a price text but with a product price, the derived price text put in.
 *
 * Why texts (issue 22): parsing each card, shaping it and serializing the page again cost a 50-card page
 * about 0.3 ms against 0.08 ms for this splice (a micro-benchmark of the bench's cards). A card whose
 * text may hold a site path to expand (`"/` anywhere: page_url, a button or a storage image) or that has
 * buttons (stored jsonb: its own key order and spacing) goes the long way, {@link renderCard}.
 */
export function cardText(json: string, mainDomain: string | null, cell: string): string {
  // The last `,"price_minor":` is the key: inside a JSON string every `"` is escaped, and only the currency
  // follows it.
  const extras = json.lastIndexOf(',"price_minor":');
  const head = json.slice(0, extras);
  if ((mainDomain !== null && head.includes('"/')) || !head.includes(',"buttons":[],'))
    return JSON.stringify(renderCard(JSON.parse(json) as CardRecord, mainDomain, cell));
  // The first `,"price_text":` is the field's own, for the same reason.
  const at = head.indexOf(',"price_text":') + 14;
  if (!head.startsWith("null,", at)) return `${head}}`;
  const { price_minor: minor, currency } = JSON.parse(`{${json.slice(extras + 1)}`) as Pick<
    CardRecord,
    "price_minor" | "currency"
  >;
  if (minor === null || !currency) return `${head}}`;
  return `${head.slice(0, at)}${JSON.stringify(formatPrice(BigInt(minor), currency, cell))}${head.slice(at + 4)}}`;
}

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

/**
 * The copy of a product's card that a message keeps (MessageCard: what the customer was sent, addresses
 * expanded, later edits of the product not reflected), as `POST /conversations/{id}/cards` and the AI
 * seller's replies store it.
 */
export function messageCardCopy(p: ProductRow, mainDomain: string | null, cell: string): MessageCardCopy {
  const card = toCard(p, mainDomain, cell);
  return {
    code: card.code,
    name: card.name,
    description: card.description,
    image_url: card.image_url,
    price_text: card.price_text,
    badge: card.badge,
    page_url: card.page_url,
    buttons: card.buttons,
  };
}
