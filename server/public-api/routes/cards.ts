import { z } from "zod";
import * as cards from "@/server/services/cards/cards";
import { boolParam, cursorParam, limitParam, pageOf } from "@/server/schemas/common";
import { CardCode, CardCreateSchema, CardSchema, CardUpdateSchema } from "@/server/schemas/cards";
import { decodeCursor, encodeCursor, type CursorBinding } from "../cursor";
import { created, defineRoute, noContent, ok } from "../define-route";

const CodeParam = z.object({ code: CardCode });

const ListQuery = z.strictObject({
  limit: limitParam(50),
  cursor: cursorParam.optional(),
  ai_enabled: boolParam.optional(),
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
  responses: { 200: pageOf(CardSchema) },
  handler: async ({ db, caller, query }) => {
    const binding: CursorBinding = { tenantId: caller.tenantId, keyMode: caller.keyMode, route: "listCards", filters: { ai_enabled: query.ai_enabled } };
    const after = query.cursor ? (decodeCursor(query.cursor, binding) as cards.CardPosition) : undefined;
    const page = await cards.listCards(db, caller, { limit: query.limit, aiEnabled: query.ai_enabled, after });
    return ok({ data: page.cards, next_cursor: page.next ? encodeCursor(binding, page.next) : null });
  },
});

/** `POST /cards`: `Idempotency-Key` required; a replay answers the card's current state. */
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
  handler: async ({ db, caller, body }) => {
    const card = await cards.createCard(db, caller, body);
    return created(card, { type: "card", id: card.id });
  },
  replay: async ({ db, caller }, id, status) => ({ status, body: await cards.getCardById(db, caller, id) }),
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
  handler: async ({ db, caller, params }) => ok(await cards.getCard(db, caller, params.code)),
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
  handler: async ({ db, caller, params, body }) => {
    const card = await cards.updateCard(db, caller, params.code, body);
    return { status: 200, body: card, resource: { type: "card", id: card.id } };
  },
  replay: async ({ db, caller }, id, status) => ({ status, body: await cards.getCardById(db, caller, id) }),
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
  handler: async ({ db, caller, params }) => {
    await cards.deleteCard(db, caller, params.code);
    return noContent();
  },
});
