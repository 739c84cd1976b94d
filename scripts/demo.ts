import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { openDatabase } from "@/db/client";
import { demoExists, seedDemo, type DemoInfo } from "@/server/services/seed/demo-tenant";
import { EnvError, env } from "@/server/env";
import { startApp, stopOnSignals } from "@/server/http-server";
import { ensureProductionBuild } from "./ensure-build";

// `npm run demo`: migrate, seed the demo tenant once, print how to use it, and serve the production build
// on PORT (3000), building it first when there is none or the sources changed since (`--dev` serves the
// development server instead, as `npm run dev` does). Seeding happens before the server starts, so it
// opens the database itself and hands it over.
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
  const origin = e.cellOrigins[e.cell];
  const file = path.join(path.dirname(path.resolve(e.pgliteDir)), "demo.json"); // .data/demo.json by default
  const database = await openDatabase({ url: e.databaseUrl, dir: e.pgliteDir, migrate: true });
  const saved: DemoInfo | null = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as DemoInfo) : null;
  let info: DemoInfo;
  if (saved && (await demoExists(database.db, saved)))
    info = { ...saved, baseUrl: `${origin}/api/public/v1`, consoleUrl: `${origin}/console` };
  else info = await seedDemo(database.db, origin);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });

  const dev = process.argv.includes("--dev");
  if (!dev) ensureProductionBuild();
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

void main();
