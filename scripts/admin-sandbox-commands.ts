import { resetSandbox } from "@/server/services/sandbox/seed-sandbox";
import { need, type Command } from "./admin-args";

/** Commands of test mode (issue 69): the tenant's sandbox. */
export const SANDBOX_COMMANDS: Record<string, Command> = {
  "sandbox:reset": {
    usage:
      "--tenant ID (deletes every sandbox row of the tenant and seeds the sample data again; live rows are never touched)",
    run: (db, o) => resetSandbox(db, need(o, "tenant")),
  },
};
