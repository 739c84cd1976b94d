// Whose work a profile's stack is, shared by the CPU and the allocation summaries (bench/profile-summary.mjs).
// A stack is "loading" when it compiles or loads modules (the process's start and first requests, not a
// scenario's work); "engine" when its own frame runs inside PGlite (its WebAssembly PostgreSQL, or PGlite's
// JS that moves and parses the wire messages): on the embedded database the work PostgreSQL's server
// processes do elsewhere runs in the app's process, and the stack fixes PGlite as the embedded database,
// so its cost per query and per row is a floor like the framework's; "ours" when a frame of the stack is
// one of our functions (declared in server/, db/ or inngest/; needs the unminified server build,
// next.config.ts `serverMinification: false`) or a database client's (postgres.js, drizzle, ioredis);
// "framework" otherwise: Node's HTTP and web objects, Next.js's router and route runtime, and the packages
// they call.
import { readdirSync, readFileSync, statSync } from "node:fs";
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
const root = path.join(import.meta.dirname, "..");

/** Names of the functions declared in our sources (a bundled chunk keeps them with `serverMinification: false`). */
export const ourNames = new Set();
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
for (const d of ["server", "db", "inngest"]) walk(path.join(root, d));
/** Our sources when run unbundled (tsx). */
const OUR_DIRS = ["server", "db", "inngest"].map((d) => `${root}/${d}/`);
/** Database clients: their work (building, sending, parsing our queries) runs for our queries, often in
 * callbacks of their own (socket writes on setImmediate), so it counts as ours wherever it sits. */
const DB_CLIENTS = ["node_modules/postgres/", "node_modules/drizzle-orm/", "node_modules/ioredis/"];
/** Loading and compiling modules. */
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

/**
 * A classifier of the stacks of one profile.
 * @param nodes the profile's call-tree nodes, each `{ id, callFrame: { functionName, url }, children?: id[] }`
 * @returns `whose(id)`: "loading", "engine", "ours" or "framework" for the stack ending at node `id`
 */
export function stackClassifier(nodes) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
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
  const loadingOf = onStack((n) => LOADING.has(n.callFrame.functionName));
  const oursOf = onStack((n) => {
    const url = n.callFrame.url ?? "";
    return (
      (url.includes(".next/") && ourNames.has(n.callFrame.functionName)) ||
      OUR_DIRS.some((d) => url.includes(d)) ||
      DB_CLIENTS.some((d) => url.includes(d))
    );
  });
  const isEngine = (n) => {
    const url = n.callFrame.url ?? "";
    return url.startsWith("wasm://") || url.includes("node_modules/@electric-sql/pglite/");
  };
  return (id) => (loadingOf(id) ? "loading" : isEngine(byId.get(id)) ? "engine" : oursOf(id) ? "ours" : "framework");
}
