import { getDb } from "@/db/client";
import { runRetention } from "@/server/jobs/retention";
import { nowMs } from "@/server/lib/clock";
import { ensureUpcomingPartitions } from "@/server/services/intake/partitions";
import { inngest } from "../client";

/**
 * Daily at 03:30 UTC (`JOBS_DRIVER=inngest`): deletes webhook deliveries and unreferenced events older
 * than 30 days, request-log rows older than 30 days and idempotency records older than 24 hours, in batches,
 * drops intake's partitions older than 90 days with the intake tables' expired rows (server/jobs/retention.ts),
 * then creates intake's partitions for today and the next two days.
 * @returns rows deleted per table, as runRetention.
 */
export const retentionCleanup = inngest.createFunction(
  { id: "retention-cleanup", triggers: [{ cron: "30 3 * * *" }] },
  async ({ step }) => {
    const deleted = await step.run("cleanup", async () => runRetention(await getDb()));
    await step.run("intake-partitions", async () => ensureUpcomingPartitions(await getDb(), nowMs()));
    return deleted;
  },
);
