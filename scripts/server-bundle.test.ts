import { readFileSync, statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ensureServerBundle } from "./server-bundle";

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
