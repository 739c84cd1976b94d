import { execFile, execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { INTAKE_LUA_COUNTS, intakeLua, intakePieces, type IntakeCounts } from "./intake-load";
import type { LoadSpec } from "./load";

/** What one scenario's measured run gives, whichever generator ran it. Latencies in ms. */
export interface LoadFigures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  total: number;
  non2xx: number;
  statusCodes?: Record<string, { count: number }>;
  /** The intake row (LoadSpec.intake): the verdicts counted in the measured run's answers. */
  intake?: IntakeCounts;
}

const run = promisify(execFile);

/** Whether wrk (Debian package `wrk`) is on the PATH. */
export function haveWrk(): boolean {
  try {
    execFileSync("wrk", ["--version"], { stdio: "ignore" });
    return true;
  } catch (err) {
    // `wrk --version` prints its usage and exits 1; only a missing binary is ENOENT.
    return (err as NodeJS.ErrnoException).code !== "ENOENT";
  }
}

/**
 * The CPUs the load generator runs on and those the app runs on: the last core for the generator, the
 * others for the app, so the two never share a core (PostgreSQL is left to the scheduler). Null on a
 * single core or without `taskset`.
 */
export function cpuSplit(): { load: string; app: string } | null {
  const n = os.cpus().length;
  if (n < 2) return null;
  try {
    execFileSync("taskset", ["-V"], { stdio: "ignore" });
  } catch {
    return null;
  }
  return { load: String(n - 1), app: n === 2 ? "0" : `0-${n - 2}` };
}

/** A Lua long string holding `s` as is (no escapes to get wrong). */
const lua = (s: string) => `[==[${s}]==]`;

/** wrk's `done`: the figures as one JSON line (latencies in µs; an intake run's verdict counts too). */
const DONE = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRKJSON {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"status_errors":%d,"socket_errors":%d',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), e.status,
    e.connect + e.read + e.write + e.timeout) .. ${INTAKE_LUA_COUNTS} .. '}\\n')
end
`;

/**
 * The wrk script of a scenario: its headers, its method, a new Idempotency-Key (and card code or message)
 * per request where the scenario asks for it, the cycled paths of a cursor walk, or the intake row's
 * batches (bench/intake-load.ts), and {@link DONE}.
 */
function script(spec: LoadSpec): string {
  const prefix = randomUUID().slice(0, 8);
  const headers = Object.entries(spec.headers ?? {})
    .map(([k, v]) => `[ ${lua(k)} ] = ${lua(v)}`) // spaced: "[[" would open a Lua long string
    .join(", ");
  // An hour back: within the 7 days intake takes, whatever the clocks.
  if (spec.intake)
    return intakeLua(intakePieces(new Date(Date.now() - 3_600_000).toISOString()), prefix, headers) + DONE;
  const paths = (spec.paths ?? []).map(lua).join(", ");
  return `
local headers = { ${headers} }
local paths = { ${paths} }
local n = 0
request = function()
  n = n + 1
  local path = nil
  if #paths > 0 then path = paths[(n % #paths) + 1] end
  local body = nil
  local id = ${lua(prefix)} .. "-" .. n
  ${
    spec.newCardEachRequest
      ? `headers["idempotency-key"] = id
  body = '{"code":"b-' .. id .. '","name":"Bench card","price_text":"100 RUB"}'`
      : spec.newMessageEachRequest
        ? `headers["idempotency-key"] = id
  body = '{"content":"question ' .. id .. ': warm socks or a rain jacket?"}'`
        : ""
  }
  return wrk.format(${lua(spec.method ?? "GET")}, path, headers, body)
end
${DONE}`;
}

/**
 * Drives one scenario with wrk (one thread, `connections` connections): a warm-up run, then the measured
 * run, pinned to `cpus` with taskset when given. Errors (socket errors and answers ≥ 400) count as non-2xx.
 */
export async function wrkLoad(spec: LoadSpec, cpus: string | null): Promise<LoadFigures> {
  const file = path.join(os.tmpdir(), `bench-wrk-${process.pid}-${randomUUID().slice(0, 8)}.lua`);
  const once = async (seconds: number) => {
    writeFileSync(file, script(spec));
    const args = ["-t1", `-c${spec.connections}`, `-d${seconds}s`, "--timeout", "10s", "-s", file, spec.url];
    const { stdout, stderr } = cpus
      ? await run("taskset", ["-c", cpus, "wrk", ...args], { encoding: "utf8" })
      : await run("wrk", args, { encoding: "utf8" });
    const line = stdout.split("\n").find((l) => l.startsWith("WRKJSON "));
    if (!line) throw new Error(`wrk printed no figures for ${spec.name}:\n${stdout}\n${stderr}`);
    return JSON.parse(line.slice("WRKJSON ".length)) as {
      requests: number;
      duration_us: number;
      p50_us: number;
      p99_us: number;
      status_errors: number;
      socket_errors: number;
    } & Partial<IntakeCounts>;
  };
  let r;
  try {
    if (spec.warmupS > 0) await once(spec.warmupS);
    r = await once(spec.durationS);
  } finally {
    rmSync(file, { force: true });
  }
  return {
    name: spec.name,
    rps: r.requests / (r.duration_us / 1e6),
    p50: Math.round(r.p50_us / 100) / 10,
    p99: Math.round(r.p99_us / 100) / 10,
    total: r.requests,
    non2xx: r.status_errors + r.socket_errors,
    ...(spec.intake
      ? { intake: { accepted: r.accepted ?? 0, duplicate: r.duplicate ?? 0, rejected: r.rejected ?? 0 } }
      : {}),
  };
}
