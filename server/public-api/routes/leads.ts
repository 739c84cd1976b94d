import * as leads from "@/server/services/leads/leads";
import { pageOf, UuidParam } from "@/server/schemas/common";
import { LeadListQuery, LeadSchema } from "@/server/schemas/leads";
import type { AnyRoute } from "../define-route";
import { defineRoute, ok, textPage } from "../define-route";
import { InstantIdPosition } from "../positions";

// Leads carry personal data: never cached between us and the integrator, and every answer is written to
// the disclosure journal before it leaves (spec general fact 6).
const PRIVATE = "private, no-store";

/**
 * `GET /leads`: ascending by `(updated_at, id)`; filters status, archived (default false), updated_since
 * (inclusive) or updated_after (strict), source; `include_deleted=true` answers 422 `not_supported`.
 */
export const listLeadsRoute = defineRoute({
  operationId: "listLeads",
  summary: "List leads",
  method: "GET",
  path: "/leads",
  scope: "leads:read",
  rate: "read",
  pii: true,
  cacheControl: PRIVATE,
  discloses: "lead",
  query: LeadListQuery,
  list: { position: InstantIdPosition },
  responses: { 200: pageOf(LeadSchema) },
  handler: async ({ db, actor, query, after }) => {
    const p = await leads.listLeads(db, actor, {
      limit: query.limit,
      status: query.status,
      archived: query.archived,
      updatedSince: query.updated_since,
      updatedAfter: query.updated_after,
      source: query.source,
      after,
    });
    return textPage(p, p.next);
  },
});

/** `GET /leads/{id}`: a missing, foreign or non-uuid id answers 404; header `ETag` equals the lead's `etag`. */
export const getLeadRoute = defineRoute({
  operationId: "getLead",
  summary: "Read a lead",
  method: "GET",
  path: "/leads/{id}",
  scope: "leads:read",
  rate: "read",
  pii: true,
  cacheControl: PRIVATE,
  etag: true,
  discloses: "lead",
  params: UuidParam,
  responses: { 200: LeadSchema },
  handler: async ({ db, actor, params }) => {
    const lead = await leads.getLead(db, actor, params.id);
    return ok(lead, { etag: lead.etag });
  },
});

/** Routes of this domain, in the order of the spec. */
export const LEAD_ROUTES: AnyRoute[] = [listLeadsRoute, getLeadRoute];
