import { spawn, type ChildProcess } from "node:child_process";
import postgres from "postgres";
import { openDatabase } from "@/db/client";
import type { RequestLogEntry } from "@/server/services/request-log/record";
import { requestLogRowText, writeRequestLog } from "@/server/services/request-log/record";
import { RowBuffer } from "@/server/services/request-log/row-buffer";
import type { LoadSpec } from "./load";
import { ensureServerBundle } from "../scripts/server-bundle";

/** One side of the comparison: throughput and latency of GET /me (means of its runs; `total` their sum). */
export interface LoadFigures {
  rps: number;
  p50: number;
  p99: number;
  total: number;
}

/** What the request log costs a request (issue 19 item 5), measured on GET /me. */
export interface RequestLogCost {
  on: LoadFigures;
  off: LoadFigures;
  /** req/s with the log on ÷ req/s with it off (1 = free). */
  ratio: number;
  /**
   * App time per request the log adds, µs: 1/rps(on) − 1/rps(off). The app's one thread is the
   * bottleneck of GET /me (bench/HISTORY.md), so its time per request is 1/rps.
   */
  costUsPerRequest: number;
  /** Rows the two "on" runs wrote, warm-ups included (their measured requests are `on.total`). */
  rowsWritten: number;
  /**
   * The same cost taken apart in this process, less exposed to the machine's other load than two
   * throughput runs: CPU time (user + system) per row of queueing a row, and of writing batches of
   * `batchRows` rows (the statements that insert them and stamp keys' last use, client side), µs; and the wall time
   * of one such batch, ms (off the requests' path).
   */
  parts: { pushCpuUs: number; writeCpuUsPerRow: number; batchRows: number; batchWallMs: number };
}

/** CPU (user + system) of this process while `fn` runs, µs, with its wall time, ms. */
async function cpuOf(fn: () => Promise<void> | void): Promise<{ cpuUs: number; wallMs: number }> {
  const t = performance.now();
  const c = process.cpuUsage();
  await fn();
  const d = process.cpuUsage(c);
  return { cpuUs: d.user + d.system, wallMs: performance.now() - t };
}

/** See {@link RequestLogCost.parts}: 400 × 500 rows queued, then 20 batches of 500 rows written (5 of them warm-up). */
async function measureParts(
  dbUrl: string,
  key: { id: string; tenantId: string; integrationId: string; keyId: string },
) {
  const batchRows = 500;
  const entry = (i: number): RequestLogEntry => ({
    createdAt: new Date(),
    tenantId: key.tenantId,
    livemode: true,
    integrationId: key.integrationId,
    apiKeyId: key.id,
    keyId: key.keyId,
    method: "GET",
    path: "/me",
    status: 200,
    problemCode: null,
    latencyMs: 1.5,
    requestId: `req_bench_parts_${i}`,
    callerAddress: "127.0.0.1",
  });
  // Queueing as the writer does it (its row's text into the writer's buffer), the buffer taken every
  // `batchRows` rows as a flush takes it: one buffer reused, as in the app.
  const entries = Array.from({ length: batchRows }, (_, i) => entry(i));
  const rounds = 400;
  const queue = new RowBuffer();
  const push = await cpuOf(() => {
    for (let r = 0; r < rounds; r++) {
      for (const e of entries) queue.add(requestLogRowText(e));
      queue.take();
    }
  });
  const d = await openDatabase({ url: dbUrl, poolSize: 1 });
  try {
    const batch = () => writeRequestLog(d.db, entries.slice(0, batchRows)).then(() => {});
    for (let i = 0; i < 5; i++) await batch();
    const n = 15;
    const write = await cpuOf(async () => {
      for (let i = 0; i < n; i++) await batch();
    });
    return {
      pushCpuUs: push.cpuUs / (rounds * batchRows),
      writeCpuUsPerRow: write.cpuUs / (n * batchRows),
      batchRows,
      batchWallMs: write.wallMs / n,
    };
  } finally {
    await d.close();
  }
}

/**
 * GET /me against fresh app processes started one after the other, identical but for `REQUEST_LOG=off`
 * (the switch exists for this measurement only), in the order on, off, off, on, each with its own warm-up.
 * Fresh processes on both sides so that neither carries the heap of earlier scenarios. They run as the
 * table's app does (same V8 flags, pinned to the same cores) under the table's load generator, so their
 * req/s compare with the table's rows.
 * @param opts.env the app's environment (as the bench starts it), `PORT` included
 * @param opts.nodeFlags the app's V8 flags (bench/run.ts: what `npm start` would choose)
 * @param opts.appCpus the cores the app is pinned to (`taskset -c` list), or null when not pinned
 * @param opts.drive runs one load scenario with the table's load generator (wrk, or autocannon pinned)
 */
export async function benchRequestLogCost(opts: {
  env: NodeJS.ProcessEnv;
  port: number;
  dbUrl: string;
  key: string;
  connections: number;
  durationS: number;
  warmupS: number;
  nodeFlags: string[];
  appCpus: string | null;
  drive: (spec: LoadSpec) => Promise<{ rps: number; p50: number; p99: number; total: number }>;
  log: (m: string) => void;
  waitFor: (url: string) => Promise<void>;
}): Promise<RequestLogCost> {
  const sql = postgres(opts.dbUrl, { max: 1, onnotice: () => {} });
  // Exact rows (the statistics views lag by seconds); only the bench's own requests write this table.
  const rows = async () => Number((await sql`select count(*)::bigint as n from request_log`)[0]?.n ?? 0);
  try {
    const measure = async (requestLog: "on" | "off"): Promise<LoadFigures> => {
      const bundle = await ensureServerBundle("server/main.ts", "main");
      const nodeArgs = [...opts.nodeFlags, bundle];
      const app: ChildProcess = spawn(
        opts.appCpus ? "taskset" : process.execPath,
        opts.appCpus ? ["-c", opts.appCpus, process.execPath, ...nodeArgs] : nodeArgs,
        {
          env: { ...opts.env, PORT: String(opts.port), REQUEST_LOG: requestLog },
          stdio: "ignore",
        },
      );
      try {
        await opts.waitFor(`http://localhost:${opts.port}/api/health`);
        const spec: LoadSpec = {
          name: `GET /me (request log ${requestLog})`,
          url: `http://localhost:${opts.port}/api/public/v1/me`,
          headers: { authorization: `Bearer ${opts.key}` },
          connections: opts.connections,
          durationS: opts.durationS,
          warmupS: opts.warmupS,
        };
        opts.log(`${spec.name}: fresh app process, ${opts.warmupS} s warm-up, ${opts.durationS} s`);
        const { rps, p50, p99, total } = await opts.drive(spec);
        const r: LoadFigures = { rps, p50, p99, total };
        opts.log(`  ${Math.round(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms`);
        return r;
      } finally {
        // SIGTERM flushes the log's last batch before the process exits.
        const exited = new Promise((resolve) => app.once("exit", resolve));
        app.kill("SIGTERM");
        await exited;
      }
    };
    // A B B A: each side runs once early and once late, so a drift of the machine's load during the
    // measurement weighs on both alike; each side's figures are the mean of its two runs.
    const runs: Record<"on" | "off", LoadFigures[]> = { on: [], off: [] };
    let rowsWritten = 0;
    for (const side of ["on", "off", "off", "on"] as const) {
      const before = await rows();
      runs[side].push(await measure(side));
      if (side === "on") rowsWritten += (await rows()) - before; // the app flushed its last rows on SIGTERM
    }
    const mean = (xs: LoadFigures[]): LoadFigures => ({
      rps: xs.reduce((n, x) => n + x.rps, 0) / xs.length,
      p50: xs.reduce((n, x) => n + x.p50, 0) / xs.length,
      p99: xs.reduce((n, x) => n + x.p99, 0) / xs.length,
      total: xs.reduce((n, x) => n + x.total, 0),
    });
    const on = mean(runs.on);
    const off = mean(runs.off);
    const [k] = await sql<{ id: string; tenantId: string; integrationId: string; keyId: string }[]>`
      select id, tenant_id as "tenantId", integration_id as "integrationId", key_id as "keyId"
      from api_keys order by created_at limit 1`;
    const parts = await measureParts(opts.dbUrl, k!);
    await sql`delete from request_log where request_id like 'req_bench_parts_%'`;
    const cost = {
      on,
      off,
      ratio: on.rps / off.rps,
      costUsPerRequest: (1 / on.rps - 1 / off.rps) * 1e6,
      rowsWritten,
      parts,
    };
    opts.log(
      `  request log: on ${Math.round(on.rps)} req/s, off ${Math.round(off.rps)} req/s, on/off ${cost.ratio.toFixed(2)}, ≈${Math.round(cost.costUsPerRequest)} µs of app time per request; ${rowsWritten} rows written by the on runs; in this process: queueing ${parts.pushCpuUs.toFixed(2)} µs CPU per row, writing ${parts.writeCpuUsPerRow.toFixed(1)} µs CPU per row (batches of ${parts.batchRows} rows, ${parts.batchWallMs.toFixed(1)} ms each)`,
    );
    return cost;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
