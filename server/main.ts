import { EnvError, env } from "@/server/env";
import { startApp, stopOnSignals } from "@/server/http-server";

// `npm start` / `npm run dev`: the app without demo data. `--dev` serves Next.js in development mode.
async function main(): Promise<void> {
  try {
    env();
  } catch (err) {
    if (err instanceof EnvError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const app = await startApp({ dev: process.argv.includes("--dev") });
  console.log(`Console and API on ${app.url} (database: ${app.database.kind})`);
  stopOnSignals(app);
}

void main();
