import { Paginated } from "../paginate.js";
import type { Conversation, ConversationListQuery, Message, MessageListQuery, SendCards, SentCards } from "../types.js";
import { keyOf, unwrap, type CallOptions, type Context, type WriteOptions } from "./context.js";

/**
 * Conversations and their messages (scope `conversations:read`; personal data, every answer is recorded
 * in the disclosure journal) and sending cards into a conversation (`conversations:write`).
 */
export function conversationsResource(ctx: Context) {
  return {
    /**
     * `GET /conversations`, ascending by `updated_at` then `id`; every page. To sync, remember the last
     * `updated_at` seen and pass it as `updated_after` next time.
     */
    list: (query: ConversationListQuery = {}, o?: CallOptions): Paginated<Conversation> =>
      new Paginated(
        (cursor) =>
          unwrap(ctx.raw.GET("/conversations", { params: { query: { ...query, cursor } }, signal: o?.signal })),
        query.cursor,
      ),

    /** `GET /conversations/{id}`. @throws ApiError `not_found` (also for a foreign or non-uuid id) */
    get: (id: string, o?: CallOptions): Promise<Conversation> =>
      unwrap(ctx.raw.GET("/conversations/{id}", { params: { path: { id } }, signal: o?.signal })),

    messages: {
      /** `GET /conversations/{id}/messages`, oldest first; `include_deleted: true` adds tombstones. */
      list: (conversationId: string, query: MessageListQuery = {}, o?: CallOptions): Paginated<Message> =>
        new Paginated(
          (cursor) =>
            unwrap(
              ctx.raw.GET("/conversations/{id}/messages", {
                params: { path: { id: conversationId }, query: { ...query, cursor } },
                signal: o?.signal,
              }),
            ),
          query.cursor,
        ),
    },

    /**
     * `POST /conversations/{id}/cards`: an operator message carrying copies of 1 to 3 active cards; the
     * event `message.created` follows. A repeat with the same Idempotency-Key returns the same message.
     * @throws ApiError `validation_failed` on `/codes` for an unknown or inactive code, `not_found`
     */
    sendCards: (conversationId: string, body: SendCards, o?: WriteOptions): Promise<SentCards> =>
      unwrap(
        ctx.raw.POST("/conversations/{id}/cards", {
          params: { path: { id: conversationId }, header: { "Idempotency-Key": keyOf(ctx, o) } },
          body,
          signal: o?.signal,
        }),
      ),
  };
}
