import { z } from "zod";
import { listTenantChannels, setTenantChannelAi } from "@/server/services/integrations/channel-settings";
import { setMainDomain } from "@/server/services/tenants/main-domain";
import { getTenant } from "@/server/services/tenants/tenants";
import { getSpendLimits } from "@/server/services/wallet/spend-limits";
import { router, tenantProcedure, withRight } from "../init";

/**
 * The right that changes the tenant's settings: main domain, channels' AI and spend limits (SECURITY.md
 * "Rights inside a tenant": `manage_integrations` covers daily spend limits; the limits themselves are
 * changed through `operations.setLimits`, which needs the same right).
 */
const SETTINGS_RIGHT = "manage_integrations";
const manage = withRight(SETTINGS_RIGHT);

/** The console's Settings: main domain, each channel's AI, spend limits, CRM mode (read only). */
export const settingsRouter = router({
  get: tenantProcedure.query(async ({ ctx }) => {
    const t = await getTenant(ctx.db, ctx.actor.tenantId);
    return {
      mainDomain: t.mainDomain,
      crmMode: t.crmMode,
      limits: await getSpendLimits(ctx.db, ctx.actor),
      channels: await listTenantChannels(ctx.db, ctx.actor.tenantId),
      /** The UI hides edit controls without the right; the procedures below refuse regardless. */
      canEdit: ctx.rights.includes(SETTINGS_RIGHT),
    };
  }),
  setMainDomain: manage
    .input(z.object({ mainDomain: z.string().max(300).nullable() }))
    .mutation(({ ctx, input }) => setMainDomain(ctx.db, ctx.actor.tenantId, input.mainDomain)),
  setChannelAi: manage
    .input(
      z.object({
        channelId: z.uuid(),
        // Range and whole number are the service's checks (field /ai_daily_limit); here only "a number".
        aiDailyLimit: z.number({ error: "Enter a whole number from 0 to 10,000." }),
        aiEnabled: z.boolean(),
      }),
    )
    .mutation(({ ctx, input }) =>
      setTenantChannelAi(ctx.db, ctx.actor.tenantId, input.channelId, {
        aiDailyLimit: input.aiDailyLimit,
        aiEnabled: input.aiEnabled,
      }),
    ),
});
