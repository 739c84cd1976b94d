// A second process counting in the shared limit store, for the cross-process test:
// `tsx server/testing/limit-worker.ts <postgres|redis> <url> <bucket> <limit> <n> <nowMs>` prints how
// many of its n takes were allowed.
import { openDatabase } from "@/db/client";
import { pgLimitStore } from "@/server/services/limits/pg-limit-store";
import { redisLimitStore } from "@/server/services/limits/redis-limit-store";

const [kind, url, bucket, limit, n, now] = process.argv.slice(2);
const d = kind === "postgres" ? await openDatabase({ url, poolSize: 4 }) : null;
const store = d ? pgLimitStore(async () => d.db) : redisLimitStore(url);
const results = await Promise.all(
  Array.from({ length: Number(n) }, () => store.take([{ bucket, limit: Number(limit) }], Number(now))),
);
console.log(results.filter((r) => r.allowed).length);
await store.close?.();
await d?.close();
