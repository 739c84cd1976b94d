import { Paginated } from "../paginate.js";
import type { Card, CardCreate, CardListQuery, CardUpdate } from "../types.js";
import { keyOf, unwrap, type CallOptions, type Context, type WriteOptions } from "./context.js";

/** Product cards (spec "Cards"; scopes `cards:read`, `cards:write`), addressed by `code`. */
export function cardsResource(ctx: Context) {
  return {
    /** `GET /cards`, by `sort` then creation (`limit` 1-100, default 50); every page. */
    list: (query: CardListQuery = {}, o?: CallOptions): Paginated<Card> =>
      new Paginated(
        (cursor) => unwrap(ctx.raw.GET("/cards", { params: { query: { ...query, cursor } }, signal: o?.signal })),
        query.cursor,
      ),

    /** `GET /cards/{code}`. @throws ApiError `not_found` */
    get: (code: string, o?: CallOptions): Promise<Card> =>
      unwrap(ctx.raw.GET("/cards/{code}", { params: { path: { code } }, signal: o?.signal })),

    /**
     * `POST /cards`: creates a product with its card. Sent with an Idempotency-Key (a new one unless
     * given), so a retry after a lost answer returns the same card instead of a second one.
     * @throws ApiError `validation_failed` (a taken code on `/code`, refused addresses), `idempotency_conflict`
     */
    create: (body: CardCreate, o?: WriteOptions): Promise<Card> =>
      unwrap(
        ctx.raw.POST("/cards", { params: { header: { "Idempotency-Key": keyOf(ctx, o) } }, body, signal: o?.signal }),
      ),

    /** `PATCH /cards/{code}` with at least one field. Messages already sent keep their copy. @throws ApiError `not_found`, `validation_failed` */
    update: (code: string, body: CardUpdate, o?: WriteOptions): Promise<Card> =>
      unwrap(
        ctx.raw.PATCH("/cards/{code}", {
          params: { path: { code }, header: { "Idempotency-Key": keyOf(ctx, o) } },
          body,
          signal: o?.signal,
        }),
      ),

    /**
     * `DELETE /cards/{code}`: removes the card (the product stays). Not retried by the client: a repeat
     * of a delete that went through answers `not_found`.
     * @throws ApiError `not_found`
     */
    delete: async (code: string, o?: CallOptions): Promise<void> => {
      await unwrap(ctx.raw.DELETE("/cards/{code}", { params: { path: { code } }, signal: o?.signal }));
    },
  };
}
