import { ConnectorClient, ProtocolError, type Job, type JobOutcome } from "./protocol.js";
import type { Target } from "./target.js";

/** Settings of a {@link Runner}. */
export interface RunnerOptions {
  client: ConnectorClient;
  target: Target;
  /** Long-poll seconds of each claim (0 to 25; default 25). */
  waitSeconds?: number;
  /** Stop when a claim finds nothing (a run from cron) instead of polling forever. */
  once?: boolean;
  /** Pause before applying each job, ms (default 0): to test a stop or a killed connector mid-job. */
  applyDelayMs?: number;
  /** Longest pause between tries while the platform is down, ms (default 60,000). */
  maxBackoffMs?: number;
  /** Where log lines go (default stdout). */
  log?: (line: string) => void;
  /** Debug lines (claims, heartbeats), when given. */
  debug?: (line: string) => void;
}

/** Thrown for a refusal that retrying cannot fix (the token was refused): the process should exit. */
export class FatalError extends Error {}

/**
 * The connector's loop: claim (long poll) → apply on the target, renewing the lease with heartbeats a
 * third of the way through it → report the result; one log line per job. While the platform is down
 * (unreachable, 5xx, 429) it backs off exponentially (1 s doubling to `maxBackoffMs`, or the platform's
 * `Retry-After`). {@link stop} ends it gracefully: a waiting claim is aborted; a job claimed but not yet
 * being applied is released (its lease given back); a job being applied is finished and reported.
 */
export class Runner {
  private readonly stopping = new AbortController();
  private backoffMs = 0;

  constructor(private readonly o: RunnerOptions) {}

  /** Asks the loop to stop (SIGTERM, SIGINT). */
  stop(): void {
    this.stopping.abort();
  }

  /** Runs until {@link stop} (or, with `once`, until the queue is empty). @throws FatalError */
  async run(): Promise<void> {
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      let job: Job | null;
      try {
        job = await this.o.client.claim(this.o.waitSeconds ?? 25, signal);
        this.backoffMs = 0;
      } catch (err) {
        if (signal.aborted) break;
        await this.failed(err, "claim");
        continue;
      }
      if (!job) {
        if (this.o.once) break;
        continue;
      }
      this.o.debug?.(`claimed job ${job.id} (${job.article.slug} v${job.version}), lease until ${job.lease_until}`);
      await this.work(job);
    }
  }

  /** Applies one claimed job under heartbeats and reports it. */
  private async work(job: Job): Promise<void> {
    let lost = false;
    const leaseMs = Math.max(1000, Date.parse(job.lease_until) - Date.now());
    const beat = setInterval(
      () => {
        this.o.client.heartbeat(job).then(
          (until) => this.o.debug?.(`heartbeat job ${job.id}: lease until ${until}`),
          (err: unknown) => {
            if (err instanceof ProtocolError && err.leaseLost) lost = true;
          },
        );
      },
      Math.max(500, Math.floor(leaseMs / 3)),
    );
    try {
      if (this.o.applyDelayMs) await sleep(this.o.applyDelayMs, this.stopping.signal);
      if (this.stopping.signal.aborted) {
        await this.o.client.release(job).catch(() => {});
        this.line(job, "released (stopping)");
        return;
      }
      let outcome: JobOutcome;
      try {
        outcome = await this.o.target.apply(job);
      } catch (err) {
        outcome = { state: "failed", error: (err as Error).message };
      }
      try {
        await this.o.client.result(job, outcome);
        this.line(job, describe(outcome));
      } catch (err) {
        const why = err instanceof ProtocolError && err.leaseLost ? "lease lost" : (err as Error).message;
        this.line(job, `${describe(outcome)}, not reported: ${why}${lost ? " (heartbeat had failed)" : ""}`);
        if (err instanceof ProtocolError && err.status === 401) throw new FatalError(err.message);
      }
    } finally {
      clearInterval(beat);
    }
  }

  /** A failed claim: fatal for a refused token, else a pause that grows while the platform is down. */
  private async failed(err: unknown, what: string): Promise<void> {
    if (err instanceof ProtocolError && err.status === 401)
      throw new FatalError(`the platform refused the token: ${err.message}`);
    const max = this.o.maxBackoffMs ?? 60_000;
    this.backoffMs = Math.min(max, this.backoffMs ? this.backoffMs * 2 : 1000);
    const asked = err instanceof ProtocolError && err.retryAfter ? err.retryAfter * 1000 : 0;
    const pause = Math.max(asked, this.backoffMs);
    (this.o.log ?? console.log)(
      `${new Date().toISOString()} ${what} failed (${(err as Error).message}); retrying in ${Math.round(pause / 1000)} s`,
    );
    await sleep(pause, this.stopping.signal);
  }

  private line(job: Job, text: string): void {
    (this.o.log ?? console.log)(
      `${new Date().toISOString()} job ${job.id} ${job.article.slug} v${job.version} ${job.publish_mode} -> ${this.o.target.name}: ${text}`,
    );
  }
}

function describe(o: JobOutcome): string {
  return [o.state, o.published_url, o.error ? `(${o.error})` : ""].filter(Boolean).join(" ");
}

/** Waits `ms`, or less when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
