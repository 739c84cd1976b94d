import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Database } from "@/db/client";
import { DirectoryInUseError } from "@/db/directory-lock";
import type { DemoInfo } from "@/server/services/seed/demo-tenant";
import { EnvError, env } from "@/server/env";
import { ensureProductionBuild } from "./ensure-build";
import { BUNDLED_ENV, ensureServerBundle, runBundledServer } from "./server-bundle";

// `npm run demo`: migrate, seed the demo tenant once, print how to use it, and serve the production build
// on PORT (3000), building it first when there is none or the sources changed since (`--dev` serves the
// development server instead, as `npm run dev` does). Seeding happens before the server starts, so it
// opens the database itself and hands it over.
//
// On the embedded database the migrations and the seed run in a short-lived child process first
// (`--prepare`): creating and filling a PGlite data directory grows its WebAssembly heap by ~500 MB,
// which a process cannot give back, and the server that opens the prepared directory afterwards stays
// near 150 MB for PGlite (docs/operations.md "Memory of an idle demo"). The database, the seed and the
// server are imported only where they run, so the launching process stays small.
async function main(): Promise<void> {
  let e;
  try {
    e = env();
  } catch (err) {
    if (err instanceof EnvError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const dev = process.argv.includes("--dev");
  if (!dev && process.env[BUNDLED_ENV] !== "1") {
    // Serve the production build from the server compiled into one module (server-bundle.ts).
    ensureProductionBuild();
    runBundledServer(await ensureServerBundle("scripts/demo.ts", "demo"));
    return;
  }
  const origin = e.cellOrigins[e.cell];
  const file = path.join(path.dirname(path.resolve(e.pgliteDir)), "demo.json"); // .data/demo.json by default
  const prepareOnly = process.argv.includes("--prepare");
  const { openDatabase } = await import("@/db/client");
  let database: Database;
  let info: DemoInfo;
  if (!e.databaseUrl && !prepareOnly) {
    // The child migrated, seeded and saved `file`: the server only opens the prepared directory.
    // The child keeps --dev: without it, it would make the production build the dev server does not need.
    const childArgs = [process.argv[1]!, "--prepare", ...(dev ? ["--dev"] : [])];
    const child = spawnSync(process.execPath, [...process.execArgv, ...childArgs], {
      stdio: "inherit",
    });
    if (child.status !== 0) process.exit(child.status ?? 1);
    database = await openDatabase({ dir: e.pgliteDir, takeTurns: true });
    info = JSON.parse(readFileSync(file, "utf8")) as DemoInfo;
  } else {
    // The --prepare child only seeds, alone: no requests to take turns with.
    database = await openDatabase({
      url: e.databaseUrl,
      dir: e.pgliteDir,
      migrate: true,
      takeTurns: !prepareOnly,
      poolSize: e.databasePoolSize,
    });
    info = await ensureDemo(database, file, origin);
  }
  if (prepareOnly) {
    await database.close();
    return;
  }

  const { startApp, stopOnSignals } = await import("@/server/http-server");
  const app = await startApp({ dev, database });
  console.log(
    [
      "",
      `  Console   ${info.consoleUrl}`,
      `  Staff     ${info.staff.email} / ${info.staff.password}`,
      `  API       ${info.baseUrl}`,
      `  API key   ${info.apiKey}`,
      "",
      `  Try:      curl -s ${info.baseUrl}/me -H "Authorization: Bearer ${info.apiKey}"`,
      `  Saved in  ${path.relative(process.cwd(), file)} (database: ${app.database.kind})`,
      "",
    ].join("\n"),
  );
  stopOnSignals(app);
}

/** Seeds the demo tenant unless the one saved in `file` still exists; saves what to print in `file`. */
async function ensureDemo(database: Database, file: string, origin: string): Promise<DemoInfo> {
  const { demoExists, seedDemo } = await import("@/server/services/seed/demo-tenant");
  const saved: DemoInfo | null = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as DemoInfo) : null;
  let info: DemoInfo;
  if (saved && (await demoExists(database.db, saved)))
    info = { ...saved, baseUrl: `${origin}/api/public/v1`, consoleUrl: `${origin}/console` };
  else info = await seedDemo(database.db, origin);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  return info;
}

main().catch((err: unknown) => {
  // A second demo while one runs: say so in a sentence, not a stack (db/directory-lock.ts).
  if (err instanceof DirectoryInUseError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
});
