import { getDb } from "@/db/client";
import { dueDeliveryIds } from "@/server/jobs/due-deliveries";
import { MAX_IN_FLIGHT_PER_SUBSCRIPTION } from "@/server/services/webhooks/delivery-queue";
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
    // A few of each subscription (its cap of attempts in flight), so one tenant's backlog cannot fill the sweep.
    const ids = await step.run("due", async () =>
      dueDeliveryIds(await getDb(), { limit: 500, perSubscription: MAX_IN_FLIGHT_PER_SUBSCRIPTION }),
    );
    if (ids.length)
      await step.sendEvent(
        "schedule",
        ids.map((deliveryId) => ({ name: DELIVERY_SCHEDULED, data: { deliveryId } })),
      );
    return { scheduled: ids.length };
  },
);
