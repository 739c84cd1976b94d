import { log } from "@/server/log";

/** What {@link startClaimLoop} is told of the work it runs. */
export interface ClaimLoopOptions {
  /** Jobs in flight at most. */
  concurrency: number;
  /** Pause between claims when nothing more was due, ms. */
  pollMs: number;
  /**
   * Claims up to `free` due items (each under a lease, so workers sharing the database skip it) and hands
   * each to `start` as soon as it is claimed, with the fields its failure is logged with.
   * @returns whether more may be due at once (the loop claims again without pausing); throws when the
   *   database cannot be read, which is logged and retried after the pause
   */
  claim(
    free: number,
    start: (job: () => Promise<unknown>, logFields: Record<string, unknown>) => void,
  ): Promise<boolean>;
  /** Log messages of a job that threw and of a claim that threw. */
  messages: { jobFailed: string; claimFailed: string };
}

/** A running {@link startClaimLoop}. */
export interface ClaimLoop {
  /** Claims now instead of after the pause (work was queued or a slot came free). */
  wake(): void;
  /** Stops claiming and resolves once the jobs in flight have finished. */
  stop(): Promise<void>;
}

/**
 * The local driver's loop (DESIGN "drivers"), shared by webhook deliveries (./local-driver.ts) and paid
 * operations (./operation-loop.ts): claim up to the free slots, run each claimed job, claim again at once
 * when a job finishes or the claim said more is due, else after `pollMs` or a {@link ClaimLoop.wake}. A job
 * or a claim that throws is logged and never stops the loop: a job's lease expires and it is claimed again.
 */
export function startClaimLoop(opts: ClaimLoopOptions): ClaimLoop {
  const inFlight = new Set<Promise<void>>();
  let running = true;
  let wakeUp: (() => void) | null = null;
  let timer: NodeJS.Timeout | undefined;

  const wake = () => {
    clearTimeout(timer);
    const w = wakeUp;
    wakeUp = null;
    w?.();
  };
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      wakeUp = resolve;
      timer = setTimeout(wake, ms);
    });
  const start = (job: () => Promise<unknown>, logFields: Record<string, unknown>) => {
    const p: Promise<void> = job()
      .then(() => undefined)
      .catch((err: unknown) => log().error({ err, ...logFields }, opts.messages.jobFailed))
      .finally(() => {
        inFlight.delete(p);
        // A slot is free: look for more work at once.
        wake();
      });
    inFlight.add(p);
  };

  const loop = async () => {
    while (running) {
      const free = opts.concurrency - inFlight.size;
      let moreDue = false;
      if (free > 0) {
        try {
          moreDue = await opts.claim(free, start);
        } catch (err) {
          if (running) log().error({ err }, opts.messages.claimFailed);
        }
      }
      if (running && (!moreDue || inFlight.size >= opts.concurrency)) await pause(opts.pollMs);
    }
  };
  const looping = loop();

  return {
    wake,
    async stop() {
      running = false;
      wake();
      await looping;
      await Promise.all([...inFlight]);
    },
  };
}
