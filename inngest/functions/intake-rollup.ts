import { getDb } from "@/db/client";
import { rollupIntake } from "@/server/services/analytics/rollup";
import { inngest } from "../client";

/**
 * Every minute (`JOBS_DRIVER=inngest`): adds the intake events committed since the last run to the daily
 * analytics rollups (server/services/analytics/rollup.ts; the local driver runs the same job every second).
 * Runs may overlap across instances: the job locks its state row, so no event is added twice.
 * @returns what was added, as rollupIntake.
 */
export const intakeRollup = inngest.createFunction(
  { id: "intake-rollup", triggers: [{ cron: "* * * * *" }], concurrency: { limit: 1 } },
  async ({ step }) => {
    return step.run("rollup", async () => rollupIntake(await getDb()));
  },
);
