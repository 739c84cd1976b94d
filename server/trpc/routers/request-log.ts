import { z } from "zod";
import { requestLogPage, STATUS_CLASSES } from "@/server/services/request-log/request-log-page";
import { router, tenantProcedure } from "../init";

const filters = z.object({
  integrationId: z.uuid().optional(),
  statusClass: z.enum(STATUS_CLASSES).optional(),
  path: z.string().trim().min(1).max(200).optional(),
  requestId: z.string().trim().min(1).max(200).optional(),
});

/**
 * The tenant's public API request log (issue 19 item 5), for any member of the tenant (it holds no
 * personal data): a filtered page, newest first, with a keyset cursor.
 */
export const requestLogRouter = router({
  list: tenantProcedure
    .input(
      z.object({
        filters: filters.default({}),
        limit: z.number().int().min(1).max(200).default(50),
        cursor: z.object({ createdAt: z.iso.datetime(), id: z.number().int().positive() }).nullable().default(null),
      }),
    )
    .query(({ ctx, input }) => requestLogPage(ctx.db, ctx.actor, input.filters, input.limit, input.cursor)),
});
