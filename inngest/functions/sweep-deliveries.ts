import { getDb } from "@/db/client";
import { dueDeliveryIds } from "@/server/jobs/due-deliveries";
import { inngest } from "../client";
import { DELIVERY_SCHEDULED } from "../events";

/**
 * A safety net run every minute: due deliveries that no run holds (their schedule event was lost, e.g. a
 * crash between commit and send) get a run again. A delivery's runs are serialised by the
 * `deliver-webhook` concurrency key, and each attempt takes the row's lease, so a repeat cannot double-send.
 */
export const sweepDeliveries = inngest.createFunction(
  { id: "sweep-deliveries", triggers: [{ cron: "* * * * *" }] },
  async ({ step }) => {
    const ids = await step.run("due", async () => dueDeliveryIds(await getDb(), { limit: 500 }));
    if (ids.length)
      await step.sendEvent(
        "schedule",
        ids.map((deliveryId) => ({ name: DELIVERY_SCHEDULED, data: { deliveryId } })),
      );
    return { scheduled: ids.length };
  },
);
