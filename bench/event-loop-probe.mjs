// Preloaded into the bench's app processes (`node --import`, bench/event-loop.ts): samples how late the
// event loop runs a 10 ms timer (perf_hooks.monitorEventLoopDelay). On SIGUSR2 it writes what it saw since
// the last signal to <BENCH_EVENT_LOOP_DIR>/<pid>.json and starts over, so the bench reads one scenario's
// figures. A held loop (a long synchronous stretch, a GC pause) shows here before it shows in a p99.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";

const dir = process.env.BENCH_EVENT_LOOP_DIR;
if (dir) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let seq = 0;
  const write = () =>
    writeFileSync(
      path.join(dir, `${process.pid}.json`),
      JSON.stringify({
        seq,
        // The histogram holds nanoseconds; it is empty (NaN mean) when no timer tick was sampled.
        mean_ms: Number.isFinite(histogram.mean) ? histogram.mean / 1e6 : 0,
        p99_ms: histogram.percentile(99) / 1e6,
        max_ms: histogram.max / 1e6,
      }),
    );
  write();
  process.on("SIGUSR2", () => {
    seq++;
    write();
    histogram.reset();
  });
}
