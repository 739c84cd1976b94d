import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { servePublicApi, serveSentUrl } from "./door";
import { OWN_FILE_PATHS, STATIC_DOOR_PATH } from "./static-door";
import { PREVIEW_ROUTES, ROUTES } from "./routes";

// The static paths of the route table have a Next.js route file each beside the catch-all (door.ts says
// why). The files must stay the same set as the table's static paths, and each must be the same door:
// a path added to the table without its file would only be slower, but a file left behind by a removed
// route, or one that answers by itself, would bypass the table.

const API_DIR = path.join(process.cwd(), "app/api/public/v1");
const METHODS = ["GET", "POST", "PATCH", "PUT", "DELETE", "HEAD", "OPTIONS"] as const;

/** Paths below /api/public/v1 that have a route file (route.ts, .js, .tsx...), e.g. "/me", "/strategist/reports". */
function routeFilePaths(dir = API_DIR): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) found.push(...routeFilePaths(full));
    else if (/^route\.[jt]sx?$/.test(name)) found.push("/" + path.relative(API_DIR, dir).split(path.sep).join("/"));
  }
  return found;
}

describe("static route files of the public API", () => {
  const door = STATIC_DOOR_PATH.slice("/api/public/v1".length);
  const files = routeFilePaths().filter((p) => p !== "/[[...path]]" && p !== "/openapi.json" && p !== door);
  const staticPaths = [...new Set([...ROUTES, ...PREVIEW_ROUTES].map((r) => r.path).filter((p) => !p.includes("{")))];

  it("exist for exactly the route table's static paths", () => {
    expect(staticPaths).toContain("/me");
    expect(staticPaths).toContain("/strategist/reports");
    expect([...files].sort()).toEqual([...staticPaths].sort());
  });

  it("are the paths the server leaves to Next.js as sent (static-door.ts OWN_FILE_PATHS)", () => {
    expect([...OWN_FILE_PATHS].sort()).toEqual([...staticPaths, "/openapi.json"].sort());
  });

  it.each(["/[[...path]]", ...staticPaths])("%s serves every method through the one door, dynamically", async (p) => {
    const mod = (await import(path.join(API_DIR, p, "route.ts"))) as Record<string, unknown>;
    for (const method of METHODS) expect(mod[method], method).toBe(servePublicApi);
    expect(mod.dynamic).toBe("force-dynamic");
    expect(mod.runtime).toBe("nodejs");
  });

  it("include the static door of the parameterised paths, which serves the sent URL (static-door.ts)", async () => {
    expect(staticPaths).not.toContain(door);
    const mod = (await import(path.join(API_DIR, door, "route.ts"))) as Record<string, unknown>;
    for (const method of METHODS) expect(mod[method], method).toBe(serveSentUrl);
    expect(mod.dynamic).toBe("force-dynamic");
    expect(mod.runtime).toBe("nodejs");
  });
});
