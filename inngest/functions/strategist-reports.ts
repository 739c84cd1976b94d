import { getDb } from "@/db/client";
import { runStrategistReports } from "@/server/services/strategist/report-writer";
import { inngest } from "../client";

/**
 * Daily at 05:00 UTC (`JOBS_DRIVER=inngest`): the strategist's regular reports (issue 73 item 4), a `daily`
 * one for every tenant with the preview `strategist` (its sandbox too with `test-mode`) and on Mondays a
 * `weekly` one (server/services/strategist/report-writer.ts `runStrategistReports`, idempotent per date).
 * @returns how many reports the run wrote.
 */
export const strategistReportsDaily = inngest.createFunction(
  { id: "strategist-reports", triggers: [{ cron: "0 5 * * *" }] },
  async ({ step }) => {
    return step.run("write-reports", async () => runStrategistReports(await getDb()));
  },
);
