/**
 * Telling requests that wait on an operation (`POST /conversations/{id}/messages?wait=N`) that it finished
 * in this process, so they answer at once instead of at their next look. Announced by
 * {@link finishOperation} after its commit; an operation finished by another process (another app
 * process's driver, a worker) is found by the waiter's own periodic look instead.
 */
const waiters = new Map<string, Set<() => void>>();

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
