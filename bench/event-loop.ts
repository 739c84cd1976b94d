import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** Event-loop delay of the app during one scenario, ms: the worst of its processes. */
export interface EventLoopFigures {
  meanMs: number;
  p99Ms: number;
  maxMs: number;
}

interface Report {
  seq: number;
  mean_ms: number;
  p99_ms: number;
  max_ms: number;
}

/**
 * The bench's side of bench/event-loop-probe.mjs: `nodeArgs` preload the probe into the app (and the
 * processes it forks, which inherit them), `env` tells it where to report. `mark()` starts a scenario's
 * window; `read()` ends it and returns the window's delay, the worst process's figures (null when no
 * process reported within 2 s). Only processes that loaded the probe (a report file with their pid) are
 * signalled, so SIGUSR2 never reaches a process without its handler.
 */
export function eventLoopProbe() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-event-loop-"));
  const reports = (): Map<number, Report> => {
    const out = new Map<number, Report>();
    for (const f of readdirSync(dir)) {
      try {
        out.set(Number(f.replace(/\.json$/, "")), JSON.parse(readFileSync(path.join(dir, f), "utf8")) as Report);
      } catch {
        // Being written: the next look sees it whole.
      }
    }
    return out;
  };
  const signalAll = (): Map<number, number> => {
    const sent = new Map<number, number>();
    for (const [pid, r] of reports()) {
      try {
        process.kill(pid, "SIGUSR2");
        sent.set(pid, r.seq);
      } catch {
        rmSync(path.join(dir, `${pid}.json`), { force: true }); // exited
      }
    }
    return sent;
  };
  return {
    nodeArgs: ["--import", path.join(import.meta.dirname, "event-loop-probe.mjs")],
    env: { BENCH_EVENT_LOOP_DIR: dir },
    mark(): void {
      signalAll();
    },
    async read(): Promise<EventLoopFigures | null> {
      const sent = signalAll();
      const deadline = Date.now() + 2000;
      while (Date.now() < deadline) {
        const now = reports();
        if (sent.size > 0 && [...sent].every(([pid, seq]) => (now.get(pid)?.seq ?? -1) > seq)) {
          const rs = [...sent.keys()].map((pid) => now.get(pid)!);
          return {
            meanMs: Math.max(...rs.map((r) => r.mean_ms)),
            p99Ms: Math.max(...rs.map((r) => r.p99_ms)),
            maxMs: Math.max(...rs.map((r) => r.max_ms)),
          };
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      return null;
    },
    close(): void {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
