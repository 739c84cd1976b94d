import cluster from "node:cluster";
import { DirectoryInUseError } from "@/db/directory-lock";
import { EnvError, env } from "@/server/env";
import { processCount, serveInProcesses } from "@/server/lib/cluster";
import { startApp, stopOnSignals } from "@/server/http-server";

// `npm start` / `npm run dev`: the app without demo data. `--dev` serves Next.js in development mode.
// `WEB_CONCURRENCY=N` with DATABASE_URL runs N app processes sharing the port (docs/operations.md "Scaling"); the
// local driver's claims and the daily jobs are safe with several processes on one database.
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
  const { count, notice } = processCount(dev ? { ...e, webConcurrency: 1 } : e);
  if (notice && cluster.isPrimary) console.error(notice);
  await serveInProcesses(count, async () => {
    // A start that fails (database unreachable, port taken, no build) ends the process with 1: Next.js
    // only logs unhandled rejections, and a process that serves nothing must not look alive.
    const app = await startApp({ dev }).catch((err: unknown) => {
      console.error(err instanceof DirectoryInUseError ? err.message : err);
      process.exit(1);
    });
    const who = cluster.isWorker ? `, process ${cluster.worker!.id} of ${count}, pid ${process.pid}` : "";
    console.log(`Console and API on ${app.url} (database: ${app.database.kind}${who})`);
    stopOnSignals(app);
  });
  if (count > 1 && cluster.isPrimary) console.log(`Starting ${count} app processes on one port`);
}

void main();
