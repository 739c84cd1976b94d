import type { Database } from "@/db/client";
import { listenForChanges, type ChangeListener } from "@/db/change-listener";

/**
 * Telling requests that wait on an operation (`POST /conversations/{id}/messages?wait=N`) that it finished,
 * so they answer at once instead of at their next look. {@link finishOperation} announces the operation in
 * its own process after the commit, and sends the operation's id on {@link OPERATION_SETTLED_CHANNEL} in the
 * same transaction, which {@link listenForSettledOperations} hears in every other app process (another
 * app process's driver, `npm run worker`). The waiter's own periodic look stays the safety net: a
 * notification lost while a listener reconnects only makes that request answer at its next look.
 */
const KEY = Symbol.for("platform.operationWaiters");
type Holder = { [KEY]?: Map<string, Set<() => void>> };
/**
 * Waiters by operation id, kept on globalThis: the server entry (where the local driver finishes
 * operations and the listener hears other processes) and Next.js's route modules (where requests wait)
 * are bundled apart, each with its own copy of this module, as the key cache and the request log are.
 */
const waiters = ((globalThis as Holder)[KEY] ??= new Map());

/**
 * Resolves when operation `id` is announced finished in this process ({@link announceOperationSettled})
 * or after `ms` milliseconds, whichever comes first. Never rejects.
 */
export function untilSettled(id: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    let set = waiters.get(id);
    if (!set) waiters.set(id, (set = new Set()));
    const wake = () => {
      clearTimeout(timer);
      set.delete(wake);
      if (set.size === 0 && waiters.get(id) === set) waiters.delete(id);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    set.add(wake);
  });
}

/** Wakes this process's waiters of operation `id`; call it after the commit that finished the operation. */
export function announceOperationSettled(id: string): void {
  const set = waiters.get(id);
  if (!set) return;
  for (const wake of [...set]) wake();
}

/** How many waiters are registered, over every operation; tests only (a waiter must never be left behind). */
export function waitingCount(): number {
  let n = 0;
  for (const set of waiters.values()) n += set.size;
  return n;
}

/** NOTIFY channel of finished operations; the payload is the operation's id (finishOperation sends it). */
export const OPERATION_SETTLED_CHANNEL = "operation_settled";

/**
 * Wakes this process's waiters of the operations other processes finish: listens on
 * {@link OPERATION_SETTLED_CHANNEL} (PostgreSQL: one dedicated connection, heartbeat every 5 s; embedded:
 * PGlite's listen, whose operator-CLI `*` notifications carry no id and are ignored). Started with the
 * app (server/http-server.ts). Best effort by design: while it is disconnected waiters still look every
 * 250 ms (server/public-api/routes/customer-messages.ts).
 * @returns the listener, to `stop()` on shutdown
 */
export function listenForSettledOperations(database: Database): Promise<ChangeListener> {
  return listenForChanges(
    database,
    OPERATION_SETTLED_CHANNEL,
    {
      onNotify(payload) {
        if (payload !== "*") announceOperationSettled(payload);
      },
      onConnected() {},
    },
    { heartbeatMs: 5_000 },
  );
}
