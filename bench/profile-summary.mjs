// Summarises a V8 .cpuprofile (node --cpu-prof): self time by package or file, the top functions, and whose
// time it is (bench/profile-frames.mjs). Given the same run's allocation profile too (a .heapprofile of
// bench/allocation-probe.mjs), it splits the bytes allocated the same way and charges the garbage
// collector's time to each side in proportion: V8 spends it on what every layer allocated.
// Used by `npm run bench -- --profile`; `node bench/profile-summary.mjs <cpuprofile> [<heapprofile>]`
// works on any profiles.
import { readFileSync } from "node:fs";
import { stackClassifier } from "./profile-frames.mjs";
const p = JSON.parse(readFileSync(process.argv[2], "utf8"));
const dt = new Map();
const { samples, timeDeltas, nodes } = p;
const byId = new Map(nodes.map((n) => [n.id, n]));
for (let i = 0; i < samples.length; i++) dt.set(samples[i], (dt.get(samples[i]) ?? 0) + (timeDeltas[i] ?? 0));
const total = [...dt.values()].reduce((a, b) => a + b, 0);
const fn = new Map(),
  area = new Map();
const areaOf = (url) => {
  if (!url) return "(native/gc/idle)";
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  if (url.startsWith("node:")) return "node core";
  if (url.includes(".next/")) return ".next bundle (our code + next)";
  return url.replace(/^file:\/\/\/work\/main\//, "");
};
for (const [id, t] of dt) {
  const n = byId.get(id);
  const cf = n.callFrame;
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
const pct = (t) => ((100 * t) / total).toFixed(1) + "%";
console.log("total sampled ms", (total / 1000).toFixed(0));
console.log("-- by area");
for (const [k, t] of [...area].sort((a, b) => b[1] - a[1]).slice(0, 18)) console.log(pct(t).padStart(7), k);
console.log("-- top functions");
for (const [k, t] of [...fn].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(pct(t).padStart(7), k);

// Whose time: samples by stackClassifier; garbage collection and idle are their own.
const whose = stackClassifier(nodes);
const time = { ours: 0, engine: 0, framework: 0, loading: 0 };
let gc = 0,
  idle = 0;
for (const [id, t] of dt) {
  const name = byId.get(id).callFrame.functionName;
  if (name === "(idle)") idle += t;
  else if (name === "(garbage collector)") gc += t;
  else time[whose(id)] += t;
}
const busy = total - idle - time.loading;
const share = (t) => `${((100 * t) / busy).toFixed(1).padStart(6)}%`;
console.log(
  `-- whose time (share of the busy time, ${(time.loading / 1000).toFixed(0)} ms of module loading left out)`,
);
console.log(`${share(time.ours)} ours: stacks through our functions or a database client`);
if (time.engine > 0)
  console.log(`${share(time.engine)} database engine: PGlite (its WebAssembly PostgreSQL and wire parsing)`);
console.log(`${share(gc)} garbage collection`);
console.log(`${share(time.framework)} framework: Node.js and Next.js outside our functions`);

// Whose garbage: the allocation profile is a call tree of sampled allocations (objects the GC already
// collected included). Its bytes are split like the CPU samples, and GC time is charged to each side by
// its share of the bytes allocated outside module loading.
if (process.argv[3]) {
  const heap = JSON.parse(readFileSync(process.argv[3], "utf8"));
  const flat = [];
  const visit = (n) => {
    flat.push({ id: n.id, callFrame: n.callFrame, children: n.children.map((c) => c.id) });
    n.children.forEach(visit);
  };
  visit(heap.head);
  const whoseBytes = stackClassifier(flat);
  const bytes = { ours: 0, engine: 0, framework: 0, loading: 0 };
  const known = new Set(flat.map((n) => n.id));
  // A sample whose node the profile does not hold (V8 left it out of the tree) counts as no one's.
  for (const s of heap.samples) if (known.has(s.nodeId)) bytes[whoseBytes(s.nodeId)] += s.size;
  const allocated = bytes.ours + bytes.engine + bytes.framework;
  const part = (b) => b / allocated;
  console.log(
    `-- whose garbage (${(allocated / 2 ** 20).toFixed(0)} MB allocated, sampled; ${(bytes.loading / 2 ** 20).toFixed(0)} MB of module loading left out)`,
  );
  for (const side of ["ours", "engine", "framework"]) {
    if (side === "engine" && bytes.engine === 0) continue;
    console.log(
      `${(100 * part(bytes[side])).toFixed(1).padStart(6)}% of the bytes: ${side}; with that share of GC, ${side} is ${share(time[side] + gc * part(bytes[side])).trim()} of the busy time`,
    );
  }
}
