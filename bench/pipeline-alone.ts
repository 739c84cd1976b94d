// Our pipeline alone: the public API's handlePublicRequest called in this process, 16 requests in flight,
// with no HTTP server and no Next.js, on a fresh PostgreSQL database (`pipeline_alone`, dropped at the end)
// holding a bench tenant (bench/bench-tenant.ts: 50 cards; the seed's data at scale 100: 10,000 messages). Prints the process's CPU per request for each
// path: what our pipeline, postgres.js and the Request/Response objects cost, without the framework. The
// bench's table gives the whole app's CPU per request; the difference is Next.js's (docs/benchmark.md).
// `{conversation}` in a path stands for the tenant's conversation with the most messages.
//   taskset -c 0 npx tsx bench/pipeline-alone.ts ["/me,/cards?limit=10,/cards"] [rounds]
//   taskset -c 0 npx tsx bench/pipeline-alone.ts "/me,/conversations/{conversation}/messages?limit=5,/leads?limit=25"
process.env.LOG_LEVEL = "warn";
import { AsyncLocalStorage } from "node:async_hooks";
import { count, desc, eq, sql } from "drizzle-orm";
import postgres from "postgres";
import { openDatabase } from "@/db/client";
import { messages } from "@/db/schema";
import { PEER_HEADER } from "@/server/lib/client-ip";
import { setTestEnv } from "@/server/testing/test-db";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { seedTenantData } from "@/server/services/seed/seed-data";
import { seedBenchTenant } from "./bench-tenant";

const NAME = "pipeline_alone";
const admin = postgres("postgres://postgres@127.0.0.1:5432/postgres", { max: 1, onnotice: () => {} });
await admin.unsafe(`drop database if exists ${NAME}`);
await admin.unsafe(`create database ${NAME}`);
await admin.end();
const url = `postgres://postgres@127.0.0.1:5432/${NAME}`;
setTestEnv({ DATABASE_URL: url, NODE_ENV: "production", LOG_LEVEL: "silent", PAYMENT_SANDBOX: "allow" });
const d = await openDatabase({ url, migrate: true, poolSize: 4 });
// An IP allowlist: personal-data routes refuse keys without one (spec "Personal data").
const t = await seedBenchTenant(d.db, "Pipeline alone", ["127.0.0.1", "::1"]);
await seedTenantData(d.db, t.tenantId, 100, t.integrationId);
const [conversation] = await d.db
  .select({ id: messages.conversationId, n: count() })
  .from(messages)
  .where(eq(messages.tenantId, t.tenantId))
  .groupBy(messages.conversationId)
  .orderBy(desc(count()))
  .limit(1);
// As the bench does after seeding: planner statistics, or the /leads page plans as if the table were empty.
await d.db.execute(sql`vacuum analyze`);
// Limits raised as the bench raises them with `limits:set`, so they never cap the measurement.
for (const target of [{ tenantId: t.tenantId }, { keyId: t.keyId }])
  await setLimitOverride(d.db, target, { readPerMin: 1_000_000, writePerMin: 1_000_000, paidPerMin: 1_000_000 });
await d.close();
// As the server does (server/http-server.ts): authentication reads keys through the key cache.
const { database } = await import("@/db/client");
const { startKeyCache } = await import("@/server/services/access/key-cache");
await startKeyCache(await database());
const { handlePublicRequest } = await import("@/server/public-api/pipeline");
const { publicRouter } = await import("@/server/public-api/routes");
// Next.js runs every request inside AsyncLocalStorage stores, which turns on Node's promise hooks.
const als = new AsyncLocalStorage();
// The caller's address as the HTTP server stamps it (TRUST_PROXY unset: the socket's peer).
const headers = { authorization: `Bearer ${t.key}`, [PEER_HEADER]: "127.0.0.1" };
async function run(path: string, ms: number) {
  let n = 0,
    bad = 0;
  const end = performance.now() + ms;
  const c0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: 16 }, () =>
      als.run({}, async () => {
        while (performance.now() < end) {
          const res = await handlePublicRequest(
            new Request(`http://localhost/api/public/v1${path}`, { headers }),
            publicRouter,
          );
          const body = await res.text();
          if (res.status !== 200 && bad++ === 0) console.error(path, res.status, body);
          n++;
        }
      }),
    ),
  );
  const c = process.cpuUsage(c0);
  return { path, n, bad, us: (c.user + c.system) / n };
}
const paths = (process.argv[2] ?? "/me,/cards?limit=10,/cards")
  .replaceAll("{conversation}", conversation.id)
  .split(",");
for (const p of paths) await run(p, 2000);
for (let r = 0; r < Number(process.argv[3] ?? 3); r++)
  for (const p of paths) {
    const x = await run(p, 3000);
    console.log(
      `${x.path.replace(conversation.id, "{conversation}").padEnd(20)} ${x.us.toFixed(1).padStart(7)} µs/req  ${x.n} req  ${x.bad} non-200`,
    );
  }
const drop = postgres("postgres://postgres@127.0.0.1:5432/postgres", { max: 1, onnotice: () => {} });
await drop.unsafe(`drop database if exists ${NAME} with (force)`);
await drop.end();
process.exit(0);
