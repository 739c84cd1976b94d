import { randomUUID } from "node:crypto";
import { and, eq, isNotNull, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { literalLimit, preparedQuery, preparedRows } from "@/db/prepared";
import { products, tenants } from "@/db/schema";
import { invalidField, notFound } from "@/server/errors";
import { hasErrorCode } from "@/server/lib/error-codes";
import { validationError } from "@/server/lib/validation";
import type { Card, CardCreate, CardUpdate } from "@/server/schemas/cards";
import type { Actor } from "../actor";
import type { RecordCompletion } from "../idempotency/one-statement";
import { livemodeOf, ownedBy } from "../tenant-scope";
import { checkCardAddresses } from "./card-addresses";
import { CARD_FROM, CARD_JSON, cardIdOf, cardText, toCard, type CardRecord, type ProductRow } from "./card-view";

/** Keyset position of a card in the list order: (sort, created_at, id). */
export type CardPosition = [number, string, string];

/**
 * What rendering a card needs of its tenant: the main domain that site paths expand against and the cell
 * that formats prices. @throws ApiError 404 when the tenant is gone.
 */
export async function tenantContext(db: Db, actor: Actor): Promise<{ mainDomain: string | null; cell: string }> {
  // An API caller's tenant was read with its key (authenticate.ts, key cache): no second query.
  if (actor.via === "api" && actor.mainDomain !== undefined) return { mainDomain: actor.mainDomain, cell: actor.cell };
  const tenantId = actor.tenantId;
  const [t] = await db
    .select({ mainDomain: tenants.mainDomain, cell: tenants.cell })
    .from(tenants)
    .where(eq(tenants.id, tenantId));
  if (!t) throw notFound("Tenant");
  return t;
}

/**
 * A page of the actor's cards (its tenant and mode) ordered by `sort`, then creation (`created_at`, `id`),
 * strictly after `after`. Fetches `limit + 1` rows to know whether a next page exists.
 * @returns each card as the JSON text of the spec's Card (`texts`, {@link cardText}) with its id at the
 * same index in `ids`, and the position of the last one when more follow (else null).
 */
export async function listCards(
  db: Db,
  actor: Actor,
  q: { limit: number; aiEnabled?: boolean; after?: CardPosition },
): Promise<{ texts: string[]; ids: string[]; next: CardPosition | null }> {
  const t = await tenantContext(db, actor);
  const ai = q.aiEnabled !== undefined;
  const after = q.after !== undefined;
  const rows = await preparedRows<{ json: string }>(db, `cards:list:${ai}:${after}:${q.limit + 1}`, () => {
    const conds = [
      eq(products.tenantId, sql.placeholder("tenant")),
      eq(products.livemode, sql.placeholder("livemode")),
      isNotNull(products.code),
    ];
    if (ai) conds.push(eq(products.aiEnabled, sql.placeholder("ai")));
    if (after)
      conds.push(
        sql`(${products.sort}, ${products.createdAt}, ${products.id}) > (${sql.placeholder("sort")}, ${sql.placeholder("created")}::timestamptz, ${sql.placeholder("id")}::uuid)`,
      );
    return sql`select ${CARD_JSON} as json from ${CARD_FROM} where ${and(...conds)}
      order by ${products.sort}, ${products.createdAt}, ${products.id} limit ${literalLimit(q.limit + 1)}`;
  }).execute({
    tenant: actor.tenantId,
    livemode: livemodeOf(actor),
    ai: q.aiEnabled,
    sort: q.after?.[0],
    created: q.after?.[1],
    id: q.after?.[2],
  });
  const page = rows.slice(0, q.limit);
  const last = rows.length > q.limit ? (JSON.parse(page[page.length - 1]!.json) as CardRecord) : undefined;
  return {
    texts: page.map((r) => cardText(r.json, t.mainDomain, t.cell)),
    ids: page.map((r) => cardIdOf(r.json)),
    next: last ? [last.sort, last.created_at, last.id] : null,
  };
}

/** The actor's card (its tenant and mode) with `code`, locked for update with `lock`; undefined when there is none. */
async function findByCode(db: Db, actor: Actor, code: string, lock = false): Promise<ProductRow | undefined> {
  const q = db
    .select()
    .from(products)
    .where(and(ownedBy(products, actor), eq(products.code, code)));
  const [row] = await (lock ? q.for("update") : q);
  return row;
}

/**
 * `GET /cards/{code}`.
 * @throws ApiError 404 `not_found` for a missing card, another tenant's, or one of the other mode (live or sandbox).
 */
export async function getCard(db: Db, actor: Actor, code: string): Promise<Card> {
  const row = await findByCode(db, actor, code);
  if (!row) throw notFound(`Card "${code}"`);
  const t = await tenantContext(db, actor);
  return toCard(row, t.mainDomain, t.cell);
}

/** A card by its product id (idempotent replays). @throws ApiError 404 when the card was deleted since. */
export async function getCardById(db: Db, actor: Actor, id: string): Promise<Card> {
  const [row] = await db
    .select()
    .from(products)
    .where(and(ownedBy(products, actor), eq(products.id, id), isNotNull(products.code)));
  if (!row) throw notFound("Card");
  const t = await tenantContext(db, actor);
  return toCard(row, t.mainDomain, t.cell);
}

const isUniqueViolation = (err: unknown) => hasErrorCode(err, "23505"); // unique_violation

const CODE_TAKEN = () => invalidField("/code", "taken", "this code is already used by another card of the account");

/**
 * `POST /cards`: creates a product with a card in the actor's mode (a code is unique per tenant and mode), in
 * one statement. With `completion` (the route runs it
 * under an `Idempotency-Key`), the idempotency record is made or completed in that same statement, so the
 * card and its record commit together without a transaction; the product id is drawn here for the record
 * to name, and the card takes it from the record.
 * @throws ApiError 422 on `/code` when the code is taken, and on address fields per {@link checkCardAddresses};
 *   the database's not-null error when the record's CTE changed no row (see `isKeyUsedBefore`).
 */
export async function createCard(
  db: Db,
  actor: Actor,
  input: CardCreate,
  completion?: RecordCompletion,
): Promise<Card> {
  const t = await tenantContext(db, actor);
  const errors = checkCardAddresses(input, { tenantId: actor.tenantId, mainDomain: t.mainDomain });
  if (errors.length) throw validationError(errors);
  const id = randomUUID();
  // A taken code is the unique index's violation (no lookup first); the statement, and with it the
  // record's completion, then changes nothing (inside a caller's transaction, it aborts that transaction).
  try {
    const [row] = await preparedQuery(db, `cards:create:${completion?.kind ?? "alone"}`, (d) => {
      // Plain placeholders: drizzle encodes each value with its column's encoder (jsonb, uuid).
      const values = {
        // Under a key, the id its record names: no record made or completed, no card (one-statement.ts).
        id: completion ? sql`${completion.resourceId}::uuid` : sql.placeholder("id"),
        tenantId: sql.placeholder("tenant"),
        livemode: sql.placeholder("livemode"),
        code: sql.placeholder("code"),
        name: sql.placeholder("name"),
        description: sql.placeholder("description"),
        imageUrl: sql.placeholder("imageUrl"),
        pageUrl: sql.placeholder("pageUrl"),
        badge: sql.placeholder("badge"),
        priceText: sql.placeholder("priceText"),
        buttons: sql.placeholder("buttons"),
        aiEnabled: sql.placeholder("aiEnabled"),
        sort: sql.placeholder("sort"),
        active: sql.placeholder("active"),
      };
      return (completion ? d.with(completion.cte(d)) : d).insert(products).values(values).returning();
    }).execute({
      id,
      tenant: actor.tenantId,
      livemode: livemodeOf(actor),
      code: input.code,
      name: input.name,
      description: input.description ?? null,
      imageUrl: input.image_url ?? null,
      pageUrl: input.page_url ?? null,
      badge: input.badge ?? null,
      priceText: input.price_text ?? null,
      buttons: input.buttons ?? [],
      aiEnabled: input.ai_enabled ?? false,
      sort: input.sort ?? 0,
      active: input.active ?? true,
      ...completion?.values(id),
    });
    return toCard(row, t.mainDomain, t.cell);
  } catch (err) {
    if (isUniqueViolation(err)) throw CODE_TAKEN();
    throw err;
  }
}

/**
 * `PATCH /cards/{code}`: changes the given fields. Messages already sent keep their copies.
 * @throws ApiError 404 for a missing card, 422 for a taken code or a bad address.
 */
export async function updateCard(db: Db, actor: Actor, code: string, input: CardUpdate): Promise<Card> {
  const current = await findByCode(db, actor, code, true);
  if (!current) throw notFound(`Card "${code}"`);
  const t = await tenantContext(db, actor);
  const errors = checkCardAddresses(input, { tenantId: actor.tenantId, mainDomain: t.mainDomain });
  if (errors.length) throw validationError(errors);
  if (input.code !== undefined && input.code !== code && (await findByCode(db, actor, input.code))) throw CODE_TAKEN();
  const set: Partial<typeof products.$inferInsert> = { updatedAt: sql`now()` as unknown as Date };
  if (input.code !== undefined) set.code = input.code;
  if (input.name !== undefined) set.name = input.name;
  if (input.description !== undefined) set.description = input.description;
  if (input.image_url !== undefined) set.imageUrl = input.image_url;
  if (input.page_url !== undefined) set.pageUrl = input.page_url;
  if (input.badge !== undefined) set.badge = input.badge;
  if (input.price_text !== undefined) set.priceText = input.price_text;
  if (input.buttons !== undefined) set.buttons = input.buttons;
  if (input.ai_enabled !== undefined) set.aiEnabled = input.ai_enabled;
  if (input.sort !== undefined) set.sort = input.sort;
  if (input.active !== undefined) set.active = input.active;
  try {
    const [row] = await db.update(products).set(set).where(eq(products.id, current.id)).returning();
    return toCard(row, t.mainDomain, t.cell);
  } catch (err) {
    if (isUniqueViolation(err)) throw CODE_TAKEN();
    throw err;
  }
}

/**
 * `DELETE /cards/{code}`: removes the card (code, image, buttons, AI access); the product stays.
 * @throws ApiError 404 when there is no such card (also on a repeat).
 */
export async function deleteCard(db: Db, actor: Actor, code: string): Promise<void> {
  const done = await db
    .update(products)
    .set({ code: null, imageUrl: null, buttons: [], aiEnabled: false, updatedAt: sql`now()` as unknown as Date })
    .where(and(ownedBy(products, actor), eq(products.code, code)))
    .returning({ id: products.id });
  if (!done.length) throw notFound(`Card "${code}"`);
}
