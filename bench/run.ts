import { execFile, execFileSync, fork, spawn, type ChildProcess } from "node:child_process";
import { promisify } from "node:util";
import { openSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { openDatabase } from "@/db/client";
import { seedTenantData } from "@/server/services/seed/seed-data";
import { products } from "@/db/schema";
import { setTestEnv } from "@/server/testing/test-db";
import { SCOPES } from "@/server/schemas/scopes";
import { createIntegration } from "@/server/services/integrations/integrations";
import { issueKey } from "@/server/services/keys/keys";
import { createTenant } from "@/server/services/tenants/tenants";
import { changeBalance } from "@/server/services/wallet/wallet-ledger";
import { benchDeliveries, type DeliveryFigures } from "./deliveries";
import { benchOperations, type OperationFigures } from "./operations";
import { benchRequestLogCost, type RequestLogCost } from "./request-log-cost";
import type { LoadSpec } from "./load";

// `npm run bench`: builds the app, seeds a fresh PostgreSQL database, starts the app as in production
// (`npm start`: our server around Next.js), and drives it from separate processes with autocannon.
// Baselines measured in the same run: GET /api/health of the same app and a bare node:http server.
// Never part of `npm test`.

// --only <text>: run the baselines and the scenarios whose name contains <text>, skip deliveries, write no
// results file. --profile: record a CPU profile of the app (bench/profiles/) and print where its time went.
const { values: flags } = parseArgs({
  options: {
    "skip-build": { type: "boolean" },
    quick: { type: "boolean" },
    keep: { type: "boolean" },
    duration: { type: "string", default: "10" },
    only: { type: "string" },
    profile: { type: "boolean" },
  },
});
const PG = process.env.BENCH_PG_BASE ?? "postgres://postgres@127.0.0.1:5432";
const APP_PORT = 3900;
const BARE_PORT = 3901;
const DURATION = Number(flags.duration);
const WARMUP = 3;
const CONNECTIONS = 16;
const BIG_SCALE = flags.quick ? 1000 : 10_000; // messages = 100 × scale
const REQUEST_LOG_SCENARIO = "GET /me (request log on/off)";
const log = (m: string) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${m}`);

const dbName = `bench_${Date.now()}`;
const dbUrl = `${PG}/${dbName}`;
const admin = postgres(`${PG}/postgres`, { max: 1, onnotice: () => {} });
const children: ChildProcess[] = [];
const execFileAsync = promisify(execFile);

async function main() {
  await admin.unsafe(`create database ${dbName}`);
  if (!flags["skip-build"]) {
    log("next build");
    execFileSync("npx", ["next", "build"], { stdio: "ignore" });
  }
  setTestEnv({ DATABASE_URL: dbUrl, CELL_ORIGIN_RU: `http://localhost:${APP_PORT}` });
  const seeded = await seed();
  log(
    "raising the bench tenants' and keys' rate limits with the operator CLI (limits:set), so the starting limits do not cap the measurement",
  );
  for (const t of seeded.tenants) {
    cli("limits:set", "--tenant", t.tenantId, "--read", "1000000", "--write", "1000000", "--paid", "1000000");
    cli("limits:set", "--key-id", t.keyId, "--read", "1000000", "--write", "1000000", "--paid", "1000000");
    cli("limits:set", "--tenant", t.tenantId, "--paid-concurrency", "1000000");
    cli("preview:set", "--tenant", t.tenantId, "--feature", "conversation-writes", "--enabled", "true");
    cli("wallet:set-limits", "--tenant", t.tenantId, "--daily-limit", "none");
    cli("channel:set", "--integration", t.integrationId, "--ai-daily-limit", "10000");
  }

  const bare = fork(path.join(import.meta.dirname, "bare-server.ts"), [String(BARE_PORT)], {
    execArgv: ["--import", "tsx"],
  });
  children.push(bare);
  await new Promise((r) => bare.once("message", r));
  const profileDir = path.join(import.meta.dirname, "profiles");
  const profiling = flags.profile ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
  const appEnv: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    PORT: String(APP_PORT),
    DATABASE_URL: dbUrl,
    APP_SECRET: "bench-secret-0123456789abcdef0123456789",
    LOG_LEVEL: "warn",
    // Production requires every cell's public https origin (server/env.ts); they only appear in links
    // of answers, the bench itself calls http://localhost:APP_PORT.
    CELL_ORIGIN_RU: "https://api.bench.example.ru",
    CELL_ORIGIN_EN: "https://api.bench.example.com",
    CELL_ORIGIN_ID: "https://api.bench.example.id",
    // Production refuses the sandbox payment provider unless allowed; the bench takes no payments.
    PAYMENT_SANDBOX: "allow",
  };
  const app = spawn(process.execPath, [...profiling, "--import", "tsx", "server/main.ts"], {
    env: appEnv,
    // The app's log lines (warnings and errors only, LOG_LEVEL=warn) are kept in bench/app.log.
    stdio: ["ignore", openSync(path.join(import.meta.dirname, "app.log"), "w"), "inherit"],
  });
  children.push(app);
  await waitFor(`http://localhost:${APP_PORT}/api/health`);
  let peakRss = 0;
  const rssTimer = setInterval(() => {
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${app.pid}/status`, "utf8"))?.[1] ?? 0);
      peakRss = Math.max(peakRss, kb * 1024);
    } catch {
      /* process gone */
    }
  }, 250);

  const base = `http://localhost:${APP_PORT}`;
  const api = `${base}/api/public/v1`;
  const small = seeded.tenants[0];
  const big = seeded.tenants[1];
  const auth = (k: string) => ({ authorization: `Bearer ${k}` });
  const scenarios: (LoadSpec & { group: string })[] = [
    spec("bare node:http", `http://127.0.0.1:${BARE_PORT}/`, {}, "baseline"),
    spec("GET /api/health (bare route)", `${base}/api/health`, {}, "baseline"),
    spec("GET /me", `${api}/me`, auth(small.key), "api"),
    spec("GET /cards?limit=10", `${api}/cards?limit=10`, auth(small.key), "api"),
    spec("GET /cards (50 cards)", `${api}/cards`, auth(small.key), "api"),
    {
      ...spec(
        "POST /cards (new Idempotency-Key each)",
        `${api}/cards`,
        { ...auth(small.key), "content-type": "application/json" },
        "api",
      ),
      method: "POST",
      newCardEachRequest: true,
    },
  ];
  // Customer messages answered by the AI seller (catalog model, the app's own local driver): wait=0 answers
  // 202 at once; wait=5 holds the request until the reply (200). A channel allows 10,000 AI replies a day;
  // past that, answers are 200 skipped `daily_limit` (no operation), which would show as a faster scenario.
  const conv = await fetch(`${api}/conversations`, {
    method: "POST",
    headers: { ...auth(small.key), "content-type": "application/json" },
    body: JSON.stringify({ external_customer_id: "bench-customer" }),
  });
  if (conv.status === 201) {
    const id = ((await conv.json()) as { id: string }).id;
    for (const wait of [0, 5])
      scenarios.push({
        ...spec(
          `POST /conversations/{id}/messages?wait=${wait} (AI reply, catalog)`,
          `${api}/conversations/${id}/messages?wait=${wait}`,
          { ...auth(small.key), "content-type": "application/json" },
          "ai",
        ),
        method: "POST",
        newMessageEachRequest: true,
      });
  }
  const walk = await messagePages(api, small.key, 20);
  if (walk) scenarios.push({ ...spec("message pages by cursor (walk)", api, auth(small.key), "data"), paths: walk });
  const page10k = await messagePages(api, small.key, 3);
  const page1m = await messagePages(api, big.key, 3);
  if (page10k && page1m) {
    scenarios.push({
      ...spec(`message page, ${small.messages.toLocaleString("en")} messages in tenant`, api, auth(small.key), "data"),
      paths: [page10k[2]],
    });
    scenarios.push({
      ...spec(`message page, ${big.messages.toLocaleString("en")} messages in tenant`, api, auth(big.key), "data"),
      paths: [page1m[2]],
    });
  }
  if ((await fetch(`${api}/leads?limit=25`, { headers: auth(big.key) })).status === 200) {
    scenarios.push(
      spec(`GET /leads page (${big.leads.toLocaleString("en")} leads)`, `${api}/leads?limit=25`, auth(big.key), "data"),
    );
  }

  const results = [];
  // A profile shows the chosen scenario alone: the app's own baseline (GET /api/health) is left out of it.
  const chosen = flags.only
    ? scenarios.filter(
        (s) => (s.group === "baseline" && !(flags.profile && s.url.startsWith(base))) || s.name.includes(flags.only!),
      )
    : scenarios;
  for (const s of chosen) {
    log(`${s.name}: ${CONNECTIONS} connections, ${WARMUP} s warm-up, ${DURATION} s`);
    // Asynchronous, so the RSS sampler keeps running while the load runs.
    const { stdout: out } = await execFileAsync(
      process.execPath,
      ["--import", "tsx", path.join(import.meta.dirname, "load.ts"), JSON.stringify(s)],
      { encoding: "utf8" },
    );
    const r = JSON.parse(out.trim().split("\n").pop()!);
    results.push({ ...r, group: s.group });
    log(`  app RSS so far: peak ${(peakRss / 2 ** 20).toFixed(0)} MB`);
    const codes = Object.entries((r.statusCodes ?? {}) as Record<string, { count: number }>)
      .filter(([c]) => !c.startsWith("2"))
      .map(([c, v]) => `${c}×${v.count}`);
    log(
      `  ${Math.round(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, non-2xx ${r.non2xx}${codes.length ? ` (${codes.join(", ")})` : ""}`,
    );
  }
  clearInterval(rssTimer);
  log(`peak RSS of the app: ${(peakRss / 2 ** 20).toFixed(0)} MB`);
  // The app runs the local delivery driver in-process (JOBS_DRIVER=local); stopped here so that the
  // deliveries below are made by the bench's own worker alone (the app's driver cannot reach the
  // loopback receiver and would claim and fail part of the burst).
  log("stopping the app before the deliveries scenario");
  const appExited = new Promise((r) => app.once("exit", r));
  app.kill("SIGTERM");
  await appExited;
  // What the request log costs a request: GET /me on fresh app processes, log on and off (bench/request-log-cost.ts).
  const logCost =
    !flags.profile && (!flags.only || REQUEST_LOG_SCENARIO.includes(flags.only))
      ? await benchRequestLogCost({
          env: appEnv,
          port: APP_PORT + 2,
          dbUrl,
          key: small.key,
          connections: CONNECTIONS,
          durationS: DURATION,
          // A fresh process compiles the route and warms its JIT first; the other scenarios ran on a warm app.
          warmupS: Math.max(WARMUP, 8),
          log,
          waitFor,
        })
      : null;
  if (flags.profile) {
    // tsx adds a loader thread with its own (idle) profile: the main thread's is the largest file.
    const newest = readdirSync(profileDir)
      .filter((f) => f.endsWith(".cpuprofile"))
      .sort((a, b) => statSync(path.join(profileDir, a)).size - statSync(path.join(profileDir, b)).size)
      .pop();
    if (newest)
      execFileSync(
        process.execPath,
        [path.join(import.meta.dirname, "profile-summary.mjs"), path.join(profileDir, newest)],
        { stdio: "inherit" },
      );
  }
  if (flags.only) return;
  const deliveries = await benchDeliveries(
    dbUrl,
    log,
    flags.quick
      ? { burst: 1000, steadyRate: 100, steadySeconds: 5 }
      : { burst: 3000, steadyRate: 100, steadySeconds: 10 },
  );
  log(
    `  burst ${Math.round(deliveries.burst.perSecond)} deliveries/s; steady p50 ${deliveries.steady.p50Ms} ms, p95 ${deliveries.steady.p95Ms} ms; top-up to first delivery ${deliveries.topupToFirstDeliveryMs} ms`,
  );
  const ops = await benchOperations(
    dbUrl,
    log,
    flags.quick ? { burst: 300, steadyRate: 10, steadySeconds: 5 } : { burst: 1000, steadyRate: 20, steadySeconds: 10 },
  );
  log(
    `  operations ${Math.round(ops.burst.perSecond)}/s per worker; create-to-completed p50 ${ops.steady.p50Ms} ms, p95 ${ops.steady.p95Ms} ms`,
  );
  report(results, peakRss, seeded, deliveries, ops, logCost);
}

function spec(name: string, url: string, headers: Record<string, string>, group: string): LoadSpec & { group: string } {
  return { name, url, headers, connections: CONNECTIONS, durationS: DURATION, warmupS: WARMUP, group };
}

/** Walks the biggest conversation's messages by cursor and returns the page paths (null when the route is absent). */
async function messagePages(api: string, key: string, pages: number): Promise<string[] | null> {
  const list = await fetch(`${api}/conversations?limit=100`, { headers: { authorization: `Bearer ${key}` } });
  if (list.status !== 200) return null;
  const conv = ((await list.json()) as { data: { id: string }[] }).data[0];
  if (!conv) return null;
  const out: string[] = [];
  let cursor: string | null = null;
  const prefix = new URL(api).pathname;
  for (let i = 0; i < pages; i++) {
    const p: string = `${prefix}/conversations/${conv.id}/messages?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    out.push(p);
    const r = await fetch(new URL(p, api), { headers: { authorization: `Bearer ${key}` } });
    if (r.status !== 200) return null;
    cursor = ((await r.json()) as { next_cursor: string | null }).next_cursor;
    if (!cursor) break;
  }
  while (out.length < pages) out.push(out[out.length - 1]);
  return out;
}

interface SeededTenant {
  tenantId: string;
  integrationId: string;
  key: string;
  keyId: string;
  messages: number;
  leads: number;
}

async function seed(): Promise<{ tenants: SeededTenant[] }> {
  const d = await openDatabase({ url: dbUrl, migrate: true, poolSize: 4 });
  const tenants: SeededTenant[] = [];
  for (const scale of [100, BIG_SCALE]) {
    log(`seeding a tenant at scale ${scale} (${(100 * scale).toLocaleString("en")} messages)`);
    const t = await createTenant(d.db, { name: `Bench ${scale}`, mainDomain: "bench.example" });
    const i = await createIntegration(d.db, t.id, {
      name: "Bench",
      scopes: [...SCOPES],
      piiCountry: "RU",
      legalBasis: "contract",
    });
    const k = await issueKey(d.db, { integrationId: i.id, ipAllowlist: ["127.0.0.1", "::1"] });
    await changeBalance(d.db, { tenantId: t.id, amountMinor: 100_000_000n, kind: "credit", actor: "system" });
    await d.db.insert(products).values(
      Array.from({ length: 50 }, (_, n) => ({
        tenantId: t.id,
        name: `Card ${n}`,
        code: `card-${n}`,
        priceMinor: 100_000n + BigInt(n),
        currency: "RUB",
        sort: n % 5,
        aiEnabled: n % 2 === 0,
      })),
    );
    const counts = await seedTenantData(d.db, t.id, scale, i.id);
    tenants.push({
      tenantId: t.id,
      integrationId: i.id,
      key: k.key,
      keyId: k.keyId,
      messages: counts.messages,
      leads: counts.leads,
    });
  }
  // VACUUM now, not autovacuum later: after a million inserts it would otherwise run during the first scenarios.
  log("vacuum analyze after seeding");
  await d.db.execute(sql`vacuum analyze`);
  await d.close();
  return { tenants };
}

function cli(...args: string[]) {
  execFileSync(process.execPath, ["--import", "tsx", "scripts/admin.ts", ...args, "--json"], {
    env: { ...process.env, DATABASE_URL: dbUrl },
    stdio: "ignore",
  });
}

async function waitFor(url: string) {
  for (let i = 0; i < 240; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${url} did not come up`);
}

type Result = { name: string; rps: number; p50: number; p99: number; non2xx: number; group: string };

/** The targets of issue "Benchmark" 6, each with the figure of this run and whether it is met. */
function targets(
  results: Result[],
  peakRss: number,
  deliveries: DeliveryFigures,
): { target: string; figure: string; met: boolean }[] {
  const bare = results.find((r) => r.name.startsWith("GET /api/health"))!.rps;
  const by = (prefix: string) => results.find((r) => r.name.startsWith(prefix));
  const ratio = (prefix: string, min: number) => {
    const r = by(prefix);
    return {
      target: `${prefix} ≥ ${min} of the bare route's req/s`,
      figure: r ? (r.rps / bare).toFixed(2) : "not run",
      met: Boolean(r && r.rps / bare >= min),
    };
  };
  const reads = results.filter((r) => r.group !== "baseline" && r.group !== "ai" && !r.name.startsWith("POST"));
  const worstP99 = Math.max(...reads.map((r) => r.p99));
  const pages = results.filter((r) => r.name.startsWith("message page,"));
  const pageRatio = pages.length === 2 ? pages[0].rps / pages[1].rps : NaN;
  return [
    ratio("GET /me", 0.7),
    ratio("GET /cards?limit=10", 0.6),
    ratio("GET /cards (50 cards)", 0.5),
    ratio("POST /cards", 0.35),
    {
      target: "read p99 ≤ 50 ms at 16 connections (worst read scenario)",
      figure: `${worstP99} ms`,
      met: worstP99 <= 50,
    },
    {
      target: "server RSS ≤ 400 MB under load",
      figure: `${(peakRss / 2 ** 20).toFixed(0)} MB`,
      met: peakRss <= 400 * 2 ** 20,
    },
    {
      target: "message page at 1,000,000 messages within 1.3× the time at 10,000",
      figure: Number.isNaN(pageRatio) ? "not run" : `${pageRatio.toFixed(2)}×`,
      met: pageRatio <= 1.3,
    },
    {
      target: "≥ 200 deliveries/s per worker process",
      figure: `${Math.round(deliveries.burst.perSecond)}/s`,
      met: deliveries.burst.perSecond >= 200,
    },
    {
      target: "enqueue-to-delivered p95 ≤ 1 s",
      figure: `${deliveries.steady.p95Ms} ms (p50 ${deliveries.steady.p50Ms} ms)`,
      met: deliveries.steady.p95Ms <= 1000,
    },
    {
      target: "first deferred delivery ≤ 5 s after top-up",
      figure: `${deliveries.topupToFirstDeliveryMs} ms`,
      met: deliveries.topupToFirstDeliveryMs <= 5000,
    },
  ];
}

function report(
  results: Result[],
  peakRss: number,
  seeded: { tenants: SeededTenant[] },
  deliveries: DeliveryFigures,
  ops: OperationFigures,
  logCost: RequestLogCost | null,
) {
  const bare = results.find((r) => r.name.startsWith("GET /api/health"))!.rps;
  const node = results.find((r) => r.name.startsWith("bare node"))!.rps;
  const versions = {
    node: process.version,
    next: pkgVersion("next"),
    postgres: String(
      execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-tAc", "show server_version", "postgres"], {
        encoding: "utf8",
      }),
    ).trim(),
  };
  const machine = {
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model,
    memory_gb: Math.round(os.totalmem() / 2 ** 30),
    platform: `${os.platform()} ${os.release()}`,
  };
  const rows = results.map((r) => ({ ...r, ratio_to_bare_route: r.rps / bare, ratio_to_node_http: r.rps / node }));
  const goals = targets(results, peakRss, deliveries);
  const json = {
    date: new Date().toISOString(),
    machine,
    versions,
    connections: CONNECTIONS,
    duration_s: DURATION,
    warmup_s: WARMUP,
    peak_rss_bytes: peakRss,
    tenants: seeded.tenants.map((t) => ({ messages: t.messages, leads: t.leads })),
    results: rows,
    deliveries,
    operations: ops,
    request_log: logCost,
    targets: goals,
  };
  writeFileSync(path.join(import.meta.dirname, "results.json"), `${JSON.stringify(json, null, 2)}\n`);
  const md = [
    "# Benchmark results",
    "",
    `${json.date}. Machine: ${machine.cpus} × ${machine.cpu}, ${machine.memory_gb} GiB, ${machine.platform}. Node ${versions.node}, Next.js ${versions.next}, PostgreSQL ${versions.postgres}.`,
    `${CONNECTIONS} connections, ${WARMUP} s warm-up then ${DURATION} s per scenario; load from a separate process (autocannon). Rate limits of the bench tenants and keys raised with \`limits:set\`.`,
    `Peak RSS of the app server: ${(peakRss / 2 ** 20).toFixed(0)} MB.`,
    "",
    "| Scenario | req/s | p50 ms | p99 ms | non-2xx | ratio to GET /api/health | ratio to node:http |",
    "|---|---:|---:|---:|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.ratio_to_bare_route.toFixed(2)} | ${r.ratio_to_node_http.toFixed(2)} |`,
    ),
    "",
    `Deliveries (one worker process, local HTTPS receiver): burst of ${deliveries.burst.events} events in ${deliveries.burst.seconds.toFixed(1)} s = ${Math.round(deliveries.burst.perSecond)} deliveries/s; steady ${deliveries.steady.ratePerSec} events/s: enqueue-to-delivered p50 ${deliveries.steady.p50Ms} ms, p95 ${deliveries.steady.p95Ms} ms; top-up to first deferred delivery ${deliveries.topupToFirstDeliveryMs} ms.`,
    "",
    `Paid operations (AI replies, catalog model, one operations worker process): burst of ${ops.burst.operations} in ${ops.burst.seconds.toFixed(1)} s = ${Math.round(ops.burst.perSecond)} operations/s; steady ${ops.steady.ratePerSec}/s: create-to-completed p50 ${ops.steady.p50Ms} ms, p95 ${ops.steady.p95Ms} ms.`,
    "",
    logCost
      ? `Request log (${REQUEST_LOG_SCENARIO}: fresh app processes identical but for \`REQUEST_LOG=off\`, run on, off, off, on; means of each side): on ${Math.round(logCost.on.rps)} req/s (p99 ${Math.round(logCost.on.p99)} ms), off ${Math.round(logCost.off.rps)} req/s (p99 ${Math.round(logCost.off.p99)} ms); ratio on/off ${logCost.ratio.toFixed(2)}, about ${Math.round(logCost.costUsPerRequest)} µs of app time per request; ${logCost.rowsWritten} rows written by the "on" runs (warm-ups included; ${logCost.on.total} measured requests). Taken apart in the bench process: queueing a row ${logCost.parts.pushCpuUs.toFixed(2)} µs of CPU, writing it ${logCost.parts.writeCpuUsPerRow.toFixed(1)} µs of CPU (batches of ${logCost.parts.batchRows} rows, ${logCost.parts.batchWallMs.toFixed(1)} ms each, off the requests' path).`
      : "Request log cost: not measured in this run.",
    "",
    "| Target | This run | Met |",
    "|---|---|---|",
    ...goals.map((g) => `| ${g.target} | ${g.figure} | ${g.met ? "yes" : "**no**"} |`),
    "",
  ].join("\n");
  writeFileSync(path.join(import.meta.dirname, "results.md"), md);
  console.log(`\n${md}`);
}

function pkgVersion(name: string): string {
  return (JSON.parse(readFileSync(path.join("node_modules", name, "package.json"), "utf8")) as { version: string })
    .version;
}

try {
  await main();
} finally {
  for (const c of children) c.kill("SIGTERM");
  await new Promise((r) => setTimeout(r, 1000));
  if (!flags.keep) await admin.unsafe(`drop database if exists ${dbName} with (force)`).catch(() => {});
  await admin.end();
}
