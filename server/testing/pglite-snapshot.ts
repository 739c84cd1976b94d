import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { MIGRATIONS, openDatabase, PGLITE_CONF } from "@/db/client";

/** Where migrated snapshots are kept between runs (under node_modules: never committed, gone with `npm ci`). */
const CACHE_DIR = path.join(process.cwd(), "node_modules", ".cache", "platform-tests");

let pending: Promise<Blob> | undefined;

/**
 * A PGlite data directory with every committed migration applied, as a tar (`PGlite.dumpDataDir`), for
 * test databases to start from: loading it takes ~0.3 s where creating a database and running the
 * migrations takes ~2 s, and most test files open one. The file is named after a SHA-256 of the
 * migrations (names and contents), PGlite's version and its settings, so a changed migration makes a
 * new one; the first test process that needs it writes it (atomically, by rename), the others read it.
 * @returns the snapshot, read once per process
 */
export function migratedPgliteSnapshot(): Promise<Blob> {
  pending ??= load();
  return pending;
}

async function load(): Promise<Blob> {
  const file = path.join(CACHE_DIR, `pglite-migrated-${snapshotKey()}.tar`);
  if (existsSync(file)) return new Blob([readFileSync(file)]);
  const d = await openDatabase({ dir: "memory://", migrate: true });
  try {
    const dump = await d.pglite!.dumpDataDir("none");
    const bytes = new Uint8Array(await dump.arrayBuffer());
    mkdirSync(CACHE_DIR, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, bytes);
    renameSync(tmp, file);
    return new Blob([bytes]);
  } finally {
    await d.close();
  }
}

/** SHA-256 (hex, 16 chars) of the migrations' names and contents, PGlite's version and its settings. */
function snapshotKey(): string {
  const h = createHash("sha256");
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else h.update(path.relative(MIGRATIONS, p)).update("\0").update(readFileSync(p)).update("\0");
    }
  };
  walk(MIGRATIONS);
  // The package does not export its package.json; it is installed under the project's node_modules.
  const pkg = JSON.parse(
    readFileSync(path.join(process.cwd(), "node_modules", "@electric-sql", "pglite", "package.json"), "utf8"),
  ) as { version: string };
  h.update(pkg.version).update(PGLITE_CONF.join(","));
  return h.digest("hex").slice(0, 16);
}
