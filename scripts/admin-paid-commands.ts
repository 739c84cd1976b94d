import { setChannelAi } from "@/server/services/integrations/channel-settings";
import { setPreview } from "@/server/services/tenants/previews";
import { setSpendLimits } from "@/server/services/wallet/spend-limits";
import { amountOption, bool, need, usageError, type Command } from "./admin-args";

/** Commands of the preview and of paid operations (issue 17): previews, spend limits, a channel's AI settings. */
export const PAID_COMMANDS: Record<string, Command> = {
  "preview:set": {
    usage: "--tenant ID --feature conversation-writes --enabled true|false",
    run: async (db, o) => {
      const enabled = bool(need(o, "enabled"), "enabled")!;
      const preview = await setPreview(db, need(o, "tenant"), need(o, "feature"), enabled);
      return { tenant_id: o.tenant as string, preview };
    },
  },
  "wallet:set-limits": {
    usage: "--tenant ID [--daily-limit 500.00|none] [--max-operation-cost 100.00]",
    run: async (db, o) => {
      const daily = o["daily-limit"] === "none" ? null : amountOption(o, "daily-limit");
      const limits = await setSpendLimits(
        db,
        { tenantId: need(o, "tenant") },
        {
          dailyLimitMinor: daily,
          maxOperationCostMinor: amountOption(o, "max-operation-cost"),
        },
      );
      return { tenant_id: o.tenant as string, ...limits };
    },
  },
  "channel:set": {
    usage: "--integration ID [--ai-daily-limit N (0-10000)] [--ai-enabled true|false]",
    run: async (db, o) => {
      const v = o["ai-daily-limit"];
      if (v !== undefined && (typeof v !== "string" || !/^\d+$/.test(v)))
        throw usageError("--ai-daily-limit must be a whole number");
      const c = await setChannelAi(db, need(o, "integration"), {
        aiDailyLimit: v === undefined ? undefined : Number(v),
        aiEnabled: bool(o["ai-enabled"], "ai-enabled"),
      });
      return { integration_id: o.integration as string, ...c };
    },
  },
};
