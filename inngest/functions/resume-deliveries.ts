import { getDb } from "@/db/client";
import { dueDeliveryIds } from "@/server/jobs/due-deliveries";
import { resumeDeferredDeliveries } from "@/server/services/webhooks/delivery-queue";
import { inngest } from "../client";
import { DELIVERY_SCHEDULED, EXCHANGE_RESUMED, type ExchangeResumedData } from "../events";

/**
 * After a top-up lifts a suspension (spec "Wallet and exchange": deferred webhooks are delivered), makes
 * the tenant's deferred deliveries of the resumed wallet's mode due now and schedules a run for each due
 * one, so they go out without waiting for the 15-minute deferral to end. Without a mode in the event both
 * modes are resumed: harmless, since each attempt checks its own mode's wallet again and defers anew.
 */
export const resumeDeliveries = inngest.createFunction(
  { id: "resume-deliveries", triggers: [{ event: EXCHANGE_RESUMED }] },
  async ({ event, step }) => {
    const { tenantId, livemode } = event.data as ExchangeResumedData;
    const modes = livemode === undefined ? [true, false] : [livemode];
    const resumed = await step.run("resume", async () => {
      const db = await getDb();
      let n = 0;
      for (const mode of modes) n += await resumeDeferredDeliveries(db, tenantId, mode);
      return n;
    });
    const ids = await step.run("due", async () => dueDeliveryIds(await getDb(), { tenantId, livemode, limit: 1000 }));
    if (ids.length)
      await step.sendEvent(
        "schedule",
        ids.map((deliveryId) => ({ name: DELIVERY_SCHEDULED, data: { deliveryId } })),
      );
    return { resumed, scheduled: ids.length };
  },
);
