// The intake path alone (issue 74 item 5): POST /intake/events through the public API's handlePublicRequest
// in this process, 16 batches in flight, with no HTTP server and no Next.js, on a fresh PostgreSQL database
// (`intake_alone`, dropped at the end) holding a bench tenant with the preview `event-intake`. The batches are
// the bench row's (bench/intake-load.ts: 100 events, a tenth duplicates). Prints the process's CPU per batch
// and the accepted events a second of each round: what our pipeline, the intake service and postgres.js
// cost, without the framework, steadier than the bench's row on a busy host; and PostgreSQL's CPU a batch
// (the database's backends and the server's background processes, bench/process-stats.ts).
//   taskset -c 0 npx tsx bench/intake-alone.ts [rounds] [seconds]
process.env.LOG_LEVEL = "warn";
import { AsyncLocalStorage } from "node:async_hooks";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { openDatabase } from "@/db/client";
import { PEER_HEADER } from "@/server/lib/client-ip";
import { setTestEnv } from "@/server/testing/test-db";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { setPreview } from "@/server/services/tenants/previews";
import { seedBenchTenant } from "./bench-tenant";
import { countVerdicts, intakeBody, intakePieces, type IntakeCounts } from "./intake-load";
import { cpuSince, cpuSnapshot } from "./process-stats";

const NAME = "intake_alone";
const admin = postgres("postgres://postgres@127.0.0.1:5432/postgres", { max: 1, onnotice: () => {} });
await admin.unsafe(`drop database if exists ${NAME} with (force)`);
await admin.unsafe(`create database ${NAME}`);
await admin.end();
const url = `postgres://postgres@127.0.0.1:5432/${NAME}`;
setTestEnv({ DATABASE_URL: url, NODE_ENV: "production", LOG_LEVEL: "silent", PAYMENT_SANDBOX: "allow" });
const d = await openDatabase({ url, migrate: true, poolSize: 4 });
const t = await seedBenchTenant(d.db, "Intake alone", ["127.0.0.1", "::1"]);
await setPreview(d.db, t.tenantId, "event-intake", true);
for (const target of [{ tenantId: t.tenantId }, { keyId: t.keyId }])
  await setLimitOverride(d.db, target, { readPerMin: 1_000_000, writePerMin: 1_000_000 });
await d.db.execute(sql`vacuum analyze`);
await d.close();
// As the server does (server/http-server.ts): authentication reads keys through the key cache.
const { database } = await import("@/db/client");
const { startKeyCache } = await import("@/server/services/access/key-cache");
await startKeyCache(await database());
const { handlePublicRequest } = await import("@/server/public-api/pipeline");
const { publicRouter } = await import("@/server/public-api/routes");
// Next.js runs every request inside AsyncLocalStorage stores, which turns on Node's promise hooks.
const als = new AsyncLocalStorage();
const headers = { authorization: `Bearer ${t.key}`, "content-type": "application/json", [PEER_HEADER]: "127.0.0.1" };
const pieces = intakePieces(new Date(Date.now() - 3_600_000).toISOString());

/** One round of `ms`: a new id prefix, 16 batches in flight. */
async function run(round: number, ms: number) {
  const counts: IntakeCounts = { accepted: 0, duplicate: 0, rejected: 0 };
  let n = 0,
    bad = 0;
  const end = performance.now() + ms;
  const started = performance.now();
  const c0 = process.cpuUsage();
  const p0 = cpuSnapshot(process.pid, NAME);
  await Promise.all(
    Array.from({ length: 16 }, () =>
      als.run({}, async () => {
        while (performance.now() < end) {
          const body = intakeBody(pieces, `r${round}`, ++n);
          const res = await handlePublicRequest(
            new Request("http://localhost/api/public/v1/intake/events", { method: "POST", headers, body }),
            publicRouter,
          );
          const text = await res.text();
          if (res.status !== 200 && bad++ === 0) console.error(res.status, text);
          countVerdicts(text, counts);
        }
      }),
    ),
  );
  const c = process.cpuUsage(c0);
  const seconds = (performance.now() - started) / 1000;
  const pg = cpuSince(p0, cpuSnapshot(process.pid, NAME)).postgresPct;
  return {
    n,
    bad,
    counts,
    msPerBatch: (c.user + c.system) / 1000 / n,
    pgMsPerBatch: (pg * 10 * seconds) / n,
    perSecond: counts.accepted / seconds,
  };
}

await run(0, 4000);
for (let r = 1; r <= Number(process.argv[2] ?? 3); r++) {
  const x = await run(r, Number(process.argv[3] ?? 5) * 1000);
  console.log(
    `round ${r}: ${x.msPerBatch.toFixed(2)} ms of CPU a batch (PostgreSQL ${x.pgMsPerBatch.toFixed(2)} ms), ${Math.round(x.perSecond)} accepted events/s, ${x.n} batches (${x.counts.accepted} accepted, ${x.counts.duplicate} duplicate, ${x.counts.rejected} rejected, ${x.bad} non-200)`,
  );
}
const drop = postgres("postgres://postgres@127.0.0.1:5432/postgres", { max: 1, onnotice: () => {} });
await drop.unsafe(`drop database if exists ${NAME} with (force)`);
await drop.end();
process.exit(0);
