import { execFile, spawn, type ChildProcess } from "node:child_process";
import { promisify } from "node:util";
import postgres from "postgres";
import type { LoadSpec } from "./load";

/** One side of the comparison: throughput and latency of GET /me. */
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
  /** Rows the "on" run wrote (PostgreSQL's count of inserted tuples), against its requests. */
  rowsWritten: number;
}

const execFileAsync = promisify(execFile);

/**
 * GET /me against two fresh app processes started one after the other, identical but for
 * `REQUEST_LOG=off` in the second (the switch exists for this measurement only), each with its own
 * warm-up. Fresh processes on both sides so that neither carries the heap of earlier scenarios.
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
  const inserted = async () =>
    Number(
      (await sql`select coalesce(n_tup_ins, 0)::bigint as n from pg_stat_user_tables where relname = 'request_log'`)[0]
        ?.n ?? 0,
    );
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
    const before = await inserted();
    const on = await measure("on");
    await new Promise((r) => setTimeout(r, 700)); // statistics reach pg_stat_user_tables with a short delay
    const rowsWritten = (await inserted()) - before;
    const off = await measure("off");
    const cost = {
      on,
      off,
      ratio: on.rps / off.rps,
      costUsPerRequest: (1 / on.rps - 1 / off.rps) * 1e6,
      rowsWritten,
    };
    opts.log(
      `  request log: on/off ${cost.ratio.toFixed(2)}, ≈${Math.round(cost.costUsPerRequest)} µs of app time per request; ${rowsWritten} rows written by the on run`,
    );
    return cost;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
