import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { executePrepared } from "@/db/prepared";
import { groupCommit } from "@/server/lib/group-commit";
import type { BucketLimit, LimitStore, TakeResult } from "./limit-store";
import { previousWeight, windowStart } from "./sliding-window";

/** Most requests one `rate_limit_take_many` call counts (its arrays hold two entries a request). */
const MAX_BATCH = 256;

interface Take {
  buckets: BucketLimit[];
  nowMs: number;
}

interface Row {
  o_request: number;
  o_bucket: string;
  o_current: number;
  o_previous: number;
  o_allowed: boolean;
}

/**
 * Limit store in PostgreSQL (with `DATABASE_URL` and no `REDIS_URL`), batched: the takes of concurrent
 * requests in this process go to the database together, as one call of `rate_limit_take_many`
 * (db/migrations/0014) while the previous call is in flight (group commit, server/lib/group-commit.ts;
 * an idle process sends a take at the end of the event loop's turn, without waiting).
 * Accuracy: exact across every process on the database. The function locks the batch's bucket rows in
 * order and counts each request in all of its buckets or in none, in arrival order, so a batch decides
 * exactly as the same requests one by one would; a batch only saves round trips. A batch holds the
 * takes of one window (a take from the next window waits for the next call).
 * A failed call fails every take in it (the rate limiter then applies its store-down rules).
 */
export function pgLimitStore(getDb: () => Promise<Db>): LimitStore {
  const batches = groupCommit<Take, TakeResult>({
    windowMs: 0,
    maxBatch: MAX_BATCH,
    async write(takes) {
      const db = await getDb();
      const results: TakeResult[] = [];
      // Normally one group; two only when the batch straddles a window boundary.
      for (const group of byWindow(takes)) results.push(...(await takeMany(db, group)));
      return results;
    },
  });
  return {
    name: "postgres",
    take: (buckets, nowMs) => batches.submit({ buckets, nowMs }),
    async ping() {
      await (await getDb()).execute(sql`select 1`);
    },
  };
}

/** Splits consecutive takes by window, keeping their order. */
function byWindow(takes: readonly Take[]): Take[][] {
  const groups: Take[][] = [];
  let last = NaN;
  for (const t of takes) {
    const w = windowStart(t.nowMs);
    if (w !== last) groups.push([]);
    groups[groups.length - 1].push(t);
    last = w;
  }
  return groups;
}

/** One `rate_limit_take_many` call for takes of one window, at the latest take's time. */
async function takeMany(db: Db, takes: readonly Take[]): Promise<TakeResult[]> {
  const requests: number[] = [];
  const names: string[] = [];
  const limits: number[] = [];
  takes.forEach((t, i) => {
    for (const b of t.buckets) {
      requests.push(i);
      names.push(b.bucket);
      limits.push(b.limit);
    }
  });
  const at = Math.max(...takes.map((t) => t.nowMs));
  const rows = await executePrepared<Row>(
    db,
    "rate_limit_take_many",
    sql`select o_request, o_bucket, o_current, o_previous, o_allowed from rate_limit_take_many(${toArray(requests)}::integer[], ${toArray(names)}::text[], ${toArray(limits)}::integer[], ${windowStart(at)}::bigint, ${previousWeight(at)}::double precision)`,
  );
  const results: TakeResult[] = takes.map(() => ({ allowed: false, counts: [] }));
  rows.forEach((r, k) => {
    const result = results[Number(r.o_request)];
    result.allowed = r.o_allowed;
    result.counts.push({
      bucket: r.o_bucket,
      limit: limits[k],
      current: Number(r.o_current),
      previous: Number(r.o_previous),
    });
  });
  return results;
}

/** A PostgreSQL array literal (`{a,b}`), passed as one text parameter so both drivers accept it. */
function toArray(values: (string | number)[]): string {
  return `{${values.map((v) => `"${String(v).replace(/["\\]/g, "\\$&")}"`).join(",")}}`;
}
