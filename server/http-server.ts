import { existsSync, readFileSync } from "node:fs";
import { createServer, type RequestListener, type Server } from "node:http";
import path from "node:path";
import next from "next";
import { openDatabase, installDatabase, type Database } from "@/db/client";
import { shareEmbedded } from "@/db/shared-embedded";
import { env } from "@/server/env";
import { startAnalyzeSchedule } from "@/server/jobs/analyze-schedule";
import { startDailySchedule } from "@/server/jobs/daily-schedule";
import { startLocalDriver } from "@/server/jobs/local-driver";
import { registerInngestNotifier } from "@/inngest/notifier";
import { log } from "@/server/log";
import { startKeyCache } from "@/server/services/access/key-cache";
import { listenForSettledOperations } from "@/server/services/operations/operation-settled";
import { flushRequestLog } from "@/server/services/request-log/writer";
import { PEER_HEADER } from "@/server/lib/client-ip";
import { goesToStaticDoor, SENT_URL_HEADER, STATIC_DOOR_PATH } from "@/server/public-api/static-door";
import { CoalescingServerResponse } from "@/server/lib/coalesce-writes";

/** Where the app listens when `HOST` is unset: loopback only, IPv4 and IPv6. */
export const LOOPBACK_HOSTS = ["127.0.0.1", "::1"] as const;

/** A running app: its HTTP servers (one per listening address), its database, and a clean stop. */
export interface RunningApp {
  /** The first listening server. */
  server: Server;
  servers: Server[];
  database: Database;
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts the console and the API in this process: validates the environment, opens the database
 * (migrations run on start), shares an embedded database with scripts, and serves Next.js on `PORT`.
 * The server stamps each request with the TCP peer address (PEER_HEADER), replacing any value a client
 * sent, because route handlers cannot see the socket (IP allowlists, server/public-api/client-ip.ts).
 * It listens on loopback only (127.0.0.1 and ::1) unless `HOST` names where to listen (`0.0.0.0`, `::`
 * or one address), so a demo or development server is not open to the network by default.
 * @throws EnvError on a bad environment value, before anything listens.
 */
export async function startApp(opts: { dev: boolean; database?: Database }): Promise<RunningApp> {
  const e = env();
  const database =
    opts.database ??
    (await openDatabase({
      url: e.databaseUrl,
      dir: e.pgliteDir,
      migrate: true,
      takeTurns: true,
      poolSize: e.databasePoolSize,
    }));
  installDatabase(database);
  const unshare =
    database.pglite && !e.databaseUrl ? await shareEmbedded(database, e.pgliteDir, e.pgliteSocketPort) : null;
  // Key rows cached in process, dropped on the triggers' NOTIFY (server/services/access/key-cache.ts).
  const keyCache = await startKeyCache(database);
  // Requests waiting on an operation (`wait=N`) answer as soon as any process finishes it.
  const settled = await listenForSettledOperations(database);
  // JOBS_DRIVER=local (default): webhook deliveries are worked in this process (server/jobs/local-driver.ts).
  // JOBS_DRIVER=inngest: due work is announced to Inngest as events (inngest/notifier.ts).
  const jobs = e.jobsDriver === "local" ? startLocalDriver(database.db) : null;
  const unnotify = e.jobsDriver === "inngest" ? registerInngestNotifier() : null;
  // Daily jobs (key expiry notices, retention) under the local driver; Inngest runs them as crons.
  const daily = e.jobsDriver === "local" ? startDailySchedule(database.db) : null;
  // PGlite has no autovacuum: the app refreshes the statistics of tables that grew (db/analyze-grown-tables.ts).
  const analyze = database.kind === "pglite" ? startAnalyzeSchedule(database.db) : null;

  if (!opts.dev) adoptBuildConfig(process.cwd());
  // Next.js runs on the runtime's own `Request` and `AsyncLocalStorage`: no global of the runtime is
  // replaced (issue 68 item 3; what that costs is in docs/benchmark.md).
  const app = next({ dev: opts.dev, dir: process.cwd(), hostname: "localhost", port: e.port, turbopack: opts.dev });
  await app.prepare();
  const handle = app.getRequestHandler();
  const servers = await listen(
    (req, res) => {
      req.headers[PEER_HEADER] = req.socket.remoteAddress ?? "";
      // Parameterised public API paths go to one static route file, with the URL they were sent to in a
      // header that no client can set (server/public-api/static-door.ts says why).
      const url = req.url ?? "";
      if (goesToStaticDoor(url)) {
        req.headers[SENT_URL_HEADER] = url;
        req.url = STATIC_DOOR_PATH;
      } else if (req.headers[SENT_URL_HEADER] !== undefined) delete req.headers[SENT_URL_HEADER];
      void handle(req, res);
    },
    e.port,
    e.host,
  );
  const url = `http://localhost:${e.port}`;
  log().info(
    { url, host: e.host ?? LOOPBACK_HOSTS.join(", "), database: database.kind, cell: e.cell },
    "app listening",
  );
  return {
    server: servers[0],
    servers,
    database,
    url,
    async stop() {
      await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
      // The request log's last rows, before the database closes (a failure is logged, never thrown).
      await flushRequestLog();
      await jobs?.stop();
      unnotify?.();
      await daily?.stop();
      await analyze?.stop();
      await app.close?.();
      await keyCache.stop();
      await settled.stop();
      await unshare?.();
      await database.close();
    },
  };
}

/**
 * Makes Next.js take the configuration its build resolved (`.next/required-server-files.json`, as its own
 * standalone server does) instead of compiling `next.config.ts` at start: the compiler it loads for that,
 * SWC's native module, stayed mapped for the life of the process (about 24 MB resident, issue 22 item 4).
 * Does nothing when there is no build (Next.js then says so) or the variable is already set.
 * @param dir the app's root (where `.next` is)
 */
export function adoptBuildConfig(dir: string): void {
  const file = path.join(dir, ".next", "required-server-files.json");
  if (process.env.__NEXT_PRIVATE_STANDALONE_CONFIG || !existsSync(file)) return;
  const { config } = JSON.parse(readFileSync(file, "utf8")) as { config: unknown };
  process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = JSON.stringify(config);
}

/** Stops the app cleanly (server, drivers, database) on SIGINT or SIGTERM, then exits 0. */
export function stopOnSignals(app: RunningApp): void {
  const stop = async () => {
    await app.stop();
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

/**
 * Listens on `host`, or on both loopback addresses when it is unset. An IPv6 loopback the machine lacks
 * is skipped; any other failure (port taken) closes what was opened and throws.
 */
async function listen(handler: RequestListener, port: number, host: string | undefined): Promise<Server[]> {
  const servers: Server[] = [];
  try {
    for (const h of host ? [host] : LOOPBACK_HOSTS) {
      // Head, body and end of an answer in one socket write (server/lib/coalesce-writes.ts).
      const server = createServer({ ServerResponse: CoalescingServerResponse }, handler);
      try {
        await new Promise<void>((resolve, reject) => {
          server.once("error", reject);
          server.listen(port, h, resolve);
        });
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (!host && h === "::1" && (code === "EADDRNOTAVAIL" || code === "EAFNOSUPPORT")) continue;
        throw err;
      }
      servers.push(server);
    }
  } catch (err) {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    throw err;
  }
  return servers;
}
