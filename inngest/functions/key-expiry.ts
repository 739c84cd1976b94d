import { getDb } from "@/db/client";
import { runKeyExpiryNotices } from "@/server/jobs/key-expiry";
import { inngest } from "../client";

/**
 * Daily at 03:00 UTC (`JOBS_DRIVER=inngest`): records the `api_key.expiring` notices due 30 and 7 days
 * before a key's expiry (server/jobs/key-expiry.ts). The step is idempotent, so an Inngest retry or an
 * overlap with a local driver never sends a threshold twice.
 * @returns `{notices}`: how many events this run recorded.
 */
export const keyExpiryNotices = inngest.createFunction(
  { id: "key-expiry-notices", triggers: [{ cron: "0 3 * * *" }] },
  async ({ step }) => {
    const notices = await step.run("notify", async () => (await runKeyExpiryNotices(await getDb())).notices.length);
    return { notices };
  },
);
