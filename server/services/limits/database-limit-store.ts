import type { Database } from "@/db/client";
import type { BucketLimit, LimitStore, TakeResult } from "./limit-store";
import { memoryLimitStore } from "./memory-limit-store";
import { leasedLimitStore } from "./leased-limit-store";
import { pgLimitStore } from "./pg-limit-store";

/**
 * The limit store without `REDIS_URL`: it follows the process's database.
 * - Embedded (PGlite): counters in this process's memory ({@link memoryLimitStore}), exact, no database
 *   round trip. PGlite allows one opener, so this process is the only one serving the key's requests and
 *   its counts are the whole truth. They are not kept across a restart: a restart forgets the sliding
 *   minute, so right after it a key may be let through up to one more minute's limit.
 * - PostgreSQL: takes batched into `rate_limit_take_many` calls ({@link pgLimitStore}), a busy key's
 *   reserved ahead in leases ({@link leasedLimitStore}): never more than the limit across every process on
 *   that database, and a request refused early by at most the takes other processes reserved and did not use.
 * The database is looked up on the first take (`database` resolves to the process-wide one).
 */
export function databaseLimitStore(database: () => Promise<Database>): LimitStore {
  const memory = memoryLimitStore();
  const pg = leasedLimitStore(pgLimitStore(async () => (await database()).db));
  let chosen: LimitStore | undefined;
  const pick = async (): Promise<LimitStore> => (chosen ??= (await database()).kind === "pglite" ? memory : pg);
  return {
    get name() {
      return chosen?.name === "memory" ? "embedded (in-process)" : "postgres";
    },
    async take(buckets: BucketLimit[], nowMs: number): Promise<TakeResult> {
      return (chosen ?? (await pick())).take(buckets, nowMs);
    },
    takeNow(buckets: BucketLimit[], nowMs: number): TakeResult | undefined {
      return chosen?.takeNow?.(buckets, nowMs);
    },
    async ping() {
      await (await pick()).ping();
    },
  };
}
