import { getDb } from "@/db/client";
import { attemptDelivery } from "@/server/jobs/attempt-delivery";
import { inngest } from "../client";
import { DELIVERY_SCHEDULED, type DeliveryScheduledData } from "../events";

/**
 * Delivers one webhook delivery on the spec's schedule: each attempt is a step (`attemptDelivery`
 * records its outcome in the row), and the run sleeps until the row's `next_attempt_at` between
 * attempts. Inngest's own retries are off: the retry schedule is the contract's, kept in the row.
 * One run per delivery at a time (concurrency key), so a re-sent schedule event cannot double-send.
 */
export const deliverWebhook = inngest.createFunction(
  {
    id: "deliver-webhook",
    retries: 0,
    triggers: [{ event: DELIVERY_SCHEDULED }],
    concurrency: { key: "event.data.deliveryId", limit: 1 },
  },
  async ({ event, step }) => {
    const { deliveryId } = event.data as DeliveryScheduledData;
    // The schedule ends after the first attempt and eight retries; wallet deferrals do not spend
    // attempts, so the bound counts steps generously rather than attempts.
    for (let n = 0; n < 200; n++) {
      const r = await step.run(`attempt-${n}`, async () => {
        const out = await attemptDelivery(await getDb(), deliveryId);
        return {
          final: out.final,
          state: out.state,
          nextAttemptAt: out.nextAttemptAt ? out.nextAttemptAt.toISOString() : null,
        };
      });
      if (r.final || !r.nextAttemptAt) return r;
      await step.sleepUntil(`wait-${n}`, r.nextAttemptAt);
    }
    return { final: false, state: "pending", nextAttemptAt: null };
  },
);
