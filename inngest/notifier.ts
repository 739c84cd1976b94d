import { log } from "@/server/log";
import { registerWorkListener } from "@/server/services/events/work-notifier";
import { inngest } from "./client";
import { DELIVERY_SCHEDULED, EXCHANGE_RESUMED, OPERATION_QUEUED, TEST_OPERATION_QUEUED } from "./events";

/**
 * With `JOBS_DRIVER=inngest`, due work is announced to Inngest as events: `webhooks/delivery.scheduled`
 * per delivery, `operations/operation.queued` per live operation and `operations/test-operation.queued`
 * per test-mode one, and `wallet/exchange.resumed` per tenant
 * and wallet mode. Registered at start-up by the processes that
 * change state (the app in server/http-server.ts, the operator CLI); a failed send is logged and the
 * minute sweep finds the rows anyway.
 * @returns the function that unregisters the listener.
 */
export function registerInngestNotifier(): () => void {
  return registerWorkListener({
    async deliveriesDue(ids) {
      await inngest
        .send(ids.map((deliveryId) => ({ name: DELIVERY_SCHEDULED, data: { deliveryId } })))
        .catch((err: unknown) =>
          log().warn(
            { err: (err as Error).message, count: ids.length },
            "scheduling deliveries with Inngest failed; the sweep will pick them up",
          ),
        );
    },
    async operationsDue(ids, livemode) {
      const name = livemode ? OPERATION_QUEUED : TEST_OPERATION_QUEUED;
      await inngest
        .send(ids.map((operationId) => ({ name, data: { operationId } })))
        .catch((err: unknown) =>
          log().warn(
            { err: (err as Error).message, count: ids.length },
            "scheduling operations with Inngest failed; the sweep will pick them up",
          ),
        );
    },
    async exchangeResumed(tenantId, livemode) {
      await inngest
        .send({ name: EXCHANGE_RESUMED, data: { tenantId, livemode } })
        .catch((err: unknown) =>
          log().warn(
            { err: (err as Error).message },
            "telling Inngest about a resumed exchange failed; deferred deliveries go at their next attempt",
          ),
        );
    },
  });
}
