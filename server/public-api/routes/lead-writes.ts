import { pageOf, UuidParam } from "@/server/schemas/common";
import {
  CreateLeadSchema,
  DisclosureListQuery,
  DisclosureSchema,
  LeadScoreResultSchema,
  PutStatusMapSchema,
  StatusMapSchema,
  UpdateLeadSchema,
} from "@/server/schemas/lead-writes";
import { LeadSchema } from "@/server/schemas/leads";
import { listIntegrationDisclosures } from "@/server/services/disclosures/disclosure-list";
import { getStatusMap, putStatusMap } from "@/server/services/leads/crm-settings";
import { getLeadScore, LEAD_SCORE_PRICE_MINOR, scoreLeadPaid } from "@/server/services/leads/lead-scoring";
import { SCORER_MODEL } from "@/server/services/leads/lead-scorer";
import { createLead, updateLead } from "@/server/services/leads/lead-writes";
import { getLead } from "@/server/services/leads/leads";
import { formatMinor } from "@/server/lib/money";
import type { AnyRoute } from "../define-route";
import { defineRoute, ok, page } from "../define-route";
import { InstantIdPosition } from "../positions";

// Lead writes, paid scoring, the CRM status map and the disclosure journal (issue 70), released to tenants
// with the `leads-writes` preview (server/schemas/previews.ts); every other caller gets the Planned 404.

const PREVIEW = "leads-writes" as const;
// Leads carry personal data: never cached, and every answer that carries one is journaled (general fact 6).
const PRIVATE = "private, no-store";

/** `POST /leads`: a new lead (version 1) with its `ETag`; event `lead.created`. */
export const createLeadRoute = defineRoute({
  operationId: "createLead",
  summary: "Create a lead (preview leads-writes)",
  method: "POST",
  path: "/leads",
  scope: "leads:write",
  rate: "write",
  idempotency: "required",
  pii: true,
  preview: PREVIEW,
  cacheControl: PRIVATE,
  etag: true,
  discloses: "lead",
  body: CreateLeadSchema,
  responses: { 201: LeadSchema },
  handler: async ({ db, actor, body }) => {
    const lead = await createLead(db, actor, body);
    return { status: 201, body: lead, headers: { etag: lead.etag }, resource: { type: "lead", id: lead.id } };
  },
  replay: async ({ db, actor }, id, status) => {
    const lead = await getLead(db, actor, id);
    return { status, body: lead, headers: { etag: lead.etag } };
  },
});

/** `PATCH /leads/{id}` under `If-Match`: 200 with the lead and its new `ETag`; events `lead.updated`, `lead.status_changed`. */
export const updateLeadRoute = defineRoute({
  operationId: "updateLead",
  summary: "Change a lead under If-Match (preview leads-writes)",
  description:
    "Send the `etag` you read in `If-Match`; a writer that changed the lead since answers you 412 `precondition_failed` (the rules text calls it `version_conflict`) with the current `etag` in the problem body.",
  method: "PATCH",
  path: "/leads/{id}",
  scope: "leads:write",
  rate: "write",
  pii: true,
  preview: PREVIEW,
  cacheControl: PRIVATE,
  etag: true,
  ifMatch: true,
  discloses: "lead",
  params: UuidParam,
  body: UpdateLeadSchema,
  responses: { 200: LeadSchema },
  problems: ["precondition_required", "precondition_failed", "bad_request", "invalid_state"],
  handler: async ({ db, actor, params, body, request }) => {
    const lead = await updateLead(db, actor, params.id, request.headers.get("if-match"), body);
    return { status: 200, body: lead, headers: { etag: lead.etag }, resource: { type: "lead", id: lead.id } };
  },
  replay: async ({ db, actor }, id, status) => {
    const lead = await getLead(db, actor, id);
    return { status, body: lead, headers: { etag: lead.etag } };
  },
});

/** `POST /leads/{id}/score`: paid and synchronous; 200 `{lead_id, score, usage}`; event `lead.scored`. */
export const scoreLeadRoute = defineRoute({
  operationId: "scoreLead",
  summary: "Score a lead (paid; preview leads-writes)",
  description: `Paid: ${formatMinor(LEAD_SCORE_PRICE_MINOR)} RUB per scoring (held, then charged, in this request), by the offline explainable scorer \`${SCORER_MODEL}\`; a repeat with the same Idempotency-Key answers the same score and charges nothing again.`,
  method: "POST",
  path: "/leads/{id}/score",
  scope: "leads:score",
  rate: "paid",
  idempotency: "required",
  preview: PREVIEW,
  params: UuidParam,
  responses: { 200: LeadScoreResultSchema },
  problems: ["insufficient_funds", "spend_limit_reached", "upstream_unavailable"],
  handler: async ({ db, actor, caller, params }) => {
    const { result, scoreId } = await scoreLeadPaid(db, actor, params.id, {
      paidConcurrency: caller.tenantLimits.paid_concurrency,
    });
    return { status: 200, body: result, resource: { type: "lead_score", id: scoreId } };
  },
  replay: async ({ db, actor }, id, status) => ({ status, body: await getLeadScore(db, actor, id) }),
});

/** `GET /crm/status-map`: the external CRM's statuses mapped to the canonical ones. */
export const getStatusMapRoute = defineRoute({
  operationId: "getCrmStatusMap",
  summary: "Read the CRM status map (preview leads-writes)",
  method: "GET",
  path: "/crm/status-map",
  scope: "leads:read",
  rate: "read",
  preview: PREVIEW,
  responses: { 200: StatusMapSchema },
  handler: async ({ db, actor }) => ok(await getStatusMap(db, actor)),
});

/** `PUT /crm/status-map`: replaces the whole map (at most 200 entries). */
export const putStatusMapRoute = defineRoute({
  operationId: "putCrmStatusMap",
  summary: "Replace the CRM status map (preview leads-writes)",
  method: "PUT",
  path: "/crm/status-map",
  scope: "leads:write",
  rate: "write",
  preview: PREVIEW,
  body: PutStatusMapSchema,
  responses: { 200: StatusMapSchema },
  handler: async ({ db, actor, body }) => ok(await putStatusMap(db, actor, body.map)),
});

/** `GET /disclosures`: the caller integration's disclosure journal, newest first. Writes no journal row. */
export const listDisclosuresRoute = defineRoute({
  operationId: "listDisclosures",
  summary: "Read your integration's personal-data disclosure journal (preview leads-writes)",
  method: "GET",
  path: "/disclosures",
  scope: ["leads:read", "conversations:read"],
  rate: "read",
  preview: PREVIEW,
  query: DisclosureListQuery,
  list: { position: InstantIdPosition },
  responses: { 200: pageOf(DisclosureSchema) },
  handler: async ({ db, actor, query, after }) => {
    const p = await listIntegrationDisclosures(db, actor, {
      limit: query.limit,
      resourceType: query.resource_type,
      from: query.from,
      to: query.to,
      after: after as [string, string] | undefined,
    });
    return page(p.data, p.next);
  },
});

/** Routes of the `leads-writes` preview. */
export const LEAD_WRITE_ROUTES: AnyRoute[] = [
  createLeadRoute,
  updateLeadRoute,
  scoreLeadRoute,
  getStatusMapRoute,
  putStatusMapRoute,
  listDisclosuresRoute,
];
