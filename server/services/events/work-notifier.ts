import { AsyncLocalStorage } from "node:async_hooks";
import { log } from "@/server/log";

/**
 * Telling whoever runs background work that work is due, without a service knowing who that is
 * (DESIGN "Layers": after-commit work is announced through an interface the door owning the driver
 * registers at start-up). The local driver (server/jobs/local-driver.ts) registers a listener that
 * wakes its loop; with `JOBS_DRIVER=inngest` the app and the CLI register one that sends Inngest events
 * (inngest/notifier.ts). With no listener an announcement is dropped: the local poll and the Inngest
 * minute sweep find due rows anyway, so a lost announcement only costs latency.
 */
export interface WorkListener {
  /** Webhook deliveries (`webhook_deliveries` ids) became due now. */
  deliveriesDue(ids: string[]): void | Promise<void>;
  /**
   * A tenant's exchange resumed (spec "Wallet and exchange": deferred webhooks are delivered), for its live
   * wallet or, `livemode` false, its sandbox wallet (issue 69).
   */
  exchangeResumed(tenantId: string, livemode: boolean): void | Promise<void>;
  /**
   * Operations (`operations` ids) were queued and can run now (`runOperation`); `livemode` false for
   * test-mode ones, which run in a lane of their own (issue 76 item 3).
   */
  operationsDue?(ids: string[], livemode: boolean): void | Promise<void>;
}

const KEY = Symbol.for("platform.workListeners");
type Holder = { [KEY]?: Set<WorkListener> };
/**
 * The registered listeners, kept on globalThis: the server entry (which starts the local driver or the
 * Inngest notifier) and Next.js's route modules (whose writes announce work) are bundled apart, each with
 * its own copy of this module; with a module-level set, the routes' announcements reached no listener and
 * the driver found their work only at its next poll (the Inngest driver: at the minute sweep).
 */
const listeners = ((globalThis as Holder)[KEY] ??= new Set());
/**
 * The deliveries, live and test-mode operations and resumed wallets a write inside {@link afterCommit}
 * queued, announced after its commit.
 */
const announcedInTransaction = new AsyncLocalStorage<{
  ids: string[];
  operationIds: string[];
  testOperationIds: string[];
  resumed: { tenantId: string; livemode: boolean }[];
}>();

/** Registers a listener; returns the function that unregisters it. */
export function registerWorkListener(listener: WorkListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Runs `work` (a write and its transaction) and announces the deliveries it queued once it has returned,
 * i.e. after the commit, so a driver never looks for a row that is not there yet. When `work` throws
 * (rolled back), nothing is announced.
 */
export async function afterCommit<T>(work: () => Promise<T>): Promise<T> {
  const store = {
    ids: [] as string[],
    operationIds: [] as string[],
    testOperationIds: [] as string[],
    resumed: [] as { tenantId: string; livemode: boolean }[],
  };
  const result = await announcedInTransaction.run(store, work);
  for (const r of store.resumed) notify((l) => l.exchangeResumed(r.tenantId, r.livemode));
  if (store.ids.length) notify((l) => l.deliveriesDue(store.ids));
  if (store.operationIds.length) notify((l) => l.operationsDue?.(store.operationIds, true));
  if (store.testOperationIds.length) notify((l) => l.operationsDue?.(store.testOperationIds, false));
  return result;
}

/**
 * Announces operations just queued (server/services/conversations/customer-message.ts), all of one mode
 * (`livemode` false: a test key's). Inside {@link afterCommit} the announcement waits for the commit;
 * outside it goes at once.
 */
export function announceOperations(ids: string[], livemode: boolean): void {
  if (ids.length === 0) return;
  const store = announcedInTransaction.getStore();
  if (store) (livemode ? store.operationIds : store.testOperationIds).push(...ids);
  else notify((l) => l.operationsDue?.(ids, livemode));
}

/**
 * Announces deliveries just queued (called by the outbox and by a resend). Inside {@link afterCommit} the
 * announcement waits for the commit; outside it goes at once.
 */
export function announceDeliveries(ids: string[]): void {
  if (ids.length === 0) return;
  const store = announcedInTransaction.getStore();
  if (store) store.ids.push(...ids);
  else notify((l) => l.deliveriesDue(ids));
}

/**
 * Announces that the exchange of a tenant's wallet resumed (a top-up or unblock): its live wallet, or its
 * sandbox wallet for `livemode` false. Inside {@link afterCommit} the announcement waits for the commit
 * (a test helper's change runs in the request's transaction); outside it goes at once (call it after the
 * change's own commit).
 */
export function announceExchangeResumed(tenantId: string, livemode: boolean): void {
  const store = announcedInTransaction.getStore();
  if (store) store.resumed.push({ tenantId, livemode });
  else notify((l) => l.exchangeResumed(tenantId, livemode));
}

/** Calls every listener; never throws: a failing listener is logged and the sweep recovers. */
function notify(call: (l: WorkListener) => void | Promise<void>): void {
  for (const l of listeners) {
    try {
      void Promise.resolve(call(l)).catch((err: unknown) =>
        log().warn({ err: (err as Error).message }, "announcing due work failed; the sweep will find it"),
      );
    } catch (err) {
      log().warn({ err: (err as Error).message }, "announcing due work failed; the sweep will find it");
    }
  }
}
