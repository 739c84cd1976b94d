import { openForScript } from "@/db/shared-embedded";
import { env } from "@/server/env";
import { startDailySchedule } from "@/server/jobs/daily-schedule";
import { startLocalDriver } from "@/server/jobs/local-driver";
import { log } from "@/server/log";

// `npm run worker`: the local jobs driver as its own process (DESIGN "drivers"), on the same database as
// the app (DATABASE_URL, or the app's shared embedded PGlite). Any number may run side by side: rows are
// claimed with FOR UPDATE SKIP LOCKED. SIGINT/SIGTERM stop claiming and wait for attempts in flight.
const e = env();
const d = await openForScript({ url: e.databaseUrl, pgliteDir: e.pgliteDir });
const driver = startLocalDriver(d.db);
const daily = startDailySchedule(d.db);
log().info({ database: d.via }, "webhook worker started");
let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  await driver.stop();
  await daily.stop();
  await d.close();
  log().info("webhook worker stopped");
  process.exit(0);
};
process.on("SIGINT", () => void shutdown());
process.on("SIGTERM", () => void shutdown());
