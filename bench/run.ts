import { execFile, execFileSync, fork, spawn, type ChildProcess } from "node:child_process";
import { promisify } from "node:util";
import {
  cpSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { format, resolveConfig } from "prettier";
import { openDatabase } from "@/db/client";
import { seedTenantData } from "@/server/services/seed/seed-data";
import { leads } from "@/db/schema";
import { setTestEnv } from "@/server/testing/test-db";
import { seedBenchTenant } from "./bench-tenant";
import { compareBuilds, compareEnv, compareLabels, compareTable } from "./compare";
import { medianIndex } from "./median";
import { benchDeliveries, type DeliveryFigures } from "./deliveries";
import { benchFairness, fairnessLine, FAIRNESS_TARGET_MS } from "./fairness";
import { eventLoopProbe, type EventLoopFigures } from "./event-loop";
import {
  INTAKE_ROW,
  intakeFigures,
  intakeSection,
  intakeTargets,
  seedIntakeTenants,
  timeseriesPath,
  timeseriesRow,
  type IntakeTenants,
} from "./intake";
import { benchOperations, type OperationFigures } from "./operations";
import { benchRequestLogCost, type RequestLogCost } from "./request-log-cost";
import type { LoadSpec } from "./load";
import { ensureServerBundle, serverNodeFlags, serverProcessEnv } from "../scripts/server-bundle";
import { cpuSince, cpuSnapshot, rssSampler, treeRss } from "./process-stats";
import { soak } from "./soak";
import { benchCommitLatency, STALL_MS, type CommitLatency } from "./commit-latency";
import { statisticsKeeper } from "./statistics";
import { missProfileSection, profileMisses, type Miss, type MissProfile } from "./miss-profile";
import { P99_TARGET_FACTOR, p99Verdict } from "./p99-target";
import { cpuSplit, haveWrk, wrkLoad, type LoadFigures } from "./wrk";

// `npm run bench`: builds the app, seeds a fresh database (`--database postgres`, the default: a new
// database on the local PostgreSQL server; `--database embedded`: a new PGlite directory, the demo's
// default), starts the app as in production (`npm start`: our server around Next.js), and drives it with
// wrk (one thread, pinned with taskset to a core the app does not run on) or, without wrk, autocannon in
// a separate process pinned the same way. Each row shows the app's and PostgreSQL's CPU and the app's
// resident memory. Baselines measured in the same run: GET /api/health of the same app and a bare
// node:http server; GET /api/health again after each row with a ratio target and each read, whose req/s
// is divided by the health figures on either side of it and whose p99 is held to 1.5 × health's p99
// there (bench/p99-target.ts). Never part of `npm test`.

// --only <text>[|<text>...]: run the baselines and the scenarios whose name contains one of the texts, skip
// deliveries, write no results file. --profile: record a CPU and an allocation profile of the app
// (bench/profiles/) and print where its time went and whose garbage the GC collected.
const { values: flags } = parseArgs({
  options: {
    "skip-build": { type: "boolean" },
    quick: { type: "boolean" },
    keep: { type: "boolean" },
    duration: { type: "string", default: "10" },
    only: { type: "string" },
    profile: { type: "boolean" },
    // --explain: with --only, profile each chosen scenario with a ratio target or a read p99 target, met or
    // missed (a full run profiles the misses).
    explain: { type: "boolean" },
    // --soak <s>: after the scenarios, reads for <s> seconds with the app's memory sampled (bench/soak.ts).
    soak: { type: "string" },
    // --processes N: the app runs N processes on one port (WEB_CONCURRENCY, postgres only; docs/operations.md).
    processes: { type: "string", default: "1" },
    database: { type: "string", default: "postgres" },
    // The app's port; the bare node:http baseline takes the next one.
    port: { type: "string", default: "3900" },
    // --compare <dir>: a second checkout (built, with its node_modules) runs beside this one on the same
    // database (embedded: a copy of the seeded directory), and the chosen scenarios alternate between the
    // two for --rounds rounds (bench/compare.ts).
    compare: { type: "string" },
    // --rounds N: also the rounds of each row with a ratio target in a full run (each followed by GET
    // /api/health; the row keeps its median round by ratio).
    rounds: { type: "string", default: "3" },
  },
});
if (flags.database !== "postgres" && flags.database !== "embedded")
  throw new Error(`--database is embedded or postgres, not ${flags.database}`);
const EMBEDDED = flags.database === "embedded";
const PROCESSES = Number(flags.processes);
if (!Number.isInteger(PROCESSES) || PROCESSES < 1 || (EMBEDDED && PROCESSES > 1))
  throw new Error("--processes is a whole number ≥ 1, and 1 with --database embedded");
if (flags.compare && !flags.only) throw new Error("--compare needs --only <scenarios>");
// Read before the seeding, so that a word that is not NAME=value fails the run at once.
const COMPARE_ENV = compareEnv(process.env.BENCH_COMPARE_ENV);
const PG = process.env.BENCH_PG_BASE ?? "postgres://postgres@127.0.0.1:5432";
const APP_PORT = Number(flags.port);
const BARE_PORT = APP_PORT + 1;
const DURATION = Number(flags.duration);
// 8 s: a scenario's first seconds run code the JIT has not optimized yet (new routes, new queries).
const WARMUP = Number(process.env.BENCH_WARMUP ?? 8);
const CONNECTIONS = 16;
/** Rounds of each row with a ratio target in a full run, each followed by GET /api/health (--rounds). */
const RATIO_ROUNDS = Number(flags.rounds);
if (!Number.isInteger(RATIO_ROUNDS) || RATIO_ROUNDS < 1) throw new Error("--rounds is a whole number ≥ 1");
const BIG_SCALE = flags.quick ? 1000 : 10_000; // messages = 100 × scale
const REQUEST_LOG_SCENARIO = "GET /me (request log on/off)";
/** Intake events of the timeseries read's tenant (issue 74 item 5: 1,000,000 over 90 days). */
const ANALYTICS_EVENTS = flags.quick ? 100_000 : 1_000_000;
/** Whether this run measures the intake rows (bench/intake.ts): PostgreSQL only, and chosen by --only. */
const INTAKE =
  !EMBEDDED &&
  (!flags.only ||
    flags.only.split("|").some((t) => INTAKE_ROW.includes(t) || timeseriesRow(ANALYTICS_EVENTS).includes(t)));
const log = (m: string) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${m}`);

const dbName = `bench_${Date.now()}`;
const dbUrl = `${PG}/${dbName}`;
/** The embedded run's PGlite directory (fresh, removed afterwards unless --keep). */
const pgliteDir = EMBEDDED ? path.join(mkdtempSync(path.join(os.tmpdir(), "bench-pglite-")), "pglite") : "";
/** The database environment of the app, the seeding and the CLI. */
const dbEnv: Record<string, string> = EMBEDDED ? { DATABASE_URL: "", PGLITE_DIR: pgliteDir } : { DATABASE_URL: dbUrl };
/** Leads of the big tenant: the seeded ones, topped up with one INSERT ... SELECT generate_series. */
const BIG_LEADS = 100_000;
const SPLIT = cpuSplit();
/** Analyzes the tables a scenario grew, where the server's autovacuum is off (bench/statistics.ts). */
const statistics = statisticsKeeper(EMBEDDED ? null : dbUrl, log);
/** Cores the app may use: all but the load generator's when pinned, else the machine's. */
const appCores = () => (SPLIT ? os.cpus().length - 1 : os.availableParallelism());
/** wrk when installed; `BENCH_LOAD=autocannon` forces the fallback (to compare the two generators). */
const WRK = process.env.BENCH_LOAD !== "autocannon" && haveWrk();
const admin = postgres(`${PG}/postgres`, { max: 1, onnotice: () => {} });
const children: ChildProcess[] = [];
const execFileAsync = promisify(execFile);

async function main() {
  if (!EMBEDDED) await admin.unsafe(`create database ${dbName}`);
  if (!WRK)
    log(
      "wrk is not installed (Debian/Ubuntu: apt-get install wrk): falling back to autocannon, a Node load generator that needs a core of its own",
    );
  log(
    SPLIT
      ? `load generator pinned to CPU ${SPLIT.load}, the app to CPU ${SPLIT.app} (taskset)`
      : "one core or no taskset: the load generator shares the app's cores, so the figures understate the app",
  );
  if (!flags["skip-build"]) {
    log("next build");
    execFileSync("npx", ["next", "build"], { stdio: "ignore" });
  }
  setTestEnv({ ...dbEnv, CELL_ORIGIN_RU: `http://localhost:${APP_PORT}` });
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
  // The intake tenants: the preview, and write (and read) limits out of the way of the measurement.
  for (const t of seeded.intake ? [seeded.intake.writer, seeded.intake.reader] : []) {
    cli("limits:set", "--tenant", t.tenantId, "--read", "1000000", "--write", "1000000");
    cli("limits:set", "--key-id", t.keyId, "--read", "1000000", "--write", "1000000");
    cli("preview:set", "--tenant", t.tenantId, "--feature", "event-intake", "--enabled", "true");
  }

  const bare = fork(path.join(import.meta.dirname, "bare-server.ts"), [String(BARE_PORT)], {
    execArgv: ["--import", "tsx"],
  });
  children.push(bare);
  await new Promise((r) => bare.once("message", r));
  if (SPLIT) execFileSync("taskset", ["-a", "-p", "-c", SPLIT.app, String(bare.pid)], { stdio: "ignore" });
  const profileDir = path.join(import.meta.dirname, "profiles");
  // --profile: a CPU profile (node --cpu-prof) and an allocation profile (bench/allocation-probe.mjs, which
  // tells whose allocations the garbage collector's time goes to), both written when the app exits.
  const profiling = flags.profile
    ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, "--import", path.join(import.meta.dirname, "allocation-probe.mjs")]
    : [];
  // The environment `npm start` gives its server (scripts/server-bundle.ts), with the bench's settings.
  const appEnv: NodeJS.ProcessEnv = serverProcessEnv({
    ...process.env,
    NODE_ENV: "production",
    PORT: String(APP_PORT),
    ...dbEnv,
    APP_SECRET: "bench-secret-0123456789abcdef0123456789",
    LOG_LEVEL: "warn",
    // Production requires every cell's public https origin (server/env.ts); they only appear in links
    // of answers, the bench itself calls http://localhost:APP_PORT.
    CELL_ORIGIN_RU: "https://api.bench.example.ru",
    CELL_ORIGIN_EN: "https://api.bench.example.com",
    CELL_ORIGIN_ID: "https://api.bench.example.id",
    // Production refuses the sandbox payment provider unless allowed; the bench takes no payments.
    PAYMENT_SANDBOX: "allow",
    WEB_CONCURRENCY: String(PROCESSES),
  });
  // The app as `npm start` runs it: our server compiled into one module (scripts/server-bundle.ts).
  // The flags `npm start` would choose on the app's cores (BENCH_NODE_FLAGS replaces them, to compare).
  const nodeFlags = process.env.BENCH_NODE_FLAGS?.split(" ") ?? serverNodeFlags(appCores());
  const bundle = await ensureServerBundle("server/main.ts", "main");
  // Event-loop delay per scenario (bench/event-loop.ts): the probe is preloaded into every app process.
  const loopProbe = eventLoopProbe();
  const nodeArgs = [
    ...profiling,
    ...nodeFlags,
    // Not under --compare: the other app runs without it, and the probe's own work would weigh on this side.
    ...(flags.compare ? [] : loopProbe.nodeArgs),
    bundle,
  ];
  /** Starts the app on the app's cores with `args` and the bench's environment plus `env`; resolves once it answers. */
  const startApp = async (args: string[], env: Record<string, string>) => {
    const child = spawn(
      SPLIT ? "taskset" : process.execPath,
      SPLIT ? ["-c", SPLIT.app, process.execPath, ...args] : args,
      {
        env: { ...appEnv, ...env },
        // The app's log lines (warnings and errors only, LOG_LEVEL=warn) are kept in bench/app.log.
        stdio: ["ignore", openSync(path.join(import.meta.dirname, "app.log"), "a"), "inherit"],
      },
    );
    children.push(child);
    await waitFor(`http://localhost:${APP_PORT}/api/health`);
    return child;
  };
  writeFileSync(path.join(import.meta.dirname, "app.log"), "");
  const app = await startApp(nodeArgs, {
    ...loopProbe.env,
    ...(flags.profile ? { BENCH_ALLOCATION_DIR: profileDir } : {}),
  });
  let peakRss = 0;
  const sampleRss = rssSampler(app.pid!);
  const rssTimer = setInterval(() => {
    peakRss = Math.max(peakRss, sampleRss());
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
  let conversationId: string | null = null;
  if (conv.status === 201) {
    const id = ((await conv.json()) as { id: string }).id;
    conversationId = id;
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

  if (seeded.intake) {
    // Issue 74 item 5 (bench/intake.ts): batches of 100 events from the load generator, then the read.
    const { writer, reader } = seeded.intake;
    scenarios.push({
      ...spec(
        INTAKE_ROW,
        `${api}/intake/events`,
        { ...auth(writer.key), "content-type": "application/json" },
        "intake",
      ),
      method: "POST",
      intake: true,
    });
    const path = timeseriesPath(Date.now());
    const probe = await fetch(`${api}${path}`, { headers: auth(reader.key) });
    if (probe.status === 200)
      scenarios.push(spec(timeseriesRow(reader.events), `${api}${path}`, auth(reader.key), "data"));
    else log(`GET ${path} answered ${probe.status}: the timeseries row is left out`);
  }
  const results: Result[] = [];
  // A profile shows the chosen scenario alone: the app's own baseline (GET /api/health) is left out of it.
  const chosen = flags.only
    ? scenarios.filter(
        (s) =>
          (s.group === "baseline" && !(flags.profile && s.url.startsWith(base))) ||
          flags.only!.split("|").some((text) => s.name.includes(text)),
      )
    : scenarios;
  // The bare route measured last (req/s, p99 ms): the first baseline row, then each re-measure after a row
  // with a ratio target or a read.
  let lastHealth: { rps: number; p99: number } | null = null;
  const healthSpec = scenarios.find((s) => s.url === `${base}/api/health`)!;
  /** One measured run of `s` (its warm-up, then DURATION s) with the app's CPU, memory and event-loop delay. */
  const measure = async (s: LoadSpec & { group: string }): Promise<Result> => {
    const before = cpuSnapshot(app.pid!, EMBEDDED ? null : dbName);
    loopProbe.mark();
    const r = await drive(s);
    const eventLoop = await loopProbe.read();
    const cpu = cpuSince(before, cpuSnapshot(app.pid!, EMBEDDED ? null : dbName));
    const rss = treeRss(app.pid!);
    log(
      `  app CPU ${cpu.appPct.toFixed(0)}%, PostgreSQL CPU ${EMBEDDED ? "n/a (embedded)" : `${cpu.postgresPct.toFixed(0)}%`}; app RSS ${(rss / 2 ** 20).toFixed(0)} MB (peak ${(peakRss / 2 ** 20).toFixed(0)} MB)${eventLoop ? `; event-loop delay mean ${eventLoop.meanMs.toFixed(1)} ms, p99 ${eventLoop.p99Ms.toFixed(0)} ms, max ${eventLoop.maxMs.toFixed(0)} ms` : ""}`,
    );
    const codes = Object.entries((r.statusCodes ?? {}) as Record<string, { count: number }>)
      .filter(([c]) => !c.startsWith("2"))
      .map(([c, v]) => `${c}×${v.count}`);
    log(
      `  ${Math.round(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, non-2xx ${r.non2xx}${codes.length ? ` (${codes.join(", ")})` : ""}`,
    );
    return {
      ...r,
      group: s.group,
      appCpuPct: cpu.appPct,
      postgresCpuPct: cpu.postgresPct,
      rssBytes: rss,
      eventLoop,
      healthAround: null,
      healthAroundP99: null,
      ratioRounds: null,
    };
  };
  // --compare measures the chosen scenarios in its own alternated rounds instead.
  for (const s of flags.compare ? [] : chosen) {
    // A row with a ratio target is divided by the bare route measured just before and just after it: on this
    // project's VMs the host's speed drifted by up to a third within one run, and one health figure at the
    // start made the later rows' ratios partly the hour's (docs/benchmark.md). Such a row is measured in
    // RATIO_ROUNDS rounds, each followed by the bare route, and its figures are those of its median round by
    // ratio: on the twenty-seventh session's VM one row gave 576 and 950 req/s in two runs of one build.
    // A read without a ratio target is measured once, followed by the bare route too: its p99 is held to
    // health's p99 around it (bench/p99-target.ts).
    const rounds = lastHealth !== null && ratioTarget(s.name) ? RATIO_ROUNDS : 1;
    const healthAfter = lastHealth !== null && (ratioTarget(s.name) !== undefined || isRead(s) || s.group === "intake");
    const measured: Result[] = [];
    for (let round = 0; round < rounds; round++) {
      const warmupS = round === 0 ? s.warmupS : HEALTH_REWARMUP_S;
      log(
        `${s.name}: ${CONNECTIONS} connections, ${warmupS} s warm-up, ${DURATION} s${rounds > 1 ? ` (round ${round + 1} of ${rounds})` : ""}`,
      );
      const result = await measure({ ...s, warmupS });
      measured.push(result);
      if (s === healthSpec) lastHealth = { rps: result.rps, p99: result.p99 };
      if (lastHealth !== null && healthAfter) {
        const again = await drive({ ...healthSpec, warmupS: HEALTH_REWARMUP_S });
        result.healthAround = [lastHealth.rps, again.rps];
        result.healthAroundP99 = [lastHealth.p99, again.p99];
        lastHealth = { rps: again.rps, p99: again.p99 };
        const p99 = isRead(s) ? p99Verdict(result.p99, result.healthAroundP99) : null;
        log(
          `  GET /api/health again: ${Math.round(again.rps)} req/s, p99 ${again.p99} ms; ratio ${(result.rps / healthBaseline(result, 0)).toFixed(2)} to the bare route around it${p99 ? `, p99 ${p99.multiple.toFixed(2)} × its p99 (line ${p99.line.toFixed(1)} ms)` : ""}`,
        );
      }
    }
    const ratios = measured.map((r) => (r.healthAround ? r.rps / healthBaseline(r, 0) : NaN));
    const kept = measured[rounds > 1 ? medianIndex(ratios) : 0];
    if (rounds > 1) {
      kept.ratioRounds = ratios;
      log(
        `  ratio ${ratios.map((x) => x.toFixed(2)).join(", ")} in the rounds; the row keeps the median round's figures`,
      );
    }
    results.push(kept);
    // wait=0 accepts messages faster than the app's driver answers them: the next scenario would run
    // behind that backlog (wait=5 timing out behind it, the reads sharing the app's core with it).
    if (s.group === "ai" && conversationId) await repliesCaughtUp(api, small.key, conversationId);
  }
  if (flags.compare) {
    await compareWith(flags.compare, appEnv, nodeFlags, base, chosen, app.pid!);
    clearInterval(rssTimer);
    loopProbe.close();
    return;
  }
  if (flags.soak)
    await soak({
      spec: {
        ...spec("GET /me, /cards?limit=10, /cards (50) in turn", `${api}/me`, auth(small.key), "soak"),
        paths: ["/api/public/v1/me", "/api/public/v1/cards?limit=10", "/api/public/v1/cards"],
      },
      seconds: Number(flags.soak),
      drive,
      rss: () => treeRss(app.pid!),
      database: flags.database!,
      log,
    });
  clearInterval(rssTimer);
  loopProbe.close();
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
    !EMBEDDED &&
    !flags.profile &&
    !process.env.BENCH_SKIP_LOG_COST &&
    (!flags.only || REQUEST_LOG_SCENARIO.includes(flags.only))
      ? await benchRequestLogCost({
          env: appEnv,
          port: APP_PORT + 2,
          dbUrl,
          key: small.key,
          connections: CONNECTIONS,
          durationS: DURATION,
          // A fresh process compiles the route and warms its JIT first; the other scenarios ran on a warm app.
          warmupS: Math.max(WARMUP, 8),
          nodeFlags,
          appCpus: SPLIT?.app ?? null,
          drive,
          log,
          waitFor,
        })
      : null;
  if (flags.profile) {
    // This run's app writes CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; its main thread's profile is
    // its largest file (a worker thread, if any, writes its own). Earlier runs' files stay in the folder.
    const newest = readdirSync(profileDir)
      .filter((f) => f.endsWith(".cpuprofile") && f.split(".")[3] === String(app.pid))
      .sort((a, b) => statSync(path.join(profileDir, a)).size - statSync(path.join(profileDir, b)).size)
      .pop();
    const allocations = path.join(profileDir, `${app.pid}.heapprofile`);
    if (newest)
      execFileSync(
        process.execPath,
        [
          "--import",
          "tsx",
          path.join(import.meta.dirname, "profile-summary.ts"),
          path.join(profileDir, newest),
          ...(existsSync(allocations) ? [allocations] : []),
        ],
        { stdio: "inherit" },
      );
  }
  // Issue 22's "Done when": each missed ratio target and read p99 explained by a profile (bench/miss-profile.ts).
  const missProfiles =
    !flags.profile && !process.env.BENCH_SKIP_MISS_PROFILES && (!flags.only || flags.explain)
      ? await profileMisses({
          misses: misses(results, (name) => scenarios.find((s) => s.name === name), Boolean(flags.only)),
          start: ({ nodeArgs: extra, env }) => startApp([...extra, ...nodeFlags, bundle], env),
          drive,
          dir: profileDir,
          log,
        })
      : [];
  if (flags.only) {
    const intake = intakeSection(results);
    if (intake.length > 0) console.log(`\n${intake.join("\n")}`);
    if (missProfiles.length > 0) console.log(`\n${missProfileSection(missProfiles).join("\n")}`);
    return;
  }
  if (EMBEDDED) {
    // The deliveries and operations scenarios measure worker processes on a shared PostgreSQL.
    log("deliveries and operations are measured with --database postgres only");
    await report(results, peakRss, seeded, null, null, null, null, missProfiles);
    return;
  }
  // The disk's share of the journaled reads' p99, with the app stopped (bench/commit-latency.ts).
  const commits = await benchCommitLatency(dbUrl);
  log(
    `  commit latency: p50 ${commits.p50Ms} ms, p99 ${commits.p99Ms} ms, max ${commits.maxMs} ms; ${commits.stalls} of ${commits.commits} commits over ${STALL_MS} ms`,
  );
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
  // Fair delivery (issue 75 item 5): tenant B's latency behind tenant A's backlog, 2 worker processes.
  deliveries.fairness = await benchFairness(dbUrl, log, {
    workers: 2,
    backlog: flags.quick ? 5_000 : 50_000,
    slowMs: 2_000,
    events: flags.quick ? 100 : 200,
    ratePerSec: 20,
  });
  log(`  ${fairnessLine(deliveries.fairness)}`);
  const ops = await benchOperations(
    dbUrl,
    log,
    flags.quick ? { burst: 300, steadyRate: 10, steadySeconds: 5 } : { burst: 1000, steadyRate: 20, steadySeconds: 10 },
  );
  log(
    `  operations ${Math.round(ops.burst.perSecond)}/s per worker; create-to-completed p50 ${ops.steady.p50Ms} ms, p95 ${ops.steady.p95Ms} ms`,
  );
  await report(results, peakRss, seeded, deliveries, ops, logCost, commits, missProfiles);
}

/**
 * `--compare <dir>`: starts the app of the checkout in `dir` (its own build, bundle and node_modules) on
 * APP_PORT + 2 with this app's environment, flags (or BENCH_COMPARE_NODE_FLAGS) and core, and prints the
 * alternated comparison of the chosen scenarios between this app and that one (bench/compare.ts).
 */
async function compareWith(
  dir: string,
  appEnv: NodeJS.ProcessEnv,
  nodeFlags: string[],
  base: string,
  chosen: (LoadSpec & { group: string })[],
  appPid: number,
): Promise<void> {
  const root = path.resolve(dir);
  const port = APP_PORT + 2;
  // PGlite has one opener: on the embedded database the other app gets a copy of the seeded directory.
  const otherDb: Record<string, string> = {};
  if (EMBEDDED) {
    otherDb.PGLITE_DIR = path.join(path.dirname(pgliteDir), "pglite-compare");
    cpSync(pgliteDir, otherDb.PGLITE_DIR, { recursive: true });
  }
  // BENCH_COMPARE_NODE_FLAGS: the other app's V8 flags, to compare flags on one build (`--compare .`).
  const otherFlags = process.env.BENCH_COMPARE_NODE_FLAGS?.split(" ") ?? nodeFlags;
  const args = [...otherFlags, await ensureServerBundle("server/main.ts", "main", root)];
  const other = spawn(
    SPLIT ? "taskset" : process.execPath,
    SPLIT ? ["-c", SPLIT.app, process.execPath, ...args] : args,
    {
      cwd: root,
      // BENCH_COMPARE_ENV ("NAME=value NAME=value"): variables only the other app gets, to compare settings.
      env: { ...appEnv, ...otherDb, PORT: String(port), ...COMPARE_ENV },
      stdio: ["ignore", openSync(path.join(import.meta.dirname, "app-compare.log"), "w"), "inherit"],
    },
  );
  children.push(other);
  const otherOrigin = `http://localhost:${port}`;
  await waitFor(`${otherOrigin}/api/health`);
  const labels = compareLabels(
    root,
    path.join(import.meta.dirname, ".."),
    process.env.BENCH_COMPARE_ENV,
    process.env.BENCH_COMPARE_NODE_FLAGS,
  );
  log(`comparing ${root} (port ${port}) with this checkout (port ${APP_PORT}), ${flags.rounds} rounds`);
  const health = chosen.find((s) => s.url === `${base}/api/health`)!;
  const rows = await compareBuilds({
    sides: [
      { label: labels[0], origin: otherOrigin, pid: other.pid! },
      { label: labels[1], origin: base, pid: appPid },
    ],
    health: { ...health, url: health.url.replace(base, otherOrigin) },
    scenarios: chosen
      .filter((s) => s.group !== "baseline")
      .map((s) => ({ ...s, url: s.url.replace(base, otherOrigin) })),
    rounds: Number(flags.rounds),
    drive,
    log,
  });
  console.log(`\n${compareTable(rows, labels, Number(flags.rounds))}\n`);
}

/**
 * Runs one scenario with wrk, or with autocannon (bench/load.ts) in a separate process when wrk is absent;
 * then analyzes the tables it grew when no autovacuum will ({@link statistics}).
 */
async function drive(s: LoadSpec): Promise<LoadFigures> {
  const figures = await load(s);
  await statistics.afterScenario();
  return figures;
}

async function load(s: LoadSpec): Promise<LoadFigures> {
  if (WRK) return wrkLoad(s, SPLIT?.load ?? null);
  // Asynchronous, so the RSS sampler keeps running while the load runs.
  const args = ["--import", "tsx", path.join(import.meta.dirname, "load.ts"), JSON.stringify(s)];
  const { stdout: out } = SPLIT
    ? await execFileAsync("taskset", ["-c", SPLIT.load, process.execPath, ...args], { encoding: "utf8" })
    : await execFileAsync(process.execPath, args, { encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").pop()!) as LoadFigures;
}

/**
 * Waits until the AI replies queued by earlier scenarios are answered: sends one customer message with
 * `wait=5` at a time until one is answered 200 (its reply came within the wait) instead of 202 (still
 * pending), at most 300 s; any other status stops the wait (logged).
 */
async function repliesCaughtUp(api: string, key: string, conversationId: string): Promise<void> {
  const started = Date.now();
  for (let n = 0; Date.now() - started < 300_000; n++) {
    const r = await fetch(`${api}/conversations/${conversationId}/messages?wait=5`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        "idempotency-key": `bench-drain-${Date.now()}-${n}`,
      },
      body: JSON.stringify({ content: "Is the backlog answered?" }),
    });
    await r.arrayBuffer();
    if (r.status === 200) {
      log(`  queued AI replies answered after ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return;
    }
    if (r.status !== 202) {
      log(`  waiting for the queued AI replies stopped: a probe message was answered ${r.status}`);
      return;
    }
  }
  log("  queued AI replies still not answered after 300 s; the next scenarios run behind them");
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

async function seed(): Promise<{ tenants: SeededTenant[]; intake: IntakeTenants | null }> {
  const d = EMBEDDED
    ? await openDatabase({ dir: pgliteDir, migrate: true })
    : await openDatabase({ url: dbUrl, migrate: true, poolSize: 4 });
  const tenants: SeededTenant[] = [];
  for (const scale of [100, BIG_SCALE]) {
    log(`seeding a tenant at scale ${scale} (${(100 * scale).toLocaleString("en")} messages)`);
    const b = await seedBenchTenant(d.db, `Bench ${scale}`, ["127.0.0.1", "::1"]);
    const counts = await seedTenantData(d.db, b.tenantId, scale, b.integrationId);
    if (scale === BIG_SCALE && counts.leads < BIG_LEADS) {
      const more = BIG_LEADS - counts.leads;
      log(`adding ${more.toLocaleString("en")} leads with one INSERT ... SELECT generate_series`);
      await d.db.execute(sql`
        insert into ${leads} (tenant_id, status, title, source, owner, created_at, updated_at)
        select ${b.tenantId}::uuid, (array['new','qualified','proposal','negotiation','won','lost'])[1 + g % 6],
               'Bench lead ' || g, 'bench', 'internal',
               now() - make_interval(mins => g), now() - make_interval(mins => g)
        from generate_series(1, ${more}::int) as g`);
      counts.leads = BIG_LEADS;
    }
    tenants.push({
      ...b,
      messages: counts.messages,
      leads: counts.leads,
    });
  }
  const intake = INTAKE ? await seedIntakeTenants(d.db, ANALYTICS_EVENTS, log) : null;
  // VACUUM now, not autovacuum later: after a million inserts it would otherwise run during the first scenarios.
  log("vacuum analyze after seeding");
  await d.db.execute(sql`vacuum analyze`);
  // A checkpoint now, not when the seed's WAL (about 1 GB at the full scale) makes the server start one during
  // the first scenarios: it did, 3 minutes into a run, and spread its writes over the message pages' rows. The
  // embedded database checkpoints when it closes, just below.
  if (!EMBEDDED) {
    log("checkpoint after seeding");
    await d.db.execute(sql`checkpoint`);
  }
  await d.close();
  return { tenants, intake };
}

function cli(...args: string[]) {
  execFileSync(process.execPath, ["--import", "tsx", "scripts/admin.ts", ...args, "--json"], {
    env: { ...process.env, ...dbEnv },
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

type Result = LoadFigures & {
  group: string;
  /** CPU of the app's process tree during the scenario, % of one core. */
  appCpuPct: number;
  /** CPU of the bench database's PostgreSQL processes during the scenario, % of one core (0 when embedded). */
  postgresCpuPct: number;
  /** Resident memory of the app's process tree at the end of the scenario, bytes. */
  rssBytes: number;
  /** How late the app's event loop ran during the scenario (warm-up included), ms; null when unread. */
  eventLoop: EventLoopFigures | null;
  /**
   * req/s of GET /api/health measured just before and just after this scenario (rows with a ratio target);
   * null for the others.
   */
  healthAround: [before: number, after: number] | null;
  /** p99 of GET /api/health measured just before and just after this scenario, ms (as healthAround). */
  healthAroundP99: [before: number, after: number] | null;
  /**
   * A row with a ratio target measured in rounds (RATIO_ROUNDS): each round's ratio to the bare route around
   * it, in order; the row's other figures are its median round's. Null for a row measured once.
   */
  ratioRounds: number[] | null;
};

/** Warm-up of a re-measure of the bare route, s: the route and the app are warm by then. */
const HEALTH_REWARMUP_S = 3;

/**
 * The req/s a row's ratio divides by: the mean of GET /api/health just before and just after it when the
 * row has {@link Result.healthAround}, else `first` (the run's first GET /api/health row).
 */
function healthBaseline(r: Pick<Result, "healthAround">, first: number): number {
  return r.healthAround ? (r.healthAround[0] + r.healthAround[1]) / 2 : first;
}

/** Issue 22 item 6: each scenario's least ratio to GET /api/health of the same run, per database. */
const RATIO_TARGETS: Record<"postgres" | "embedded", [prefix: string, min: number][]> = {
  postgres: [
    ["GET /me", 0.8],
    ["GET /cards?limit=10", 0.7],
    ["GET /cards (50 cards)", 0.55],
    ["POST /cards", 0.4],
    ["GET /leads", 0.5],
  ],
  embedded: [
    ["GET /me", 0.7],
    ["GET /cards?limit=10", 0.5],
    ["GET /leads", 0.3],
  ],
};
/** Resident memory of the server, bytes. */
const RSS_TARGET = 400 * 2 ** 20;

const isRead = (r: { group: string; name: string }) =>
  r.group !== "baseline" && r.group !== "ai" && !r.name.startsWith("POST");

/**
 * A read row's p99 against its line (issue 68 item 3): at most {@link P99_TARGET_FACTOR} × the p99 of GET
 * /api/health measured just before and after it, or of the run's first GET /api/health row when none was
 * measured around it.
 * @returns its multiple of health's p99, its line in ms, and whether it is met (bench/p99-target.ts)
 */
function readP99(r: Pick<Result, "p99" | "healthAroundP99">, first: Pick<Result, "p99">) {
  return p99Verdict(r.p99, r.healthAroundP99 ?? [first.p99]);
}

/** The ratio target of the scenario named `name` on this run's database: [name prefix, least ratio]. */
function ratioTarget(name: string): [prefix: string, min: number] | undefined {
  return RATIO_TARGETS[EMBEDDED ? "embedded" : "postgres"].find(([prefix]) => name.startsWith(prefix));
}

/**
 * The rows' missed targets, ratio and read p99 (`all`: every such target of every row, met or missed), with
 * what their profile needs (bench/miss-profile.ts); a row measured with no GET /api/health before it has no
 * ratio and is left out.
 */
function misses(results: Result[], specOf: (name: string) => LoadSpec | undefined, all = false): Miss[] {
  const first = results.find((r) => r.name.startsWith("GET /api/health"));
  if (!first) return [];
  return results.flatMap((r) => {
    const spec = specOf(r.name);
    if (!spec || r.rps <= 0) return [];
    const appCpuMsPerRequest = (r.appCpuPct * 10) / r.rps;
    const out: Miss[] = [];
    const target = ratioTarget(r.name);
    const ratio = r.rps / healthBaseline(r, first.rps);
    if (target && (all || ratio < target[1]))
      out.push({ spec, kind: "ratio", value: ratio, target: target[1], appCpuMsPerRequest });
    const p99 = isRead(r) ? readP99(r, first) : null;
    if (p99 && (all || !p99.met)) out.push({ spec, kind: "p99", value: r.p99, target: p99.line, appCpuMsPerRequest });
    return out;
  });
}

/** A row's targets (ratio to the bare route, read p99) and whether this run met them; "" when it has none. */
function rowTarget(r: Result, first: Result): string {
  const parts: { text: string; met: boolean }[] = [];
  const ratio = ratioTarget(r.name);
  if (ratio) parts.push({ text: `≥ ${ratio[1]}`, met: r.rps / healthBaseline(r, first.rps) >= ratio[1] });
  if (isRead(r)) {
    const p99 = readP99(r, first);
    parts.push({ text: `p99 ≤ ${P99_TARGET_FACTOR} × health's (${p99.line.toFixed(1)} ms)`, met: p99.met });
  }
  return parts.map((p) => `${p.text} ${p.met ? "met" : "**missed**"}`).join("; ");
}

/** The targets of issue 22 item 6 (and the earlier data and delivery ones), each with this run's figure. */
function targets(
  results: Result[],
  peakRss: number,
  deliveries: DeliveryFigures | null,
): { target: string; figure: string; met: boolean }[] {
  const by = (prefix: string) => results.find((r) => r.name.startsWith(prefix));
  const health = by("GET /api/health")!;
  const bare = health.rps;
  const ratio = ([prefix, min]: [string, number]) => {
    const r = by(prefix);
    const figure = r ? r.rps / healthBaseline(r, bare) : NaN;
    return {
      target: `${prefix} ≥ ${min} of GET /api/health's req/s (measured just before and after it)`,
      figure: r ? `${figure.toFixed(2)} (${(r.rps / bare).toFixed(2)} to the first health row)` : "not run",
      met: figure >= min,
    };
  };
  // The worst read by its p99's multiple of GET /api/health's p99 around it (bench/p99-target.ts).
  const reads = results.filter(isRead).map((r) => ({ r, p99: readP99(r, health) }));
  const worst = reads.reduce<(typeof reads)[number] | undefined>(
    (w, x) => (!w || x.p99.multiple > w.p99.multiple ? x : w),
    undefined,
  );
  const missed = reads.filter((x) => !x.p99.met);
  // The framework's own tail in the same run: a read whose p99/p50 matches the bare route's has no tail of
  // its own, and its p99 is its p50 (16 connections / req/s) times the framework's spread.
  const tail = (r: Result) => (r.p99 / r.p50).toFixed(1);
  const pages = results.filter((r) => r.name.startsWith("message page,"));
  const pageRatio = pages.length === 2 ? pages[0].rps / pages[1].rps : NaN;
  const goals = [
    ...RATIO_TARGETS[EMBEDDED ? "embedded" : "postgres"].map(ratio),
    {
      target: `every read's p99 ≤ ${P99_TARGET_FACTOR} × the p99 of GET /api/health measured just before and after it, at ${CONNECTIONS} connections (worst read by that multiple)`,
      figure: worst
        ? `${worst.p99.multiple.toFixed(2)} × (${worst.r.name}: ${worst.r.p99} ms against health's ${(worst.p99.line / P99_TARGET_FACTOR).toFixed(1)} ms, p99/p50 ${tail(worst.r)}); ${missed.length ? `missed by ${missed.map((x) => x.r.name).join(", ")}` : `every read within its line`}; the run's first GET /api/health row: p99 ${health.p99} ms, p99/p50 ${tail(health)}`
        : "not run",
      met: worst !== undefined && missed.length === 0,
    },
    {
      target: "server RSS ≤ 400 MB under load",
      figure: `${(peakRss / 2 ** 20).toFixed(0)} MB`,
      met: peakRss <= RSS_TARGET,
    },
    {
      target: "message page at 1,000,000 messages within 1.3× the time at 10,000",
      figure: Number.isNaN(pageRatio) ? "not run" : `${pageRatio.toFixed(2)}×`,
      met: pageRatio <= 1.3,
    },
  ];
  if (!deliveries) return goals;
  goals.push(...intakeTargets(results));
  return [
    ...goals,
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
    ...(deliveries.fairness
      ? [
          {
            target: `tenant B's delivery p95 ≤ ${FAIRNESS_TARGET_MS / 1000} s behind tenant A's ${deliveries.fairness.backlog.toLocaleString("en")} events to a receiver answering in ${deliveries.fairness.slowMs / 1000} s (2 worker processes)`,
            figure: `${deliveries.fairness.behindBacklog.p95Ms} ms (alone ${deliveries.fairness.baseline.p95Ms} ms)`,
            met: deliveries.fairness.behindBacklog.p95Ms <= FAIRNESS_TARGET_MS,
          },
        ]
      : []),
  ];
}

async function report(
  results: Result[],
  peakRss: number,
  seeded: { tenants: SeededTenant[] },
  deliveries: DeliveryFigures | null,
  ops: OperationFigures | null,
  logCost: RequestLogCost | null,
  commits: CommitLatency | null = null,
  missProfiles: MissProfile[] = [],
) {
  const firstHealth = results.find((r) => r.name.startsWith("GET /api/health"))!;
  const bare = firstHealth.rps;
  const node = results.find((r) => r.name.startsWith("bare node"))!.rps;
  const versions = {
    node: process.version,
    next: pkgVersion("next"),
    postgres: EMBEDDED
      ? `PGlite ${pkgVersion("@electric-sql/pglite")} (embedded)`
      : String(
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
  const rows = results.map((r) => ({
    ...r,
    ratio_to_bare_route: r.rps / healthBaseline(r, bare),
    ratio_to_first_bare_route_row: r.rps / bare,
    health_around_rps: r.healthAround,
    health_around_p99_ms: r.healthAroundP99,
    p99_to_health_p99: isRead(r) ? readP99(r, firstHealth).multiple : null,
    ratio_rounds: r.ratioRounds,
    ratio_to_node_http: r.rps / node,
    target: rowTarget(r, firstHealth),
  }));
  const goals = targets(results, peakRss, deliveries);
  const generator = WRK ? "wrk, one thread" : "autocannon, a separate process";
  const pinning = SPLIT
    ? `pinned to CPU ${SPLIT.load}, the app to CPU ${SPLIT.app} (taskset)`
    : "not pinned (one core or no taskset)";
  const json = {
    date: new Date().toISOString(),
    database: flags.database,
    machine,
    versions,
    load_generator: { name: WRK ? "wrk" : "autocannon", pinning },
    connections: CONNECTIONS,
    duration_s: DURATION,
    warmup_s: WARMUP,
    peak_rss_bytes: peakRss,
    tenants: seeded.tenants.map((t) => ({ messages: t.messages, leads: t.leads })),
    results: rows,
    deliveries,
    operations: ops,
    request_log: logCost,
    commit_latency: commits,
    targets: goals,
    miss_profiles: missProfiles,
    intake: results.some((r) => r.name === INTAKE_ROW)
      ? intakeFigures(results.find((r) => r.name === INTAKE_ROW)!)
      : null,
  };
  const base = `results${EMBEDDED ? "-embedded" : ""}${PROCESSES > 1 ? `-${PROCESSES}-processes` : ""}`;
  // Formatted as `npm run format:check` (CI) wants bench/*.json, so a run's results can be committed as written.
  const jsonFile = path.join(import.meta.dirname, `${base}.json`);
  const prettierOptions = (await resolveConfig(jsonFile)) ?? {};
  writeFileSync(jsonFile, await format(JSON.stringify(json), { ...prettierOptions, filepath: jsonFile }));
  const mb = (b: number) => (b / 2 ** 20).toFixed(0);
  const md = [
    `# Benchmark results${EMBEDDED ? " (embedded database)" : ""}${PROCESSES > 1 ? ` (${PROCESSES} app processes)` : ""}`,
    "",
    `${json.date}. Machine: ${machine.cpus} × ${machine.cpu}, ${machine.memory_gb} GiB, ${machine.platform}. Node ${versions.node}, Next.js ${versions.next}, ${EMBEDDED ? versions.postgres : `PostgreSQL ${versions.postgres}`}.`,
    `${CONNECTIONS} connections, ${WARMUP} s warm-up then ${DURATION} s per scenario; load from ${generator}, ${pinning}. Rate limits of the bench tenants and keys raised with \`limits:set\`.`,
    `Peak RSS of the app server: ${mb(peakRss)} MB. CPU columns: % of one core during the scenario (app: its process tree; PostgreSQL: the backends of the bench database and the server's background processes${EMBEDDED ? "; none here, PGlite runs inside the app" : ""}). App CPU ms/req is the app's CPU time per answered request: unlike req/s it hardly moves when other work on the machine takes the app's core. A row with a ratio target is divided by the mean of GET /api/health measured just before and just after it (${HEALTH_REWARMUP_S} s warm-up, ${DURATION} s), so a drift of the host's speed during the run does not enter its ratio; it is measured in ${RATIO_ROUNDS} such rounds (the later ones with a ${HEALTH_REWARMUP_S} s warm-up), and its figures are those of its median round by ratio, the rounds' ratios in brackets; results.json also gives each row's ratio to the first GET /api/health row. Each read is followed by GET /api/health too, and its p99 is held to ${P99_TARGET_FACTOR} × the mean of health's p99 just before and after it (the framework's own tail in the same round).`,
    "",
    "| Scenario | req/s | p50 ms | p99 ms | non-2xx | ratio to GET /api/health | GET /api/health before / after, req/s | GET /api/health before / after, p99 ms | p99 ÷ health's p99 | ratio to node:http | app CPU % | PostgreSQL CPU % | app CPU ms/req | event-loop delay p99 / max ms | app RSS MB | target |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ...rows.map(
      (r) =>
        `| ${r.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.ratio_to_bare_route.toFixed(2)}${r.ratioRounds ? ` (rounds ${r.ratioRounds.map((x) => x.toFixed(2)).join(", ")})` : ""} | ${r.healthAround ? r.healthAround.map(Math.round).join(" / ") : ""} | ${r.healthAroundP99 ? r.healthAroundP99.join(" / ") : ""} | ${r.p99_to_health_p99 === null ? "" : r.p99_to_health_p99.toFixed(2)} | ${r.ratio_to_node_http.toFixed(2)} | ${r.appCpuPct.toFixed(0)} | ${EMBEDDED ? "–" : r.postgresCpuPct.toFixed(0)} | ${r.rps > 0 ? ((r.appCpuPct * 10) / r.rps).toFixed(2) : "–"} | ${r.eventLoop ? `${r.eventLoop.p99Ms.toFixed(0)} / ${r.eventLoop.maxMs.toFixed(0)}` : "–"} | ${mb(r.rssBytes)} | ${r.target} |`,
    ),
    "",
    deliveries
      ? `Deliveries (one worker process, local HTTPS receiver): burst of ${deliveries.burst.events} events in ${deliveries.burst.seconds.toFixed(1)} s = ${Math.round(deliveries.burst.perSecond)} deliveries/s; steady ${deliveries.steady.ratePerSec} events/s: enqueue-to-delivered p50 ${deliveries.steady.p50Ms} ms, p95 ${deliveries.steady.p95Ms} ms; top-up to first deferred delivery ${deliveries.topupToFirstDeliveryMs} ms.${deliveries.fairness ? ` Fairness: ${fairnessLine(deliveries.fairness)}.` : ""}`
      : "Deliveries and paid operations: measured with `--database postgres` only.",
    "",
    ...intakeSection(results),
    ...(ops
      ? [
          `Paid operations (AI replies, catalog model, one operations worker process): burst of ${ops.burst.operations} in ${ops.burst.seconds.toFixed(1)} s = ${Math.round(ops.burst.perSecond)} operations/s; steady ${ops.steady.ratePerSec}/s: create-to-completed p50 ${ops.steady.p50Ms} ms, p95 ${ops.steady.p95Ms} ms.`,
          "",
        ]
      : []),
    logCost
      ? `Request log (${REQUEST_LOG_SCENARIO}: fresh app processes identical but for \`REQUEST_LOG=off\`, run on, off, off, on; means of each side): on ${Math.round(logCost.on.rps)} req/s (p99 ${Math.round(logCost.on.p99)} ms), off ${Math.round(logCost.off.rps)} req/s (p99 ${Math.round(logCost.off.p99)} ms); ratio on/off ${logCost.ratio.toFixed(2)}, about ${Math.round(logCost.costUsPerRequest)} µs of app time per request; ${logCost.rowsWritten} rows written by the "on" runs (warm-ups included; ${logCost.on.total} measured requests). Taken apart in the bench process: queueing a row ${logCost.parts.pushCpuUs.toFixed(2)} µs of CPU, writing it ${logCost.parts.writeCpuUsPerRow.toFixed(1)} µs of CPU (batches of ${logCost.parts.batchRows} rows, ${logCost.parts.batchWallMs.toFixed(1)} ms each, off the requests' path).`
      : "Request log cost: not measured in this run.",
    "",
    ...(commits
      ? [
          `Commit latency of this PostgreSQL (${commits.sessions} sessions committing one-row inserts for ${commits.seconds} s, the app stopped; bench/commit-latency.ts): p50 ${commits.p50Ms} ms, p99 ${commits.p99Ms} ms, p99.9 ${commits.p999Ms} ms, max ${commits.maxMs} ms; ${commits.stalls} of ${commits.commits} commits took over ${STALL_MS} ms. Every personal-data answer (message pages, leads) waits for its journal row's commit, so the disk's stalls are in those rows' p99.`,
          "",
        ]
      : []),
    "| Target | This run | Met |",
    "|---|---|---|",
    ...goals.map((g) => `| ${g.target} | ${g.figure} | ${g.met ? "yes" : "**no**"} |`),
    "",
    ...missProfileSection(missProfiles),
  ].join("\n");
  writeFileSync(path.join(import.meta.dirname, `${base}.md`), md);
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
  await statistics.close();
  if (!flags.keep && !EMBEDDED) await admin.unsafe(`drop database if exists ${dbName} with (force)`).catch(() => {});
  if (!flags.keep && EMBEDDED) rmSync(path.dirname(pgliteDir), { recursive: true, force: true });
  await admin.end();
}
