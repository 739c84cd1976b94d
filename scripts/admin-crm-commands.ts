import type { Db } from "@/db/client";
import { setCrmMode } from "@/server/services/leads/crm-settings";
import { need, type Command } from "./admin-args";

/** Commands of the CRM (issue 70): the tenant's CRM mode. */
export const CRM_COMMANDS: Record<string, Command> = {
  "crm:set-mode": {
    usage:
      "--tenant ID --mode internal|external (external: the external CRM owns lead statuses; emits crm.mode_changed)",
    run: async (db, o) => {
      // One transaction: the mode, every lead's new `owner` and the events commit together.
      const r = await db.transaction((tx) => setCrmMode(tx as Db, need(o, "tenant"), need(o, "mode")));
      return { tenant_id: o.tenant as string, ...r };
    },
  },
};
