import { recordDisclosure } from "@/server/services/disclosures/disclosures";
import * as leads from "@/server/services/leads/leads";
import { pageOf, UuidParam } from "@/server/schemas/common";
import { LeadListQuery, LeadSchema } from "@/server/schemas/leads";
import { decodeCursor, encodeCursor, type CursorBinding } from "../cursor";
import type { AnyRoute } from "../define-route";
import { defineRoute, ok } from "../define-route";

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
  query: LeadListQuery,
  responses: { 200: pageOf(LeadSchema) },
  handler: async ({ db, caller, query, requestId }) => {
    // Every filter is part of the walk: a cursor of one filter set does not page another.
    const filters = {
      status: query.status,
      archived: query.archived,
      updated_since: query.updated_since?.toISOString(),
      updated_after: query.updated_after?.toISOString(),
      source: query.source,
      include_deleted: query.include_deleted,
    };
    const binding: CursorBinding = { tenantId: caller.tenantId, keyMode: caller.keyMode, route: "listLeads", filters };
    const after = query.cursor ? (decodeCursor(query.cursor, binding) as leads.LeadPosition) : undefined;
    const page = await leads.listLeads(db, caller, {
      limit: query.limit,
      status: query.status,
      archived: query.archived,
      updatedSince: query.updated_since,
      updatedAfter: query.updated_after,
      source: query.source,
      after,
    });
    await recordDisclosure(db, caller, { route: "GET /leads", resourceType: "lead", resourceIds: page.leads.map((l) => l.id), requestId });
    return ok({ data: page.leads, next_cursor: page.next ? encodeCursor(binding, page.next) : null });
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
  params: UuidParam,
  responses: { 200: LeadSchema },
  handler: async ({ db, caller, params, requestId }) => {
    const lead = await leads.getLead(db, caller, params.id);
    await recordDisclosure(db, caller, { route: "GET /leads/{id}", resourceType: "lead", resourceIds: [lead.id], requestId });
    return ok(lead, { etag: lead.etag });
  },
});

/** Routes of this domain, in the order of the spec. */
export const LEAD_ROUTES: AnyRoute[] = [listLeadsRoute, getLeadRoute];
