// Preloaded into the app by `npm run bench -- --profile` (`node --import`): a sampling allocation profile
// of the whole process (V8's HeapProfiler, about one sample per 16 KB allocated, objects the garbage
// collector has already collected included), written on exit to <BENCH_ALLOCATION_DIR>/<pid>.heapprofile.
// bench/profile-summary.mjs splits its bytes like the CPU profile's time, which tells whose allocations
// the garbage collector's time goes to.
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import path from "node:path";

const dir = process.env.BENCH_ALLOCATION_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post("HeapProfiler.startSampling", {
    samplingInterval: 16384,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  // An in-process inspector session answers synchronously, so the profile is written before the exit.
  process.on("exit", () => {
    session.post("HeapProfiler.stopSampling", (err, result) => {
      if (err) return console.error(`allocation profile not written: ${err.message}`);
      // A fresh clone has no bench/profiles yet (node --cpu-prof makes it only as it writes its own file).
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, `${process.pid}.heapprofile`), JSON.stringify(result.profile));
    });
  });
}
