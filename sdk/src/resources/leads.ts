import { Paginated } from "../paginate.js";
import type { Lead, LeadListQuery } from "../types.js";
import { unwrap, type CallOptions, type Context } from "./context.js";

/** Leads (spec "GET /leads"; scope `leads:read`; personal data). */
export function leadsResource(ctx: Context) {
  return {
    /**
     * `GET /leads`, ascending by `updated_at`; non-archived unless `archived: true`. `updated_since` is
     * inclusive, `updated_after` strict (not both).
     */
    list: (query: LeadListQuery = {}, o?: CallOptions): Paginated<Lead> =>
      new Paginated(
        (cursor) => unwrap(ctx.raw.GET("/leads", { params: { query: { ...query, cursor } }, signal: o?.signal })),
        query.cursor,
      ),

    /** `GET /leads/{id}`; `etag` equals the answer's ETag header. @throws ApiError `not_found` */
    get: (id: string, o?: CallOptions): Promise<Lead> =>
      unwrap(ctx.raw.GET("/leads/{id}", { params: { path: { id } }, signal: o?.signal })),
  };
}
