import { z } from "zod";
import { ApiError } from "@/server/errors";
import { parseAmount } from "@/server/lib/money";
import { setChannelAi } from "@/server/services/integrations/channel-settings";
import { listChannelAi, listTenantOperations } from "@/server/services/operations/operation-list";
import { getPreviews } from "@/server/services/tenants/previews";
import { getSpendLimits, setSpendLimits } from "@/server/services/wallet/spend-limits";
import { router, tenantProcedure, withRight } from "../init";

function toMinor(text: string, field: string): bigint {
  try {
    return parseAmount(text);
  } catch {
    throw new ApiError("validation_failed", `${field} must be an amount such as 100 or 99.50.`, {
      errors: [{ field: `/${field}`, code: "invalid_format", message: "Enter an amount such as 100 or 99.50." }],
    });
  }
}

/**
 * Paid operations and their settings: the operations list, the tenant's spend limits and previews, each
 * channel's AI daily limit and AI on/off (changes need `manage_integrations`).
 */
export const operationsRouter = router({
  list: tenantProcedure
    .input(
      z.object({
        limit: z.number().int().min(1).max(100).default(20),
        cursor: z.object({ createdAt: z.iso.datetime({ offset: true }), id: z.uuid() }).nullish(),
      }),
    )
    .query(({ ctx, input }) => listTenantOperations(ctx.db, ctx.actor, input.limit, input.cursor ?? null)),
  settings: tenantProcedure.query(async ({ ctx }) => ({
    limits: await getSpendLimits(ctx.db, ctx.actor),
    channels: await listChannelAi(ctx.db, ctx.actor),
    previews: await getPreviews(ctx.db, ctx.actor.tenantId),
    canEdit: ctx.rights.includes("manage_integrations"),
  })),
  setLimits: withRight("manage_integrations")
    .input(z.object({ dailyLimit: z.string().trim().nullable(), maxOperationCost: z.string().trim() }))
    .mutation(({ ctx, input }) =>
      setSpendLimits(ctx.db, ctx.actor, {
        dailyLimitMinor: input.dailyLimit ? toMinor(input.dailyLimit, "dailyLimit") : null,
        maxOperationCostMinor: toMinor(input.maxOperationCost, "maxOperationCost"),
      }),
    ),
  setChannelAi: withRight("manage_integrations")
    .input(z.object({ integrationId: z.uuid(), aiDailyLimit: z.number().int(), aiEnabled: z.boolean() }))
    .mutation(({ ctx, input }) =>
      setChannelAi(
        ctx.db,
        input.integrationId,
        { aiDailyLimit: input.aiDailyLimit, aiEnabled: input.aiEnabled },
        ctx.actor.tenantId,
      ),
    ),
});
