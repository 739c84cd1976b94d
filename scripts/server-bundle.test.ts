import { spawnSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BUNDLED_ENV, ensureServerBundle, serverNodeFlags, serverProcessEnv } from "./server-bundle";

// The demo's server runs from one compiled module rather than through tsx (issue 19 item 1: idle memory).
describe("ensureServerBundle", () => {
  it("inlines our modules, leaves packages to node_modules, and is not rebuilt when current", async () => {
    const out = await ensureServerBundle("scripts/demo.ts", "demo");
    const code = readFileSync(out, "utf8");
    expect(code).not.toMatch(/from ["']@\//); // every `@/…` import was compiled in
    expect(code).toMatch(/import\(["']next["']\)|from ["']next["']/); // packages stay imports
    const made = statSync(out).mtimeMs;
    await ensureServerBundle("scripts/demo.ts", "demo");
    expect(statSync(out).mtimeMs).toBe(made);
  }, 60_000);
});

// V8 flags of the bundled server (issue 22 item 4: memory under load; bench/HISTORY.md).
describe("serverNodeFlags", () => {
  it("turns pretenuring off, caps the old generation unless NODE_OPTIONS does, and runs GC on the main thread with one core", () => {
    const young = ["--max-semi-space-size=16", "--no-allocation-site-pretenuring"];
    expect(serverNodeFlags(2, "")).toEqual([...young, "--max-old-space-size=256"]);
    expect(serverNodeFlags(1, "")).toEqual([...young, "--max-old-space-size=256", "--single-threaded-gc"]);
    expect(serverNodeFlags(4, "--max-old-space-size=1024")).toEqual(young);
  });

  it("the flags are accepted by this Node.js", () => {
    const run = spawnSync(process.execPath, [...serverNodeFlags(1, ""), "-e", "process.exit(0)"]);
    expect(run.stderr.toString()).toBe("");
    expect(run.status).toBe(0);
  });
});

// The environment of the bundled server (issue 22 item 4: fewer malloc arenas, less resident memory).
describe("serverProcessEnv", () => {
  it("limits glibc to two malloc arenas unless the environment chooses, and marks the bundle", () => {
    const env = (vars: Record<string, string>) => vars as NodeJS.ProcessEnv; // Next.js's type wants NODE_ENV
    expect(serverProcessEnv(env({ PORT: "3000" }))).toEqual({
      PORT: "3000",
      MALLOC_ARENA_MAX: "2",
      [BUNDLED_ENV]: "1",
    });
    expect(serverProcessEnv(env({ MALLOC_ARENA_MAX: "8" })).MALLOC_ARENA_MAX).toBe("8");
  });
});
