import { sql } from "drizzle-orm";
import { getDb } from "@/db/client";
import { limitStore } from "@/server/services/limits/rate-limiter";

/** What `GET /api/ready` reports: each dependency `ok` or `unavailable`. */
export interface Readiness {
  ready: boolean;
  checks: { database: "ok" | "unavailable"; limit_store: "ok" | "unavailable" };
}

/** How long a dependency may take to answer the probe, ms. */
const PROBE_TIMEOUT_MS = 2000;

function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error("probe timed out")), ms)),
  );
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

async function probe(check: () => Promise<unknown>): Promise<"ok" | "unavailable"> {
  try {
    await within(check(), PROBE_TIMEOUT_MS);
    return "ok";
  } catch {
    return "unavailable";
  }
}

/**
 * Readiness for load balancers (issue "Benchmark", next to liveness `GET /api/health`): the database
 * answers `select 1` and the rate-limit store answers a ping, each within 2 s. Never throws.
 */
export async function checkReadiness(): Promise<Readiness> {
  const [database, limit_store] = await Promise.all([
    probe(async () => (await getDb()).execute(sql`select 1`)),
    probe(() => limitStore().ping()),
  ]);
  return { ready: database === "ok" && limit_store === "ok", checks: { database, limit_store } };
}
