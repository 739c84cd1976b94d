import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

/** What the production build is made from: a change to any of these makes the build stale. */
const SOURCE_DIRS = ["app", "server", "db", "inngest", "types"];
const SOURCE_FILES = ["next.config.ts", "proxy.ts", "tsconfig.json", "package-lock.json", "postcss.config.mjs"];
/** Test files and test helpers are not part of the build. */
const NOT_BUILT = /\.(test|spec)\.tsx?$|[/\\]server[/\\](testing|architecture)[/\\]/;

/** The newest modification time (ms since the epoch) of the build's sources under `root`. */
export function newestSourceMs(root: string): number {
  let newest = 0;
  const see = (file: string) => {
    if (NOT_BUILT.test(file)) return;
    newest = Math.max(newest, statSync(file).mtimeMs);
  };
  for (const dir of SOURCE_DIRS) {
    const abs = path.join(root, dir);
    if (!existsSync(abs)) continue;
    for (const entry of readdirSync(abs, { recursive: true, withFileTypes: true }))
      if (entry.isFile()) see(path.join(entry.parentPath, entry.name));
  }
  for (const file of SOURCE_FILES) if (existsSync(path.join(root, file))) see(path.join(root, file));
  return newest;
}

/**
 * Why the production build under `root` must be made again, or null when it is current: there is none
 * yet (`.next/BUILD_ID` missing), or a source changed after it was made.
 */
export function staleBuildReason(root: string): string | null {
  const id = path.join(root, ".next", "BUILD_ID");
  if (!existsSync(id)) return "no production build yet";
  return newestSourceMs(root) > statSync(id).mtimeMs ? "sources changed since the last build" : null;
}

/**
 * Makes the production build (`next build`) when {@link staleBuildReason} says so, with its output on
 * this terminal, so `npm run demo` always serves what the sources say.
 * @throws Error when the build fails (its own output says why)
 */
export function ensureProductionBuild(root: string = process.cwd()): void {
  const reason = staleBuildReason(root);
  if (!reason) return;
  console.log(`Building the app for production (${reason}); this takes a few minutes the first time…`);
  const r = spawnSync("npx", ["next", "build"], { cwd: root, stdio: "inherit", env: process.env });
  if (r.status !== 0) throw new Error(`next build failed (exit ${r.status ?? r.signal}); see its output above.`);
}
