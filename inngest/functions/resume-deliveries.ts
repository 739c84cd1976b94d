import { getDb } from "@/db/client";
import { dueDeliveryIds } from "@/server/jobs/due-deliveries";
import { resumeDeferredDeliveries } from "@/server/services/webhooks/delivery-queue";
import { inngest } from "../client";
import { DELIVERY_SCHEDULED, EXCHANGE_RESUMED, type ExchangeResumedData } from "../events";

/**
 * After a top-up lifts a suspension (spec "Wallet and exchange": deferred webhooks are delivered), makes
 * the deferred deliveries of the resumed wallet's mode due now (the sandbox's for a sandbox wallet, issue
 * 69) and schedules a run for each due one, so they go out without waiting for the 15-minute deferral to end.
 */
export const resumeDeliveries = inngest.createFunction(
  { id: "resume-deliveries", triggers: [{ event: EXCHANGE_RESUMED }] },
  async ({ event, step }) => {
    const { tenantId, livemode = true } = event.data as ExchangeResumedData;
    const resumed = await step.run("resume", async () =>
      resumeDeferredDeliveries(await getDb(), { tenantId, livemode }),
    );
    const ids = await step.run("due", async () => dueDeliveryIds(await getDb(), { tenantId, limit: 1000 }));
    if (ids.length)
      await step.sendEvent(
        "schedule",
        ids.map((deliveryId) => ({ name: DELIVERY_SCHEDULED, data: { deliveryId } })),
      );
    return { resumed, scheduled: ids.length };
  },
);
