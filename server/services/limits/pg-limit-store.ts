import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import type { BucketLimit, LimitStore, TakeResult } from "./limit-store";
import { previousWeight, windowStart } from "./sliding-window";

/**
 * Limit store in PostgreSQL (with `DATABASE_URL` and no `REDIS_URL`): one call of the function
 * `rate_limit_take` (db/migrations/0002) per request, which locks the buckets' rows in order and counts
 * all or none. Accuracy: exact across every process on the database (the row locks serialize the takes
 * of one bucket), at the cost of one round trip and a short row lock on the tenant's bucket per request.
 * Not batched: a batch would trade that exactness (or each request's wait) for fewer round trips, and
 * Redis is the store for deployments where the round trip matters.
 */
export function pgLimitStore(getDb: () => Promise<Db>): LimitStore {
  return {
    name: "postgres",
    async take(buckets: BucketLimit[], nowMs: number): Promise<TakeResult> {
      const db = await getDb();
      const names = buckets.map((b) => b.bucket);
      const limits = buckets.map((b) => b.limit);
      const rows = (await db.execute(
        sql`select o_bucket, o_current, o_previous, o_allowed from rate_limit_take(${toArray(names)}::text[], ${toArray(limits)}::integer[], ${windowStart(nowMs)}::bigint, ${previousWeight(nowMs)}::double precision)`,
      )) as unknown as
        | { o_bucket: string; o_current: number; o_previous: number; o_allowed: boolean }[]
        | { rows: { o_bucket: string; o_current: number; o_previous: number; o_allowed: boolean }[] };
      const list = Array.isArray(rows) ? rows : rows.rows;
      return {
        allowed: list[0]?.o_allowed ?? false,
        counts: list.map((r, i) => ({
          bucket: r.o_bucket,
          limit: limits[i],
          current: Number(r.o_current),
          previous: Number(r.o_previous),
        })),
      };
    },
    async ping() {
      await (await getDb()).execute(sql`select 1`);
    },
  };
}

/** A PostgreSQL array literal (`{a,b}`), passed as one text parameter so both drivers accept it. */
function toArray(values: (string | number)[]): string {
  return `{${values.map((v) => `"${String(v).replace(/["\\]/g, "\\$&")}"`).join(",")}}`;
}
