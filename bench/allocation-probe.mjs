// Preloaded into the app by `npm run bench -- --profile` (`node --import`): a sampling allocation profile
// of the whole process (V8's HeapProfiler, about one sample per 16 KB allocated, objects the garbage
// collector has already collected included), written on exit to <BENCH_ALLOCATION_DIR>/<pid>.heapprofile.
// bench/profile-summary.ts and bench/miss-profile.ts split its bytes like the CPU profile's time, which tells whose allocations
// the garbage collector's time goes to.
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
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
      writeProfile(path.join(dir, `${process.pid}.heapprofile`), result.profile);
    });
  });
}

/**
 * Writes the profile as JSON a node and a few thousand samples at a time: one `JSON.stringify` of a long
 * run's profile needed more than the app's 256 MB heap cap and crashed the app at exit (2026-11-26).
 */
function writeProfile(file, profile) {
  const fd = openSync(file, "w");
  const writeNode = (node) => {
    const { children, ...own } = node;
    writeSync(fd, `${JSON.stringify(own).slice(0, -1)},"children":[`);
    children.forEach((child, i) => {
      if (i > 0) writeSync(fd, ",");
      writeNode(child);
    });
    writeSync(fd, "]}");
  };
  try {
    writeSync(fd, '{"head":');
    writeNode(profile.head);
    writeSync(fd, ',"samples":[');
    const samples = profile.samples ?? [];
    for (let i = 0; i < samples.length; i += 4096)
      writeSync(
        fd,
        (i > 0 ? "," : "") +
          samples
            .slice(i, i + 4096)
            .map((x) => JSON.stringify(x))
            .join(","),
      );
    writeSync(fd, "]}");
  } finally {
    closeSync(fd);
  }
}
