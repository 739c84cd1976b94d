import { execFile, spawn, type ChildProcess } from "node:child_process";
import { promisify } from "node:util";
import postgres from "postgres";
import type { LoadSpec } from "./load";

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
   * bottleneck of GET /me (README "Benchmark"), so its time per request is 1/rps.
   */
  costUsPerRequest: number;
  /** Rows the two "on" runs wrote, warm-ups included (their measured requests are `on.total`). */
  rowsWritten: number;
}

const execFileAsync = promisify(execFile);

/**
 * GET /me against fresh app processes started one after the other, identical but for `REQUEST_LOG=off`
 * (the switch exists for this measurement only), in the order on, off, off, on, each with its own warm-up.
 * Fresh processes on both sides so that neither carries the heap of earlier scenarios.
 * @param opts.env the app's environment (as the bench starts it), `PORT` included
 */
export async function benchRequestLogCost(opts: {
  env: NodeJS.ProcessEnv;
  port: number;
  dbUrl: string;
  key: string;
  connections: number;
  durationS: number;
  warmupS: number;
  log: (m: string) => void;
  waitFor: (url: string) => Promise<void>;
}): Promise<RequestLogCost> {
  const sql = postgres(opts.dbUrl, { max: 1, onnotice: () => {} });
  // Exact rows (the statistics views lag by seconds); only the bench's own requests write this table.
  const rows = async () => Number((await sql`select count(*)::bigint as n from request_log`)[0]?.n ?? 0);
  try {
    const measure = async (requestLog: "on" | "off"): Promise<LoadFigures> => {
      const app: ChildProcess = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
        env: { ...opts.env, PORT: String(opts.port), REQUEST_LOG: requestLog },
        stdio: "ignore",
      });
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
        const { stdout } = await execFileAsync(
          process.execPath,
          ["--import", "tsx", `${import.meta.dirname}/load.ts`, JSON.stringify(spec)],
          { encoding: "utf8" },
        );
        const r = JSON.parse(stdout.trim().split("\n").pop()!) as LoadFigures;
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
    const cost = {
      on,
      off,
      ratio: on.rps / off.rps,
      costUsPerRequest: (1 / on.rps - 1 / off.rps) * 1e6,
      rowsWritten,
    };
    opts.log(
      `  request log: on ${Math.round(on.rps)} req/s, off ${Math.round(off.rps)} req/s, on/off ${cost.ratio.toFixed(2)}, ≈${Math.round(cost.costUsPerRequest)} µs of app time per request; ${rowsWritten} rows written by the on runs`,
    );
    return cost;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
