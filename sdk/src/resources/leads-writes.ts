import { Paginated } from "../paginate.js";
import type {
  CrmStatusMap,
  Disclosure,
  DisclosureListQuery,
  Lead,
  LeadCreate,
  LeadScoreResult,
  LeadUpdate,
} from "../types.js";
import { keyOf, unwrap, type CallOptions, type Context, type WriteOptions } from "./context.js";

/**
 * Lead writes, paid scoring, the CRM status map and the disclosure journal (preview `leads-writes`: switched
 * on per tenant; for other tenants every method answers ApiError `not_found`). See docs/leads.md.
 */
export function leadsWritesResource(ctx: Context) {
  return {
    /**
     * `POST /leads` (scope `leads:write`): a new lead, version 1; a contact with the same email or phone is
     * reused. A repeat with the same Idempotency-Key returns the same lead.
     * @throws ApiError `validation_failed` (e.g. `/conversation_id` not the tenant's)
     */
    create: (body: LeadCreate, o?: WriteOptions): Promise<Lead> =>
      unwrap(
        ctx.raw.POST("/leads", {
          params: { header: { "Idempotency-Key": keyOf(ctx, o) } },
          body,
          signal: o?.signal,
        }),
      ),

    /**
     * `PATCH /leads/{id}` under `If-Match`: pass the `etag` you read (`lead.etag`). Only the fields sent
     * change; the answer is the lead with its new `etag`.
     * @throws ApiError `precondition_failed` (412: changed since you read it; `problem.etag` is the current
     *   one: read again and reapply), `invalid_state` (status while the CRM mode is external),
     *   `validation_failed`, `not_found`
     */
    update: (id: string, etag: string, body: LeadUpdate, o?: WriteOptions): Promise<Lead> =>
      unwrap(
        ctx.raw.PATCH("/leads/{id}", {
          params: { path: { id }, header: { "Idempotency-Key": keyOf(ctx, o), "If-Match": etag } },
          body,
          signal: o?.signal,
        }),
      ),

    /**
     * `POST /leads/{id}/score` (scope `leads:score`; paid, synchronous): the lead's new score and its
     * `usage`. A repeat with the same Idempotency-Key answers the same score and charges nothing again.
     * @throws ApiError `insufficient_funds`, `spend_limit_reached`, `rate_limited`, `not_found`
     */
    score: (id: string, o?: WriteOptions): Promise<LeadScoreResult> =>
      unwrap(
        ctx.raw.POST("/leads/{id}/score", {
          params: { path: { id }, header: { "Idempotency-Key": keyOf(ctx, o) } },
          signal: o?.signal,
        }),
      ),

    statusMap: {
      /** `GET /crm/status-map` (scope `leads:read`). */
      get: (o?: CallOptions): Promise<CrmStatusMap> => unwrap(ctx.raw.GET("/crm/status-map", { signal: o?.signal })),
      /**
       * `PUT /crm/status-map` (scope `leads:write`): replaces the whole map (at most 200 entries).
       * @throws ApiError `validation_failed` for a value that is not a canonical status
       */
      put: (map: CrmStatusMap["map"], o?: CallOptions): Promise<CrmStatusMap> =>
        unwrap(ctx.raw.PUT("/crm/status-map", { body: { map }, signal: o?.signal })),
    },

    /** `GET /disclosures` (scope `leads:read` or `conversations:read`): your integration's journal, newest first. */
    disclosures: (query: DisclosureListQuery = {}, o?: CallOptions): Paginated<Disclosure> =>
      new Paginated(
        (cursor) => unwrap(ctx.raw.GET("/disclosures", { params: { query: { ...query, cursor } }, signal: o?.signal })),
        query.cursor,
      ),
  };
}
