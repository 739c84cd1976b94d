// Whose work a profile's stack is, shared by the CPU and the allocation summaries (bench/profile-summary.ts)
// and the bench's profiles of missed targets (bench/miss-profile.ts). A stack is "loading" when it compiles
// or loads modules (the process's start and first requests, not a scenario's work); "engine" when its own
// frame runs inside PGlite (its WebAssembly PostgreSQL, or PGlite's JS that moves and parses the wire
// messages): on the embedded database the work PostgreSQL's server processes do elsewhere runs in the app's
// process, and the stack fixes PGlite as the embedded database, so its cost per query and per row is a floor
// like the framework's; "ours" when a frame of the stack is one of our functions (declared in server/, db/
// or inngest/; needs the unminified server build, next.config.ts `serverMinification: false`) or a database
// client's (postgres.js, drizzle, ioredis); "framework" otherwise: Node's HTTP and web objects, Next.js's
// router and route runtime, and the packages they call.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/** Whose a stack is. */
export type Owner = "loading" | "engine" | "ours" | "framework";

/** A call-frame as V8's CPU and heap profiles give it. */
interface CallFrame {
  functionName: string;
  url?: string;
  lineNumber?: number;
}

/** A node of a CPU profile's flat call tree (`children` are node ids). */
export interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

/** A V8 `.cpuprofile` (node --cpu-prof): timestamps in µs of the monotonic clock. */
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A node of a sampling heap profile (nested `children`). */
interface HeapNode {
  id: number;
  callFrame: CallFrame;
  children: HeapNode[];
}

/** A V8 sampling heap profile (`.heapprofile`, bench/allocation-probe.mjs). */
export interface HeapProfile {
  head: HeapNode;
  samples: { nodeId: number; size: number }[];
}

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
export const ourNames = new Set<string>();
const walk = (dir: string) => {
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
 * @returns `whose(id)`: the {@link Owner} of the stack ending at node `id`
 */
export function stackClassifier(nodes: ProfileNode[]): (id: number) => Owner {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  /** `frame(node)` true for a node or any of its callers, memoized per node id. */
  const onStack = (frame: (n: ProfileNode) => boolean) => {
    const seen = new Map<number, boolean>();
    const test = (id: number): boolean => {
      const known = seen.get(id);
      if (known !== undefined) return known;
      const p = parent.get(id);
      const v = frame(byId.get(id)!) || (p !== undefined && test(p));
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
  const isEngine = (n: ProfileNode) => {
    const url = n.callFrame.url ?? "";
    return url.startsWith("wasm://") || url.includes("node_modules/@electric-sql/pglite/");
  };
  return (id) => (loadingOf(id) ? "loading" : isEngine(byId.get(id)!) ? "engine" : oursOf(id) ? "ours" : "framework");
}

/** A CPU profile's sampled time by owner, µs; garbage collection and idle time are their own. */
export type TimeByOwner = Record<Owner | "gc" | "idle", number>;

/**
 * The sampled time of a CPU profile by owner, µs.
 * @param window `[from, to]` in µs of the monotonic clock: only samples taken within it count. V8's profile
 *   timestamps and `process.hrtime` read the same clock (CLOCK_MONOTONIC on Linux), so another process can
 *   give the window of a scenario it drove.
 */
export function timeByOwner(profile: CpuProfile, window?: [from: number, to: number]): TimeByOwner {
  const whose = stackClassifier(profile.nodes);
  const names = new Map(profile.nodes.map((n) => [n.id, n.callFrame.functionName]));
  const out: TimeByOwner = { ours: 0, engine: 0, framework: 0, loading: 0, gc: 0, idle: 0 };
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i] ?? 0;
    at += dt;
    if (window && (at < window[0] || at > window[1])) continue;
    const id = profile.samples[i];
    const name = names.get(id);
    if (name === "(idle)") out.idle += dt;
    else if (name === "(garbage collector)") out.gc += dt;
    else out[whose(id)] += dt;
  }
  return out;
}

/** Bytes a sampling heap profile saw allocated, by owner (objects already collected included). */
export function bytesByOwner(heap: HeapProfile): Record<Owner, number> {
  const flat: ProfileNode[] = [];
  const visit = (n: HeapNode) => {
    flat.push({ id: n.id, callFrame: n.callFrame, children: n.children.map((c) => c.id) });
    n.children.forEach(visit);
  };
  visit(heap.head);
  const whose = stackClassifier(flat);
  const bytes: Record<Owner, number> = { ours: 0, engine: 0, framework: 0, loading: 0 };
  const known = new Set(flat.map((n) => n.id));
  // A sample whose node the profile does not hold (V8 left it out of the tree) counts as no one's.
  for (const s of heap.samples) if (known.has(s.nodeId)) bytes[whose(s.nodeId)] += s.size;
  return bytes;
}

/** Shares (0-1) of a profile's busy time: module loading and idle time left out. */
export interface BusyShares {
  ours: number;
  engine: number;
  framework: number;
  /** Garbage collection not charged to a side: all of it without an allocation profile, else 0. */
  gc: number;
  /** Busy time the shares divide, µs. */
  busyUs: number;
}

/**
 * Each owner's share of the busy time. Given the bytes each side allocated (outside module loading), the
 * garbage collector's time is charged to the sides in proportion: V8 spends it on what every layer allocated.
 */
export function busyShares(time: TimeByOwner, bytes?: Record<Owner, number>): BusyShares {
  const busy = time.ours + time.engine + time.framework + time.gc;
  const allocated = bytes ? bytes.ours + bytes.engine + bytes.framework : 0;
  const part = (side: "ours" | "engine" | "framework") => (allocated > 0 ? bytes![side] / allocated : 0);
  const share = (side: "ours" | "engine" | "framework") => (busy > 0 ? (time[side] + time.gc * part(side)) / busy : 0);
  return {
    ours: share("ours"),
    engine: share("engine"),
    framework: share("framework"),
    gc: busy > 0 && allocated === 0 ? time.gc / busy : 0,
    busyUs: busy,
  };
}
