// What the "alone" benches (bench/pipeline-alone.ts, intake-alone.ts, timeseries-alone.ts) share: a fresh
// PostgreSQL database with a bench tenant whose limits never cap the measurement, then our public API's
// pipeline loaded in this process the way the server loads it, and 16 requests kept in flight inside
// AsyncLocalStorage stores, as Next.js runs them (which turns on Node's promise hooks).
import { AsyncLocalStorage } from "node:async_hooks";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { openDatabase, type Db } from "@/db/client";
import { PEER_HEADER } from "@/server/lib/client-ip";
import type { PreviewFeature } from "@/server/schemas/previews";
import { setLimitOverride } from "@/server/services/limits/limit-overrides";
import { setPreview } from "@/server/services/tenants/previews";
import { setTestEnv } from "@/server/testing/test-db";
import { seedBenchTenant, type BenchTenant } from "./bench-tenant";

const ADMIN_URL = "postgres://postgres@127.0.0.1:5432/postgres";
// One storage for every round: Node 20 propagates each enabled storage to every new async resource, so a
// storage a round would make each later round dearer.
const als = new AsyncLocalStorage();

/** What {@link setUpAlone} made: the tenant, what `seed` returned, and the pipeline to call. */
export interface AloneBench<T> {
  tenant: BenchTenant;
  seeded: T;
  /** The headers of the tenant's key from 127.0.0.1 (as the HTTP server stamps the peer), plus `extra`. */
  headers(extra?: Record<string, string>): Record<string, string>;
  /** The public API's pipeline (server/public-api/pipeline.ts) on `request`; the answer's status and body text. */
  call(request: Request): Promise<{ status: number; text: string }>;
  /** Drops the database and exits the process. */
  finish(): Promise<never>;
}

/**
 * Creates database `name` (dropped first if left by an earlier run), migrates it, seeds a bench tenant
 * (bench/bench-tenant.ts, IP allowlist 127.0.0.1 and ::1) with read, write and paid limits of 1,000,000 a
 * minute and the `previews`, runs `seed`, analyzes, and loads the pipeline with the key cache started (as
 * server/http-server.ts does).
 * @param seed more data for the tenant, on the migrated database (its result is `seeded`)
 */
export async function setUpAlone<T = void>(
  name: string,
  opts: { previews?: PreviewFeature[]; seed?: (db: Db, t: BenchTenant) => Promise<T> } = {},
): Promise<AloneBench<T>> {
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = `postgres://postgres@127.0.0.1:5432/${name}`;
  setTestEnv({ DATABASE_URL: url, NODE_ENV: "production", LOG_LEVEL: "silent", PAYMENT_SANDBOX: "allow" });
  const d = await openDatabase({ url, migrate: true, poolSize: 4 });
  // An IP allowlist: personal-data routes refuse keys without one (spec "Personal data").
  const tenant = await seedBenchTenant(d.db, name, ["127.0.0.1", "::1"]);
  for (const feature of opts.previews ?? []) await setPreview(d.db, tenant.tenantId, feature, true);
  // Limits raised as the bench raises them with `limits:set`, so they never cap the measurement.
  for (const target of [{ tenantId: tenant.tenantId }, { keyId: tenant.keyId }])
    await setLimitOverride(d.db, target, { readPerMin: 1_000_000, writePerMin: 1_000_000, paidPerMin: 1_000_000 });
  const seeded = (opts.seed ? await opts.seed(d.db, tenant) : undefined) as T;
  // Planner statistics, as the bench takes them after seeding (or the pages plan as if tables were empty).
  await d.db.execute(sql`vacuum analyze`);
  await d.close();
  const { database } = await import("@/db/client");
  const { startKeyCache } = await import("@/server/services/access/key-cache");
  await startKeyCache(await database());
  const { handlePublicRequest } = await import("@/server/public-api/pipeline");
  const { publicRouter } = await import("@/server/public-api/routes");
  return {
    tenant,
    seeded,
    headers: (extra = {}) => ({ authorization: `Bearer ${tenant.key}`, [PEER_HEADER]: "127.0.0.1", ...extra }),
    async call(request) {
      const res = await handlePublicRequest(request, publicRouter);
      return { status: res.status, text: await res.text() };
    },
    async finish() {
      const drop = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
      await drop.unsafe(`drop database if exists ${name} with (force)`);
      await drop.end();
      process.exit(0);
    },
  };
}

/**
 * Keeps 16 calls of `once` in flight for `ms`, each inside its own AsyncLocalStorage store (as Next.js
 * runs a request), and measures this process's CPU.
 * @param once one request; `i` is its number in the round, from 1
 * @returns the calls made, their CPU in ms each, and the wall time in s
 */
export async function keepSixteenInFlight(
  ms: number,
  once: (i: number) => Promise<void>,
): Promise<{ n: number; cpuMsEach: number; seconds: number }> {
  let n = 0;
  const started = performance.now();
  const end = started + ms;
  const c0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: 16 }, () =>
      als.run({}, async () => {
        while (performance.now() < end) await once(++n);
      }),
    ),
  );
  const c = process.cpuUsage(c0);
  return { n, cpuMsEach: (c.user + c.system) / 1000 / n, seconds: (performance.now() - started) / 1000 };
}
