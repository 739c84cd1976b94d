import { z } from "zod";
import * as cards from "@/server/services/cards/cards";
import { boolParam, cursorParam, includeDeletedNotStored, limitParam, pageOf } from "@/server/schemas/common";
import { CardCode, CardCreateSchema, CardSchema, CardUpdateSchema } from "@/server/schemas/cards";
import { created, defineRoute, noContent, ok, textPage } from "../define-route";
import { CardListPosition } from "../positions";

const CodeParam = z.object({ code: CardCode });

const ListQuery = z.strictObject({
  limit: limitParam(50),
  cursor: cursorParam.optional(),
  ai_enabled: boolParam.optional(),
  include_deleted: includeDeletedNotStored("deleted cards are not kept (deleting a card clears it from its product)"),
});

/** `GET /cards`: ordered by `sort`, then creation; `limit` 1-100 (default 50), `ai_enabled`, `cursor`. */
export const listCardsRoute = defineRoute({
  operationId: "listCards",
  summary: "List product cards",
  method: "GET",
  path: "/cards",
  scope: "cards:read",
  rate: "read",
  query: ListQuery,
  list: { position: CardListPosition },
  responses: { 200: pageOf(CardSchema) },
  handler: async ({ db, actor, query, after }) => {
    const p = await cards.listCards(db, actor, { limit: query.limit, aiEnabled: query.ai_enabled, after });
    return textPage(p, p.next);
  },
});

/**
 * `POST /cards`: `Idempotency-Key` required; a replay answers the card's current state. One statement: the
 * card's insert makes (a new key) or completes the key's record too.
 */
export const createCardRoute = defineRoute({
  operationId: "createCard",
  summary: "Create a product with a card",
  method: "POST",
  path: "/cards",
  scope: "cards:write",
  rate: "write",
  idempotency: "required",
  body: CardCreateSchema,
  responses: { 201: CardSchema },
  oneStatement: true,
  recordsKey: true,
  handler: async ({ db, actor, body, completion }) => {
    const card = await cards.createCard(db, actor, body, completion?.bind(201, "card"));
    return created(card, { type: "card", id: card.id });
  },
  replay: async ({ db, actor }, id, status) => ({ status, body: await cards.getCardById(db, actor, id) }),
});

/** `GET /cards/{code}`. */
export const getCardRoute = defineRoute({
  operationId: "getCard",
  summary: "Read a card",
  method: "GET",
  path: "/cards/{code}",
  scope: "cards:read",
  rate: "read",
  params: CodeParam,
  responses: { 200: CardSchema },
  handler: async ({ db, actor, params }) => ok(await cards.getCard(db, actor, params.code)),
});

/** `PATCH /cards/{code}`: at least one field; no idempotency key needed (honoured when sent). */
export const updateCardRoute = defineRoute({
  operationId: "updateCard",
  summary: "Change a card",
  method: "PATCH",
  path: "/cards/{code}",
  scope: "cards:write",
  rate: "write",
  params: CodeParam,
  body: CardUpdateSchema,
  responses: { 200: CardSchema },
  handler: async ({ db, actor, params, body }) => {
    const card = await cards.updateCard(db, actor, params.code, body);
    return { status: 200, body: card, resource: { type: "card", id: card.id } };
  },
  replay: async ({ db, actor }, id, status) => ({ status, body: await cards.getCardById(db, actor, id) }),
});

/** `DELETE /cards/{code}`: 204; the product stays; a repeat is 404. */
export const deleteCardRoute = defineRoute({
  operationId: "deleteCard",
  summary: "Delete a card (the product stays)",
  method: "DELETE",
  path: "/cards/{code}",
  scope: "cards:write",
  rate: "write",
  params: CodeParam,
  responses: { 204: null },
  handler: async ({ db, actor, params }) => {
    await cards.deleteCard(db, actor, params.code);
    return noContent();
  },
});
