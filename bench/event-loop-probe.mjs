// Preloaded into the bench's app processes (`node --import`, bench/event-loop.ts): samples how late the
// event loop runs a 10 ms timer (perf_hooks.monitorEventLoopDelay). On SIGUSR2 it writes what it saw since
// the last signal to <BENCH_EVENT_LOOP_DIR>/<pid>.json and starts over, so the bench reads one scenario's
// figures. A held loop (a long synchronous stretch, a GC pause) shows here before it shows in a p99.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";

const dir = process.env.BENCH_EVENT_LOOP_DIR;
if (dir) {
  const RESOLUTION_MS = 10;
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  let seq = 0;
  // The histogram holds the time between two ticks of its timer, in ns: the timer's own interval plus how
  // late the tick ran. Only the lateness is reported (an idle loop reads about 0). Empty: NaN mean.
  const late = (ns) => (Number.isFinite(ns) ? Math.max(0, ns / 1e6 - RESOLUTION_MS) : 0);
  const write = () =>
    writeFileSync(
      path.join(dir, `${process.pid}.json`),
      JSON.stringify({
        seq,
        mean_ms: late(histogram.mean),
        p99_ms: late(histogram.percentile(99)),
        max_ms: late(histogram.max),
      }),
    );
  write();
  process.on("SIGUSR2", () => {
    seq++;
    write();
    histogram.reset();
  });
}
