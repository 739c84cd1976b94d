// The timeseries read alone (issue 74 item 5): GET /analytics/timeseries through the public API's
// handlePublicRequest in this process, 16 reads in flight, with no HTTP server and no Next.js, on a fresh
// PostgreSQL database (`timeseries_alone`, dropped at the end) holding a bench tenant with the preview
// `event-intake` and 180 days of daily rollups over 10 traffic sources (the period of 90 days and the one
// before it, as a 90-day read with its comparison reads). Prints the process's CPU a read and the reads a
// second of each round: what our pipeline and the analytics read cost without the framework.
//   taskset -c 0 npx tsx bench/timeseries-alone.ts [rounds] [seconds]
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
import { timeseriesPath } from "./intake";

const NAME = "timeseries_alone";
const admin = postgres("postgres://postgres@127.0.0.1:5432/postgres", { max: 1, onnotice: () => {} });
await admin.unsafe(`drop database if exists ${NAME} with (force)`);
await admin.unsafe(`create database ${NAME}`);
await admin.end();
const url = `postgres://postgres@127.0.0.1:5432/${NAME}`;
setTestEnv({ DATABASE_URL: url, NODE_ENV: "production", LOG_LEVEL: "silent", PAYMENT_SANDBOX: "allow" });
const d = await openDatabase({ url, migrate: true, poolSize: 4 });
const t = await seedBenchTenant(d.db, "Timeseries alone", ["127.0.0.1", "::1"]);
await setPreview(d.db, t.tenantId, "event-intake", true);
for (const target of [{ tenantId: t.tenantId }, { keyId: t.keyId }])
  await setLimitOverride(d.db, target, { readPerMin: 1_000_000, writePerMin: 1_000_000 });
await d.db.execute(sql`
  insert into analytics_daily (tenant_id, livemode, day, source, kind, pageviews, sessions, visitors, leads, deals_won, revenue_minor, events)
  select ${t.tenantId}::uuid, true, (current_date - g.day), 'source' || s.n, case when s.n < 2 then 'ai_assistant' else 'search' end,
         300, 100, 80, 3, 1, 150000, 400
  from generate_series(1, 181) as g(day), generate_series(0, 9) as s(n)`);
await d.db.execute(sql`insert into intake_rollup_state (id, xid_watermark) values (1, '1') on conflict do nothing`);
await d.db.execute(sql`vacuum analyze`);
await d.close();
const { database } = await import("@/db/client");
const { startKeyCache } = await import("@/server/services/access/key-cache");
await startKeyCache(await database());
const { handlePublicRequest } = await import("@/server/public-api/pipeline");
const { publicRouter } = await import("@/server/public-api/routes");
// Next.js runs every request inside AsyncLocalStorage stores, which turns on Node's promise hooks.
const als = new AsyncLocalStorage();
const headers = { authorization: `Bearer ${t.key}`, [PEER_HEADER]: "127.0.0.1" };
const address = `http://localhost/api/public/v1${timeseriesPath(Date.now())}`;

/** One round of `ms`, 16 reads in flight. */
async function run(ms: number) {
  let n = 0,
    bad = 0;
  const end = performance.now() + ms;
  const started = performance.now();
  const c0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: 16 }, () =>
      als.run({}, async () => {
        while (performance.now() < end) {
          const res = await handlePublicRequest(new Request(address, { headers }), publicRouter);
          const text = await res.text();
          n++;
          if (res.status !== 200 && bad++ === 0) console.error(res.status, text);
        }
      }),
    ),
  );
  const c = process.cpuUsage(c0);
  return { n, bad, msPerRead: (c.user + c.system) / 1000 / n, perSecond: n / ((performance.now() - started) / 1000) };
}

await run(4000);
for (let r = 1; r <= Number(process.argv[2] ?? 3); r++) {
  const x = await run(Number(process.argv[3] ?? 5) * 1000);
  console.log(
    `round ${r}: ${x.msPerRead.toFixed(3)} ms of CPU a read, ${Math.round(x.perSecond)} reads/s, ${x.n} reads (${x.bad} non-200)`,
  );
}
const drop = postgres("postgres://postgres@127.0.0.1:5432/postgres", { max: 1, onnotice: () => {} });
await drop.unsafe(`drop database if exists ${NAME} with (force)`);
await drop.end();
process.exit(0);
