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

// Whose time: a sample is "database engine" when it runs inside PGlite (its WebAssembly PostgreSQL, or
// PGlite's JS that moves and parses the wire messages): on the embedded database the work PostgreSQL's
// server processes do elsewhere runs in the app's process; the stack fixes PGlite as the embedded
// database, so its cost per query and per row is a floor like the framework's. Otherwise a sample is
// "ours" when a frame of its stack is one of our functions (declared in server/, db/ or inngest/; needs
// the unminified server build, next.config.ts `serverMinification: false`) or a database client's
// (postgres.js, drizzle, ioredis), "GC" when V8 collects garbage (allocations of every layer), and
// "framework" otherwise: Node's HTTP and web objects, Next.js's router and route runtime, and the
// packages they call.
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
const GENERIC = new Set([
  "run",
  "get",
  "set",
  "has",
  "map",
  "next",
  "then",
  "handler",
  "default",
  "main",
  "close",
  "stop",
  "start",
  "call",
  "send",
  "write",
  "read",
  "parse",
  "execute",
  "query",
  "value",
  "values",
  "done",
  "resolve",
  "reject",
  "push",
  "fn",
  "step",
]);
const ourNames = new Set();
const walk = (dir) => {
  for (const f of readdirSync(dir)) {
    const p = path.join(dir, f);
    if (statSync(p).isDirectory()) walk(p);
    else if (/\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f))
      for (const m of readFileSync(p, "utf8").matchAll(
        /(?:function\s*\*?\s+|(?:const|let)\s+)([A-Za-z_$][\w$]*)\s*(?:=\s*(?:async\s*)?(?:\(|[A-Za-z_$][\w$]*\s*=>|function)|[<(])/g,
      ))
        if (m[1].length > 3 && !GENERIC.has(m[1])) ourNames.add(m[1]);
  }
};
const root = path.join(import.meta.dirname, "..");
for (const d of ["server", "db", "inngest"]) walk(path.join(root, d));
/** Our sources when run unbundled (tsx). */
const OUR_DIRS = ["server", "db", "inngest"].map((d) => `${root}/${d}/`);
/** Database clients: their work (building, sending, parsing our queries) runs for our queries, often in
 * callbacks of their own (socket writes on setImmediate), so it counts as ours wherever it sits. */
const DB_CLIENTS = ["node_modules/postgres/", "node_modules/drizzle-orm/", "node_modules/ioredis/"];
/** The embedded database engine: a sample whose own frame is PGlite's WebAssembly or PGlite's JS. */
const isEngine = (n) => {
  const url = n.callFrame.url ?? "";
  return url.startsWith("wasm://") || url.includes("node_modules/@electric-sql/pglite/");
};
const parent = new Map();
for (const n of nodes) for (const c of n.children ?? []) parent.set(c, n.id);
/** `frame(node)` true for a node or any of its callers, memoized per node id. */
const onStack = (frame) => {
  const seen = new Map();
  const test = (id) => {
    if (seen.has(id)) return seen.get(id);
    const p = parent.get(id);
    const v = frame(byId.get(id)) || (p !== undefined && test(p));
    seen.set(id, v);
    return v;
  };
  return test;
};
const oursOf = onStack((n) => {
  const url = n.callFrame.url ?? "";
  return (
    (url.includes(".next/") && ourNames.has(n.callFrame.functionName)) ||
    OUR_DIRS.some((d) => url.includes(d)) ||
    DB_CLIENTS.some((d) => url.includes(d))
  );
});
/** Loading and compiling modules: the process's start and first requests, not the scenario's work. */
const LOADING = new Set([
  "dlopen",
  "wrapSafe",
  "compileSourceTextModule",
  "readFileUtf8",
  "compileFunction",
  "Module._load",
  "Module._compile",
  "Module.require",
  "require",
  "loadESM",
  "link",
  "instantiate",
  "moduleEvaluation",
  "internalCompileFunction",
  "importModuleDynamically",
]);
const loadingOf = onStack((n) => LOADING.has(n.callFrame.functionName));
let ours = 0,
  engine = 0,
  gc = 0,
  idle = 0,
  loading = 0;
for (const [id, t] of dt) {
  const name = byId.get(id).callFrame.functionName;
  if (name === "(idle)") idle += t;
  else if (name === "(garbage collector)") gc += t;
  else if (loadingOf(id)) loading += t;
  else if (isEngine(byId.get(id))) engine += t;
  else if (oursOf(id)) ours += t;
}
const busy = total - idle - loading;
console.log(`-- whose time (share of the busy time, ${(loading / 1000).toFixed(0)} ms of module loading left out)`);
console.log(
  `${((100 * ours) / busy).toFixed(1).padStart(6)}% ours: stacks through our functions (${ourNames.size} names)`,
);
if (engine > 0)
  console.log(
    `${((100 * engine) / busy).toFixed(1).padStart(6)}% database engine: PGlite (its WebAssembly PostgreSQL and wire parsing)`,
  );
console.log(`${((100 * gc) / busy).toFixed(1).padStart(6)}% garbage collection`);
console.log(
  `${((100 * (busy - ours - engine - gc)) / busy).toFixed(1).padStart(6)}% framework: Node.js and Next.js outside our functions`,
);
