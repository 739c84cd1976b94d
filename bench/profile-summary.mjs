// Summarises a V8 .cpuprofile (node --cpu-prof): self time by package or file and the top functions.
// Used by `npm run bench -- --profile`; `node bench/profile-summary.mjs <file>` works on any profile.
import { readFileSync } from "node:fs";
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
