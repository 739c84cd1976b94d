import { z } from "zod";
import { LEAD_STATUSES } from "@/server/schemas/leads";
import { PutStatusMapSchema, UpdateLeadSchema } from "@/server/schemas/lead-writes";
import { CRM_MODES, getStatusMap, putStatusMap, setCrmMode } from "@/server/services/leads/crm-settings";
import { consoleLeadDetail, consoleLeadPage, consoleScoreLead } from "@/server/services/leads/lead-console";
import { crmModeOf, updateLead } from "@/server/services/leads/lead-writes";
import { router, withRight } from "../init";

/**
 * The console's Leads (issue 70 item 6). Leads are personal data: reading and editing need
 * `view_personal_data`; an edit runs the API's rule (`etag` as If-Match: a stale one is PRECONDITION_FAILED,
 * never an overwrite). The status map and the CRM mode are integration settings: `manage_integrations`.
 * Scoring is paid by the tenant's wallet and needs the right of the API's `leads:score` (rightFor:
 * `view_personal_data`).
 */
export const leadsRouter = router({
  list: withRight("view_personal_data")
    .input(
      z.object({
        status: z.enum(LEAD_STATUSES).optional(),
        archived: z.boolean().default(false),
        cursor: z.tuple([z.iso.datetime(), z.uuid()]).nullable().default(null),
        limit: z.number().int().min(1).max(100).default(50),
      }),
    )
    .query(({ ctx, input }) =>
      consoleLeadPage(ctx.db, ctx.actor, {
        status: input.status,
        archived: input.archived,
        after: input.cursor ?? undefined,
        limit: input.limit,
      }),
    ),
  get: withRight("view_personal_data")
    .input(z.object({ id: z.uuid() }))
    .query(({ ctx, input }) => consoleLeadDetail(ctx.db, ctx.actor, input.id)),
  update: withRight("view_personal_data")
    .input(z.object({ id: z.uuid(), etag: z.string().min(1).max(200), change: UpdateLeadSchema }))
    .mutation(({ ctx, input }) =>
      ctx.db.transaction((tx) => updateLead(tx as typeof ctx.db, ctx.actor, input.id, input.etag, input.change)),
    ),
  score: withRight("view_personal_data")
    .input(z.object({ id: z.uuid(), key: z.uuid() }))
    .mutation(({ ctx, input }) => consoleScoreLead(ctx.db, ctx.actor, input.id, input.key)),
  crm: withRight("view_personal_data").query(async ({ ctx }) => ({
    mode: await crmModeOf(ctx.db, ctx.actor.tenantId),
    statusMap: await getStatusMap(ctx.db, ctx.actor),
  })),
  putStatusMap: withRight("manage_integrations")
    .input(z.object({ map: PutStatusMapSchema.shape.map }))
    .mutation(({ ctx, input }) => putStatusMap(ctx.db, ctx.actor, input.map)),
  setCrmMode: withRight("manage_integrations")
    .input(z.object({ mode: z.enum(CRM_MODES) }))
    .mutation(({ ctx, input }) =>
      ctx.db.transaction((tx) => setCrmMode(tx as typeof ctx.db, ctx.actor.tenantId, input.mode)),
    ),
});
