import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import type { Database } from "./client";
import { openDatabase } from "./client";
import { serveEmbedded } from "./embedded-socket";

// PGlite allows one opener per directory. While the app runs it owns `.data/pglite`, so it also serves
// that database on a loopback socket (db/embedded-socket.ts: one unit of work at a time with the app's own
// queries) and writes the port beside it; `npm run admin` and other scripts connect there with
// postgres.js. When the app is not running they open the directory themselves.

/** File holding the port of the running app's PGlite socket: `<dir of PGLITE_DIR>/pglite.port`. */
export function portFile(pgliteDir: string): string {
  return path.join(path.dirname(path.resolve(pgliteDir)), "pglite.port");
}

/**
 * Serves an open PGlite database on 127.0.0.1 (port 0 = any free port) and records the port.
 * @returns a function that stops the socket and removes the port file.
 */
export async function shareEmbedded(d: Database, pgliteDir: string, port = 0): Promise<() => Promise<void>> {
  if (!d.pglite) throw new Error("shareEmbedded needs an embedded (PGlite) database");
  const server = await serveEmbedded(d.pglite, { host: "127.0.0.1", port });
  const file = portFile(pgliteDir);
  writeFileSync(file, `${server.port}\n`);
  return async () => {
    rmSync(file, { force: true });
    await server.stop();
  };
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: "127.0.0.1", port });
    s.setTimeout(1000);
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
    s.once("timeout", () => {
      s.destroy();
      resolve(false);
    });
  });
}

/**
 * Opens the database for a script: PostgreSQL when `url` is set; else the running app's shared PGlite
 * through its socket; else the PGlite directory directly (migrated first).
 */
export async function openForScript(opts: {
  url?: string;
  pgliteDir: string;
}): Promise<Database & { via: "postgres" | "socket" | "directory" }> {
  if (opts.url) return { ...(await openDatabase({ url: opts.url, migrate: true, poolSize: 2 })), via: "postgres" };
  const file = portFile(opts.pgliteDir);
  if (existsSync(file)) {
    const port = Number(readFileSync(file, "utf8").trim());
    if (port > 0 && (await canConnect(port))) {
      const d = await openDatabase({ url: `postgres://postgres@127.0.0.1:${port}/postgres`, poolSize: 1 });
      return { ...d, via: "socket" };
    }
    rmSync(file, { force: true }); // left by an app that did not stop cleanly
  }
  return { ...(await openDatabase({ dir: opts.pgliteDir, migrate: true })), via: "directory" };
}
