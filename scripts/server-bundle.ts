import { spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { newestSourceMs } from "./ensure-build";

/** The old-generation heap limit of a bundled server, MB (issue 22 item 4: ≤ 400 MB resident under load). */
export const SERVER_HEAP_MB = 256;

/**
 * V8 flags of a bundled server (`npm start`, `npm run demo`, `npm run bench`), chosen with the bench
 * (bench/HISTORY.md):
 * - `--max-semi-space-size=16`: a young generation large enough that the objects of requests still in
 *   flight die young instead of being promoted at each scavenge, which filled the old generation and
 *   called for a full collection every few seconds under load;
 * - `--max-old-space-size=256` ({@link SERVER_HEAP_MB}), unless `NODE_OPTIONS` sets its own: V8 let the
 *   old generation grow to several times the ~90 MB that stays live (peak 490 MB resident under the
 *   bench); capped, the server stays near 250 MB at about the same throughput;
 * - `--no-allocation-site-pretenuring`: V8 otherwise learns from the objects that survive a scavenge which
 *   allocation sites make long-lived objects and allocates those sites' objects in the old generation from
 *   then on. Under load it learns this of sites that make per-request objects (29 sites within seconds
 *   under `GET /api/health`, `--trace-pretenuring`), so requests' objects are born old; dead there until
 *   the next full collection, they keep the young objects they point to alive through every scavenge, and
 *   those are promoted in turn. Without it, V8's own counters (`--trace-gc-nvp`) gave 8.8-9.1 KB promoted
 *   a request under `GET /api/health` instead of 16.4-17.0, and a full collection every ~1,100 requests
 *   instead of every ~750 (bench/HISTORY.md, eighteenth session);
 * - `--single-threaded-gc` when the server may run on one core only (`os.availableParallelism()` follows
 *   the CPU affinity, e.g. `taskset`): V8's helper threads would only take turns with the main thread
 *   there, and the bench's p99 was a third lower without them.
 * @param cores cores the server may use (default: this process's)
 * @param nodeOptions the `NODE_OPTIONS` the server will see
 * @returns flags to pass before the bundle's path
 */
export function serverNodeFlags(
  cores: number = os.availableParallelism(),
  nodeOptions: string = process.env.NODE_OPTIONS ?? "",
): string[] {
  return [
    "--max-semi-space-size=16",
    "--no-allocation-site-pretenuring",
    ...(nodeOptions.includes("--max-old-space-size") ? [] : [`--max-old-space-size=${SERVER_HEAP_MB}`]),
    ...(cores <= 1 ? ["--single-threaded-gc"] : []),
  ];
}

/** Set in the environment of a bundled server, so it serves instead of launching itself again. */
export const BUNDLED_ENV = "PLATFORM_SERVER_BUNDLE";

/**
 * The environment of a bundled server: `base` with {@link BUNDLED_ENV} and, unless `base` sets its own,
 * `MALLOC_ARENA_MAX=2`. glibc gives each thread that allocates (V8's compiler and GC helpers, libuv's
 * pool) a malloc arena of its own, up to 8 per core, and each keeps the memory it once held; two arenas
 * hold the server's native allocations in less resident memory (issue 22 item 4, bench/HISTORY.md).
 * @param base the environment to extend (default: this process's)
 */
export function serverProcessEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { MALLOC_ARENA_MAX: "2", ...base, [BUNDLED_ENV]: "1" };
}

/**
 * Compiles `entry` (a script under scripts/) with everything of ours it imports into one ES module,
 * `.next/platform/<name>.mjs`, when there is none or a source is newer; packages stay imports of
 * node_modules. Running our TypeScript through tsx at run time kept a second, transpiled copy of the
 * server's modules with their source maps in memory (about 200 MB resident on the demo's server).
 * @returns the absolute path of the bundle
 * @throws Error when esbuild reports an error (its message names the file and line)
 */
export async function ensureServerBundle(entry: string, name: string, root: string = process.cwd()): Promise<string> {
  const out = path.join(root, ".next", "platform", `${name}.mjs`);
  const newest = Math.max(newestSourceMs(root), newestScriptMs(root));
  if (existsSync(out) && statSync(out).mtimeMs >= newest) return out;
  // Loaded here only: the bundled server itself never needs the compiler.
  const { build } = await import("esbuild");
  await build({
    entryPoints: [path.join(root, entry)],
    outfile: out,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    tsconfig: path.join(root, "tsconfig.json"),
    logLevel: "warning",
    // Packages written in CommonJS are still loaded with require() by the code that esbuild inlines.
    banner: {
      js: "import { createRequire as __platformRequire } from 'node:module'; const require = __platformRequire(import.meta.url);",
    },
  });
  return out;
}

/** The newest modification time (ms) of the scripts/ sources (tests aside) that a bundle may include. */
function newestScriptMs(root: string): number {
  const dir = path.join(root, "scripts");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
    .reduce((newest, f) => Math.max(newest, statSync(path.join(dir, f)).mtimeMs), 0);
}

/**
 * Runs `bundle` in a child Node process with {@link serverNodeFlags} and this process's arguments,
 * passes SIGINT and SIGTERM on to it, and exits with its exit code. Never returns.
 */
export function runBundledServer(bundle: string): void {
  const child = spawn(process.execPath, [...serverNodeFlags(), bundle, ...process.argv.slice(2)], {
    stdio: "inherit",
    env: serverProcessEnv(),
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
