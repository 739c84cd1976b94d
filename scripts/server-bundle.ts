import { spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { newestSourceMs } from "./ensure-build";

/**
 * V8 flags of a bundled server: a 2 MB young generation (16 MB by default) keeps about 40 MB less
 * resident at idle for a few more scavenges under load.
 */
export const SERVER_NODE_FLAGS = ["--max-semi-space-size=2"];

/** Set in the environment of a bundled server, so it serves instead of launching itself again. */
export const BUNDLED_ENV = "PLATFORM_SERVER_BUNDLE";

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
 * Runs `bundle` in a child Node process with {@link SERVER_NODE_FLAGS} and this process's arguments,
 * passes SIGINT and SIGTERM on to it, and exits with its exit code. Never returns.
 */
export function runBundledServer(bundle: string): void {
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, bundle, ...process.argv.slice(2)], {
    stdio: "inherit",
    env: { ...process.env, [BUNDLED_ENV]: "1" },
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
