import { getDb } from "@/db/client";
import { runRetention } from "@/server/jobs/retention";
import { inngest } from "../client";

/**
 * Daily at 03:30 UTC (`JOBS_DRIVER=inngest`): deletes webhook deliveries and unreferenced events older
 * than 30 days, request-log rows older than 30 days and idempotency records older than 24 hours, in batches (server/jobs/retention.ts).
 * @returns rows deleted per table, as runRetention.
 */
export const retentionCleanup = inngest.createFunction(
  { id: "retention-cleanup", triggers: [{ cron: "30 3 * * *" }] },
  async ({ step }) => {
    return step.run("cleanup", async () => runRetention(await getDb()));
  },
);
