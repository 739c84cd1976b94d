import { Paginated } from "../paginate.js";
import type { EventListQuery, JournalEvent } from "../types.js";
import { unwrap, type CallOptions, type Context } from "./context.js";

/**
 * The event journal (issue 75; scope `webhooks:manage`): the events of the key's tenant and mode of the last
 * 30 days, each exactly the thin envelope its webhook deliveries carry (never personal data). A receiver that
 * was down reads what it missed without waiting for retries.
 */
export function eventsResource(ctx: Context) {
  return {
    /**
     * `GET /events`: newest first, every page; `type` (an exact type or `<family>.*`), `created_after` (ISO
     * 8601 with a zone; strictly later events only). Handle each event idempotently by its `id`: the same
     * event may also arrive, or have arrived, as a delivery.
     * @throws ApiError `validation_failed` (a type outside the catalog, a bad `created_after` or cursor), `scope_missing`
     */
    list: (query: EventListQuery = {}, o?: CallOptions): Paginated<JournalEvent> =>
      new Paginated(
        (cursor) => unwrap(ctx.raw.GET("/events", { params: { query: { ...query, cursor } }, signal: o?.signal })),
        query.cursor,
      ),

    /**
     * `GET /events/{id}`: one event of the last 30 days, e.g. the `Service-Event-Id` of a delivery.
     * @throws ApiError `not_found` (older than 30 days, of another tenant or mode, or not one this integration receives)
     */
    get: (id: string, o?: CallOptions): Promise<JournalEvent> =>
      unwrap(ctx.raw.GET("/events/{id}", { params: { path: { id } }, signal: o?.signal })),
  };
}
