// Summarises a V8 .cpuprofile (node --cpu-prof): self time by package or file, the top functions, and whose
// time it is (bench/profile-owners.ts). Given the same run's allocation profile too (a .heapprofile of
// bench/allocation-probe.mjs), it splits the bytes allocated the same way and charges the garbage
// collector's time to each side in proportion: V8 spends it on what every layer allocated.
// Used by `npm run bench -- --profile`; `npx tsx bench/profile-summary.ts <cpuprofile> [<heapprofile>]`
// works on any profiles.
import { readFileSync } from "node:fs";
import { busyShares, bytesByOwner, timeByOwner, type CpuProfile, type HeapProfile } from "./profile-owners";

const p = JSON.parse(readFileSync(process.argv[2], "utf8")) as CpuProfile;
const dt = new Map<number, number>();
const { samples, timeDeltas, nodes } = p;
const byId = new Map(nodes.map((n) => [n.id, n]));
for (let i = 0; i < samples.length; i++) dt.set(samples[i], (dt.get(samples[i]) ?? 0) + (timeDeltas[i] ?? 0));
const total = [...dt.values()].reduce((a, b) => a + b, 0);
const fn = new Map<string, number>(),
  area = new Map<string, number>();
const areaOf = (url: string | undefined) => {
  if (!url) return "(native/gc/idle)";
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  if (url.startsWith("node:")) return "node core";
  if (url.includes(".next/")) return ".next bundle (our code + next)";
  return url.replace(/^file:\/\/\/work\/main\//, "");
};
for (const [id, t] of dt) {
  const cf = byId.get(id)!.callFrame;
  const key = `${cf.functionName || "(anon)"} ${areaOf(cf.url)}:${cf.lineNumber}`;
  fn.set(key, (fn.get(key) ?? 0) + t);
  const a =
    cf.functionName === "(idle)"
      ? "(idle)"
      : cf.functionName === "(garbage collector)"
        ? "(gc)"
        : cf.functionName === "(program)"
          ? "(program)"
          : areaOf(cf.url);
  area.set(a, (area.get(a) ?? 0) + t);
}
const pct = (t: number) => ((100 * t) / total).toFixed(1) + "%";
console.log("total sampled ms", (total / 1000).toFixed(0));
console.log("-- by area");
for (const [k, t] of [...area].sort((a, b) => b[1] - a[1]).slice(0, 18)) console.log(pct(t).padStart(7), k);
console.log("-- top functions");
for (const [k, t] of [...fn].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(pct(t).padStart(7), k);

// Whose time: samples by owner; garbage collection and idle are their own.
const time = timeByOwner(p);
const plain = busyShares(time);
const share = (s: number) => `${(100 * s).toFixed(1).padStart(6)}%`;
console.log(
  `-- whose time (share of the busy time, ${(time.loading / 1000).toFixed(0)} ms of module loading left out)`,
);
console.log(`${share(plain.ours)} ours: stacks through our functions or a database client`);
if (time.engine > 0)
  console.log(`${share(plain.engine)} database engine: PGlite (its WebAssembly PostgreSQL and wire parsing)`);
console.log(`${share(plain.gc)} garbage collection`);
console.log(`${share(plain.framework)} framework: Node.js and Next.js outside our functions`);

// Whose garbage: the allocation profile's bytes split like the CPU samples, and GC time charged to each side
// by its share of the bytes allocated outside module loading.
if (process.argv[3]) {
  const bytes = bytesByOwner(JSON.parse(readFileSync(process.argv[3], "utf8")) as HeapProfile);
  const allocated = bytes.ours + bytes.engine + bytes.framework;
  const charged = busyShares(time, bytes);
  console.log(
    `-- whose garbage (${(allocated / 2 ** 20).toFixed(0)} MB allocated, sampled; ${(bytes.loading / 2 ** 20).toFixed(0)} MB of module loading left out)`,
  );
  for (const side of ["ours", "engine", "framework"] as const) {
    if (side === "engine" && bytes.engine === 0) continue;
    console.log(
      `${(100 * (bytes[side] / allocated)).toFixed(1).padStart(6)}% of the bytes: ${side}; with that share of GC, ${side} is ${share(charged[side]).trim()} of the busy time`,
    );
  }
}
