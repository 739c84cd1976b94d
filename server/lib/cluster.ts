import cluster, { type Worker } from "node:cluster";

/**
 * How many app processes `npm start` runs (docs/operations.md "Scaling"): `WEB_CONCURRENCY` (default 1), but
 * always 1 on the embedded database, which one process owns (PGlite allows a single opener).
 * @returns the count, and a message to print when the wish was cut to 1
 */
export function processCount(e: { webConcurrency: number; databaseUrl: string | undefined }): {
  count: number;
  notice?: string;
} {
  if (e.webConcurrency <= 1) return { count: 1 };
  if (!e.databaseUrl)
    return {
      count: 1,
      notice:
        `WEB_CONCURRENCY=${e.webConcurrency} ignored: the embedded database (no DATABASE_URL) belongs to one ` +
        "process, so one app process runs. Set DATABASE_URL to a PostgreSQL server to run several.",
    };
  return { count: e.webConcurrency };
}

/** Options of {@link serveInProcesses}. */
export interface ServeOptions {
  /** Pause before a worker that died is replaced, ms; default 1000. */
  restartMs?: number;
  /** Where the primary reports worker deaths; default stderr. */
  report?: (message: string) => void;
}

/**
 * Runs `start` in `count` processes that share the listening port (node:cluster; Linux hands each
 * connection to the next worker in turn). With `count` 1 it just runs `start` here. In the primary:
 * a worker that dies after it listened is replaced after `restartMs`; one that dies before it ever
 * listened (bad configuration, port taken) stops them all and the primary exits 1, as a single
 * process would; SIGINT or SIGTERM is passed to every worker (each stops cleanly, as `stopOnSignals`
 * does), and the primary exits 0 once all are gone. Workers are told apart by `cluster.worker.id`.
 * @param start what one process runs; resolves once it serves
 */
export async function serveInProcesses(
  count: number,
  start: () => Promise<void>,
  opts: ServeOptions = {},
): Promise<void> {
  if (count <= 1 || cluster.isWorker) return start();
  const restartMs = opts.restartMs ?? 1000;
  const report = opts.report ?? ((m: string) => console.error(m));
  const listened = new WeakSet<Worker>();
  const alive = new Set<Worker>();
  let stopping = false;
  let exitCode = 0;

  const fork = () => {
    const w = cluster.fork();
    alive.add(w);
    w.once("listening", () => listened.add(w));
    w.once("exit", (code, signal) => {
      alive.delete(w);
      if (stopping) {
        if (alive.size === 0) process.exit(exitCode);
        return;
      }
      if (!listened.has(w)) {
        report(`app process ${w.process.pid} stopped before it served (exit ${code ?? signal}); stopping`);
        stopAll(1);
        return;
      }
      report(`app process ${w.process.pid} died (exit ${code ?? signal}); starting another`);
      setTimeout(() => !stopping && fork(), restartMs);
    });
  };
  const stopAll = (code: number) => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    if (alive.size === 0) process.exit(exitCode);
    for (const w of alive) w.process.kill("SIGTERM");
  };
  process.once("SIGINT", () => stopAll(0));
  process.once("SIGTERM", () => stopAll(0));
  for (let i = 0; i < count; i++) fork();
}
