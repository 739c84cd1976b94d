import path from "node:path";
import { Worker } from "node:worker_threads";

// gpt-tokenizer's o200k tables are about 22 MB of live JavaScript objects (200,000 strings and a map). In the
// serving thread every full collection would mark them for the rest of the process's life, a few percent
// of every request and a longer p99 tail once one AI reply has run (issue 22, bench/HISTORY.md fourteenth
// session). So they live in a worker thread with its own heap; the serving thread only sends texts.
//
// The worker is CommonJS code run with `eval`, so neither Next.js's bundler nor the server bundle has to
// know of a second entry; it resolves gpt-tokenizer itself, from the directory it is given.
const WORKER_CODE = `
const { parentPort, workerData } = require("node:worker_threads");
const { createRequire } = require("node:module");
const { countTokens } = require(createRequire(workerData.from).resolve("gpt-tokenizer"));
function longestPrefix(text, head, allowed) {
  const chars = Array.from(text);
  let lo = 0;
  let hi = chars.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (countTokens(head + chars.slice(0, mid).join("")) <= allowed) lo = mid;
    else hi = mid - 1;
  }
  const prefix = chars.slice(0, lo).join("");
  return { prefix, tokens: countTokens(head + prefix) };
}
parentPort.on("message", (m) => {
  try {
    const result = m.op === "count" ? m.texts.map((t) => countTokens(t)) : longestPrefix(m.text, m.head, m.allowed);
    parentPort.postMessage({ id: m.id, result });
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: String((err && err.message) || err) });
  }
});
`;

type Request =
  { op: "count"; texts: readonly string[] } | { op: "prefix"; text: string; head: string; allowed: number };

interface Pending {
  resolve(result: unknown): void;
  reject(err: Error): void;
}

let worker: Worker | null = null;
let nextId = 0;
const pending = new Map<number, Pending>();

/** Where the worker resolves gpt-tokenizer from: the project's directory (its node_modules). */
function resolveFrom(): string {
  // import.meta.url is this source file under tsx and vitest, the bundle under `npm start`; both resolve
  // upwards to the project's node_modules. A bundler that rewrites it to something else gets the cwd.
  const url = import.meta.url;
  return url.startsWith("file:") ? url : path.join(process.cwd(), "package.json");
}

function start(): Worker {
  // No inherited Node.js options: the worker needs none, and one like `--import` (a preloaded probe, tsx)
  // or `--input-type=module` would load into it or turn its CommonJS code into a module. V8's flags (heap
  // and GC settings) are the process's and apply to it all the same.
  const w = new Worker(WORKER_CODE, { eval: true, execArgv: [], workerData: { from: resolveFrom() } });
  w.on("message", (m: { id: number; result?: unknown; error?: string }) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.error !== undefined) p.reject(new Error(`token counter: ${m.error}`));
    else p.resolve(m.result);
    if (pending.size === 0) w.unref();
  });
  const fail = (err: Error) => {
    if (worker === w) worker = null;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  w.on("error", fail);
  w.on("exit", (code) => fail(new Error(`token counter: the worker exited with code ${code}`)));
  w.unref();
  return w;
}

function ask<R>(req: Request): Promise<R> {
  const w = (worker ??= start());
  const id = nextId++;
  return new Promise<R>((resolve, reject) => {
    pending.set(id, { resolve: resolve as (r: unknown) => void, reject });
    // Held while a count is outstanding, so a script that waits on one is not ended under it.
    w.ref();
    w.postMessage({ id, ...req });
  });
}

/**
 * o200k token counts (gpt-tokenizer's `countTokens`) of `texts`, in order, computed in the token counter's
 * worker thread (started on the first call; a worker that died is replaced on the next).
 * @returns one count per text
 * @throws Error when the worker fails or exits before answering
 */
export function countTokens(texts: readonly string[]): Promise<number[]> {
  if (texts.length === 0) return Promise.resolve([]);
  return ask<number[]>({ op: "count", texts });
}

/**
 * The longest prefix of `text`, cut between characters (code points), for which `head + prefix` counts at
 * most `allowed` o200k tokens, by binary search in the worker (counts only grow with the prefix). Cut at a
 * character, not at a token: decoding part of a character's tokens would leave a broken character.
 * @returns the prefix and the count of `head + prefix`
 * @throws Error when the worker fails or exits before answering
 */
export function longestPrefixWithin(
  text: string,
  head: string,
  allowed: number,
): Promise<{ prefix: string; tokens: number }> {
  return ask({ op: "prefix", text, head, allowed });
}

/** Stops the worker (tests; it is unreferenced otherwise and ends with the process). The next count starts a new one. */
export async function stopTokenCounter(): Promise<void> {
  const w = worker;
  worker = null;
  if (w) await w.terminate();
}
