/** A job started with {@link startRepeating}. */
export interface Repeating {
  /** Stops the timer, aborts the signal handed to the run in progress, and resolves once that run has finished. */
  stop(): Promise<void>;
  /** Resolves when the current (or first) run is over; for tests and orderly shutdown. */
  idle(): Promise<void>;
}

/**
 * The timer of the local driver's periodic jobs (the daily jobs, the embedded database's analyze): calls
 * `run` at once and then every `intervalMs` ms. A run still going when the next tick comes (a huge backlog)
 * is neither doubled up nor queued behind: that tick is skipped. `run` must not throw (log its own
 * failures); a rejection is swallowed here so the timer goes on. The timer does not keep the process alive.
 *
 * @param run the job; its `signal` is aborted by `stop()`, so a run of several steps can end early.
 * @param intervalMs pause between the starts of two runs, ms.
 */
export function startRepeating(run: (signal: AbortSignal) => Promise<void>, intervalMs: number): Repeating {
  const stopping = new AbortController();
  let current: Promise<void> = Promise.resolve();
  let running = false;
  const tick = () => {
    if (running || stopping.signal.aborted) return;
    running = true;
    current = run(stopping.signal)
      .catch(() => undefined)
      .finally(() => {
        running = false;
      });
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref?.();
  return {
    idle: () => current,
    async stop() {
      stopping.abort();
      clearInterval(timer);
      await current;
    },
  };
}
