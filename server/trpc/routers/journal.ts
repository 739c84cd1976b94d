import { z } from "zod";
import { journalCsv, journalPage } from "@/server/services/disclosures/journal";
import { router, withRight } from "../init";

const day = z.iso.date({ error: "must be a date such as 2026-11-24" });
const filters = z.object({
  integrationId: z.uuid().optional(),
  resourceType: z.string().trim().min(1).max(64).optional(),
  from: day.optional(),
  to: day.optional(),
  requestId: z.string().trim().min(1).max(200).optional(),
});

/**
 * The disclosure journal (spec general fact 6) for staff with `view_personal_data`: a filtered page, and
 * a CSV export of the same filters. Reads only; the journal is written by the API and the deliveries.
 */
export const journalRouter = router({
  list: withRight("view_personal_data")
    .input(
      z.object({
        filters: filters.default({}),
        limit: z.number().int().min(1).max(200).default(50),
        cursor: z.object({ createdAt: z.iso.datetime(), id: z.uuid() }).nullable().default(null),
      }),
    )
    .query(({ ctx, input }) => journalPage(ctx.db, ctx.actor, input.filters, input.limit, input.cursor)),
  exportCsv: withRight("view_personal_data")
    .input(z.object({ filters: filters.default({}) }))
    .query(({ ctx, input }) => journalCsv(ctx.db, ctx.actor, input.filters)),
});
