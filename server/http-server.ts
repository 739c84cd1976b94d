import { createServer, type Server } from "node:http";
import next from "next";
import { openDatabase, installDatabase, type Database } from "@/db/client";
import { shareEmbedded } from "@/db/shared-embedded";
import { env } from "@/server/env";
import { startDailySchedule } from "@/server/jobs/daily-schedule";
import { startLocalDriver } from "@/server/jobs/local-driver";
import { log } from "@/server/log";
import { PEER_HEADER } from "@/server/public-api/client-ip";

/** A running app: the HTTP server, its database, and a clean stop. */
export interface RunningApp {
  server: Server;
  database: Database;
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts the console and the API in this process: validates the environment, opens the database
 * (migrations run on start), shares an embedded database with scripts, and serves Next.js on `PORT`.
 * The server stamps each request with the TCP peer address (PEER_HEADER), replacing any value a client
 * sent, because route handlers cannot see the socket (IP allowlists, server/public-api/client-ip.ts).
 * @throws EnvError on a bad environment value, before anything listens.
 */
export async function startApp(opts: { dev: boolean; database?: Database }): Promise<RunningApp> {
  const e = env();
  const database = opts.database ?? (await openDatabase({ url: e.databaseUrl, dir: e.pgliteDir, migrate: true }));
  installDatabase(database);
  const unshare = database.pglite && !e.databaseUrl ? await shareEmbedded(database, e.pgliteDir, e.pgliteSocketPort) : null;
  // JOBS_DRIVER=local (default): webhook deliveries are worked in this process (server/jobs/local-driver.ts).
  const jobs = e.jobsDriver === "local" ? startLocalDriver(database.db) : null;
  // Daily jobs (key expiry notices, retention) under the local driver; Inngest runs them as crons.
  const daily = e.jobsDriver === "local" ? startDailySchedule(database.db) : null;

  const app = next({ dev: opts.dev, dir: process.cwd(), hostname: "localhost", port: e.port, turbopack: opts.dev });
  await app.prepare();
  const handle = app.getRequestHandler();
  const server = createServer((req, res) => {
    req.headers[PEER_HEADER] = req.socket.remoteAddress ?? "";
    void handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(e.port, resolve);
  });
  const url = `http://localhost:${e.port}`;
  log().info({ url, database: database.kind, cell: e.cell }, "app listening");
  return {
    server,
    database,
    url,
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await jobs?.stop();
      await daily?.stop();
      await app.close?.();
      await unshare?.();
      await database.close();
    },
  };
}
