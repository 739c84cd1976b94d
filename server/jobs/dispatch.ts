import { AsyncLocalStorage } from "node:async_hooks";
import { inngest } from "@/inngest/client";
import { DELIVERY_SCHEDULED, EXCHANGE_RESUMED } from "@/inngest/events";
import { env } from "@/server/env";
import { log } from "@/server/log";

/**
 * Telling the jobs driver that work is due, without waiting for its next poll or sweep:
 * - local driver: wakes every local driver of this process (other processes find the rows at their poll);
 * - Inngest: sends `webhooks/delivery.scheduled` per delivery, or `wallet/exchange.resumed`.
 * Deliveries queued inside a request are dispatched only after its transaction commits
 * ({@link dispatchAfterCommit}), so a run never looks for a row that is not there yet; a lost dispatch is
 * harmless, as the local poll and the Inngest minute sweep find due rows anyway.
 */
const queuedInRequest = new AsyncLocalStorage<{ ids: string[] }>();
const localWakers = new Set<() => void>();

/** Registers a local driver's wake function; returns the unregister function. */
export function registerLocalWaker(wake: () => void): () => void {
  localWakers.add(wake);
  return () => localWakers.delete(wake);
}

/**
 * Runs `work` (a write and its transaction) and dispatches the deliveries it queued once it has returned,
 * i.e. after the commit. When `work` throws (rolled back), nothing is dispatched.
 */
export async function dispatchAfterCommit<T>(work: () => Promise<T>): Promise<T> {
  const store = { ids: [] as string[] };
  const result = await queuedInRequest.run(store, work);
  if (store.ids.length) void dispatchDeliveries(store.ids);
  return result;
}

/** Notes deliveries just queued (called by the outbox); dispatched after the commit when inside {@link dispatchAfterCommit}. */
export function noteQueuedDeliveries(ids: string[]): void {
  if (ids.length === 0) return;
  const store = queuedInRequest.getStore();
  if (store) store.ids.push(...ids);
  else void dispatchDeliveries(ids);
}

/** Tells the driver these deliveries are due now. Never throws: a failure is logged and the sweep recovers. */
export async function dispatchDeliveries(ids: string[]): Promise<void> {
  if (env().jobsDriver === "inngest") {
    await inngest.send(ids.map((deliveryId) => ({ name: DELIVERY_SCHEDULED, data: { deliveryId } }))).catch((err: unknown) => log().warn({ err: (err as Error).message, count: ids.length }, "scheduling deliveries with Inngest failed; the sweep will pick them up"));
    return;
  }
  for (const wake of localWakers) wake();
}

/** Tells the driver a tenant's exchange resumed (spec "Wallet and exchange": deferred webhooks are delivered). */
export async function dispatchExchangeResumed(tenantId: string): Promise<void> {
  if (env().jobsDriver === "inngest") {
    await inngest.send({ name: EXCHANGE_RESUMED, data: { tenantId } }).catch((err: unknown) => log().warn({ err: (err as Error).message }, "telling Inngest about a resumed exchange failed; deferred deliveries go at their next attempt"));
    return;
  }
  for (const wake of localWakers) wake();
}
