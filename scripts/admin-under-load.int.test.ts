import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Worker } from "node:worker_threads";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { openDatabase } from "@/db/client";
import { apiKeys, tenants, walletLedger, wallets } from "@/db/schema";
import { startApp, type RunningApp } from "@/server/http-server";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { seedDemo, type DemoInfo } from "@/server/services/seed/demo-tenant";
import { migratedPgliteSnapshot } from "@/server/testing/pglite-snapshot";
import { setTestEnv } from "@/server/testing/test-db";
import { runAdmin } from "./admin";

// Issue 68 item 4: the embedded database has one owner. The demo as `npm run demo` runs it on PGlite
// (startApp: queries take turns, the database shared with scripts on a loopback socket), 16 API clients
// reading and writing through its HTTP server, and 1,000 operator CLI calls, each connecting through the
// app's socket as `npm run admin` does: the CLI's own entry (runAdmin) in this process, 8 commands at a
// time, since a spawned tsx process costs seconds; three real CLI processes run alongside. Every CLI call
// must succeed (no "bind message supplies 3 parameters, but prepared statement "" requires 1", no
// connection refused) and every API request answer 2xx; each command's change must be in the database.
// The single session's rule itself (db/embedded-socket.ts) is pinned message by message in
// db/shared-embedded.int.test.ts.
//
// Next.js is replaced by the public API's pipeline (no build needed); everything else in startApp is real.
// The embedded database only: on PostgreSQL the CLI connects to the server, not to the app.

vi.mock("next", async () => {
  const { publicApiListener } = await import("@/server/testing/api-listener");
  const { SENT_URL_HEADER } = await import("@/server/public-api/static-door");
  const listener = publicApiListener();
  return {
    default: () => ({
      prepare: async () => {},
      getRequestHandler: () => (req: IncomingMessage, res: ServerResponse) => {
        // The server sends parameterised paths to one static route file with the URL in a header.
        const sent = req.headers[SENT_URL_HEADER];
        if (typeof sent === "string") req.url = sent;
        listener(req, res);
      },
      close: async () => {},
    }),
  };
});

const embedded = !process.env.DATABASE_URL;
const run = promisify(execFile);
/** CLI calls made in this process, and how many run at once (separate socket clients). */
const CLI_CALLS = 1_000;
const CLI_AT_ONCE = 8;
/** Real CLI processes (`tsx scripts/admin.ts`) run alongside the in-process calls. */
const CLI_PROCESSES = 3;
const API_CLIENTS = 16;

let dir: string;
let app: RunningApp | undefined;
let demo: DemoInfo;
let keyId: string;
let features: string;
let origin: string;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

beforeAll(async () => {
  if (!embedded) return;
  dir = mkdtempSync(path.join(tmpdir(), "admin-under-load-"));
  const port = await freePort();
  const e = setTestEnv({ PORT: String(port), PGLITE_DIR: path.join(dir, "pglite") });
  origin = `http://127.0.0.1:${port}`;
  // As `npm run demo` opens it: queries take turns with the app's I/O (db/pglite-turns.ts).
  const database = await openDatabase({
    dir: "memory://",
    migrate: true,
    pgliteSnapshot: await migratedPgliteSnapshot(),
    takeTurns: true,
  });
  demo = await seedDemo(database.db, e.cellOrigins.ru);
  const [key] = await database.db
    .select({ keyId: apiKeys.keyId })
    .from(apiKeys)
    .where(eq(apiKeys.tenantId, demo.tenantId));
  keyId = key!.keyId;
  const [tenant] = await database.db
    .select({ features: tenants.features })
    .from(tenants)
    .where(eq(tenants.id, demo.tenantId));
  features = (tenant!.features as string[]).join(",");
  // This test is about the database, not rate limits: 16 clients send far more than a minute's reads.
  const high = { readPerMin: 1_000_000, writePerMin: 1_000_000 };
  await setLimitOverride(database.db, { tenantId: demo.tenantId }, high);
  await setLimitOverride(database.db, { keyId }, high);
  app = await startApp({ dev: true, database });
}, 120_000);

afterAll(async () => {
  await app?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The i-th CLI call's arguments: the command of the report, and writes in transactions around it. */
function cliArgs(i: number): string[] {
  const tenant = ["--tenant", demo.tenantId];
  switch (i % 4) {
    case 0:
      return ["license:set", ...tenant, "--api-access", "true", "--features", features, "--json"];
    case 1:
      return ["wallet:credit", ...tenant, "--amount", "0.01", "--json"];
    case 2:
      return ["wallet:debit", ...tenant, "--amount", "0.01", "--json"];
    default:
      return ["limits:set", "--key-id", keyId, "--read", "1000000", "--write", "1000000", "--json"];
  }
}

/** One in-process CLI call: its exit code and its one JSON answer (or what it printed instead). */
async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runAdmin(args, { out: (t) => (out += t), err: (t) => (err += `${t}\n`) });
  return { code, out, err };
}

/**
 * The API clients, in a worker thread of their own (their HTTP work is not the app's, and on CI's two cores
 * it runs beside the app): `clients` loops, each sending its next request as soon as the last one is
 * answered, over keep-alive connections. Each cycles through reads of four routes and a card created (a
 * transaction). Posting "stop" ends the loops; the worker then posts its requests and failures.
 */
const API_WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const { origin, key, clients } = workerData;
let running = true;
let requests = 0;
const failures = [];
parentPort.once("message", () => (running = false));
function request(client, n) {
  switch (n % 5) {
    case 0: return { method: "GET", path: "/me" };
    case 1: return { method: "GET", path: "/cards?limit=10" };
    case 2: return { method: "GET", path: "/leads?limit=10" };
    case 3: return { method: "GET", path: "/wallet" };
    default: return { method: "POST", path: "/cards", body: JSON.stringify({ code: "load-" + client + "-" + n, name: "Load card" }) };
  }
}
async function loop(client) {
  for (let n = 0; running; n++) {
    const r = request(client, n);
    const headers = { authorization: "Bearer " + key };
    if (r.body) Object.assign(headers, { "content-type": "application/json", "idempotency-key": "load-" + client + "-" + n });
    try {
      const res = await fetch(origin + "/api/public/v1" + r.path, { method: r.method, headers, body: r.body });
      const text = await res.text();
      if (res.status >= 300) failures.push(r.method + " " + r.path + " " + res.status + " " + text.slice(0, 300));
    } catch (err) {
      failures.push(r.method + " " + r.path + " " + err.message);
    }
    requests++;
  }
}
Promise.all(Array.from({ length: clients }, (_, i) => loop(i))).then(() => parentPort.postMessage({ requests, failures }));
`;

/** Starts the API clients; `stop()` ends them and answers how many requests they sent and which failed. */
function startApiClients(): { stop(): Promise<{ requests: number; failures: string[] }> } {
  const worker = new Worker(API_WORKER, {
    eval: true,
    workerData: { origin, key: demo.apiKey, clients: API_CLIENTS },
  });
  const done = new Promise<{ requests: number; failures: string[] }>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  return {
    async stop() {
      worker.postMessage("stop");
      const result = await done;
      await worker.terminate();
      return result;
    },
  };
}

/** The database's refusals that mean two users' messages met in the one session. */
const PROTOCOL_ERROR =
  /bind message|prepared statement|portal|unexpected message|protocol|transaction is aborted|already a transaction|no transaction in progress|08P01|Too many connections/i;

it.runIf(embedded)(
  `${CLI_CALLS} CLI calls through the app's socket under ${API_CLIENTS} API clients: no protocol error, no failed request`,
  { timeout: 300_000 },
  async () => {
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const api = startApiClients();
    const cliFailures: string[] = [];
    let credits = 0;
    let debits = 0;
    /** Counts a command that succeeded: the wallet changes it made. */
    const succeeded = (args: string[]) => {
      if (args[0] === "wallet:credit") credits++;
      if (args[0] === "wallet:debit") debits++;
    };

    // Real CLI processes, as an operator runs them while the app serves (they take seconds to start).
    const processes = Array.from({ length: CLI_PROCESSES }, async (_, i) => {
      const args = cliArgs(i);
      const { stdout } = await run(process.execPath, ["--import", "tsx", "scripts/admin.ts", ...args], {
        env: {
          ...process.env,
          DATABASE_URL: "",
          PGLITE_DIR: path.join(dir, "pglite"),
          CELL: "ru",
          NODE_ENV: "test",
          APP_SECRET: "admin-under-load-secret-0123456789abcdef",
          LOG_LEVEL: "silent",
        },
        timeout: 120_000,
      }).catch((err: { stdout?: string; message: string }) => ({ stdout: err.stdout || err.message }));
      if (!stdout.startsWith("{") || stdout.includes('"error"')) cliFailures.push(`process ${args[0]}: ${stdout}`);
      else succeeded(args);
    });

    // The CLI's entry in this process, CLI_AT_ONCE commands at a time (each its own socket client).
    let next = 0;
    const callers = Array.from({ length: CLI_AT_ONCE }, async () => {
      while (next < CLI_CALLS) {
        const args = cliArgs(next++);
        const r = await cli(args);
        if (r.code !== 0 || !r.out.startsWith("{") || r.out.includes('"error"'))
          cliFailures.push(`${args[0]}: exit ${r.code} ${r.out} ${r.err}`);
        else succeeded(args);
      }
    });
    await Promise.all([...callers, ...processes]);
    const { requests: apiRequests, failures: apiFailures } = await api.stop();
    const cpu = process.cpuUsage(cpuBefore);
    const protocolErrors = cliFailures.filter((f) => PROTOCOL_ERROR.test(f));
    console.log(
      `${CLI_CALLS} CLI calls in this process (${CLI_AT_ONCE} at once) and ${CLI_PROCESSES} CLI processes: ` +
        `${cliFailures.length} failed, ${protocolErrors.length} of them protocol errors; ` +
        `${apiRequests} API requests from ${API_CLIENTS} clients, ${apiFailures.length} failed; ` +
        `${((performance.now() - started) / 1000).toFixed(1)} s, CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s`,
    );

    expect(protocolErrors.slice(0, 5)).toEqual([]);
    expect(cliFailures.slice(0, 5)).toEqual([]);
    expect(apiFailures.slice(0, 5)).toEqual([]);
    expect(apiRequests).toBeGreaterThan(CLI_CALLS);
    // Every command's change is there: one ledger row per credit and per debit (besides the demo's own
    // credit), and as many of each were made, so the balance is the demo's again.
    const db = app!.database.db;
    const ledger = await db
      .select({ kind: walletLedger.kind })
      .from(walletLedger)
      .where(eq(walletLedger.tenantId, demo.tenantId));
    expect(ledger.filter((l) => l.kind === "credit").length).toBe(credits + 1);
    expect(ledger.filter((l) => l.kind === "debit").length).toBe(debits);
    expect(credits).toBe(debits);
    const [wallet] = await db
      .select({ balance: wallets.balanceMinor })
      .from(wallets)
      .where(eq(wallets.tenantId, demo.tenantId));
    expect(wallet!.balance).toBe(5_000_000n);
  },
);
