import { Redis } from "ioredis";
import type { BucketLimit, LimitStore, TakeResult } from "./limit-store";
import { previousWeight, WINDOW_S, windowStart } from "./sliding-window";

// KEYS: the current-window counters of n buckets, then their previous-window counters.
// ARGV: the previous window's weight, then the n limits. Counts in all buckets or in none.
const TAKE = `
local n = #KEYS / 2
local weight = tonumber(ARGV[1])
local ok = true
local cur, prev = {}, {}
for i = 1, n do
  cur[i] = tonumber(redis.call('GET', KEYS[i]) or '0')
  prev[i] = tonumber(redis.call('GET', KEYS[n + i]) or '0')
  if prev[i] * weight + cur[i] + 1 > tonumber(ARGV[1 + i]) then ok = false end
end
if ok then
  for i = 1, n do
    cur[i] = redis.call('INCR', KEYS[i])
    redis.call('EXPIRE', KEYS[i], ${WINDOW_S * 2 + 10})
  end
end
local out = {}
for i = 1, n do
  out[#out + 1] = cur[i]
  out[#out + 1] = prev[i]
end
out[#out + 1] = ok and 1 or 0
return out
`;

type WithTake = Redis & { rlTake(...args: (string | number)[]): Promise<number[]> };

/**
 * Limit store in Redis (when `REDIS_URL` is set): one script call per request (EVALSHA through ioredis's
 * `defineCommand`, EVAL once when Redis does not have the script yet) checks and counts every bucket
 * (the key's and the tenant's) atomically in Redis. Accuracy: exact across every process on that Redis;
 * counters live two windows plus 10 s.
 * Commands fail fast while Redis is unreachable (no offline queue, 500 ms timeout), so a down store is
 * noticed at once; the client reconnects by itself.
 */
export function redisLimitStore(url: string): LimitStore {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 500,
    connectTimeout: 1000,
    retryStrategy: (times) => Math.min(times * 100, 1000),
  }) as WithTake;
  client.on("error", () => {}); // reported per request as an unreachable store
  client.defineCommand("rlTake", { lua: TAKE });
  // Until the first connection is up, wait for it briefly; afterwards an unreachable Redis fails at once.
  let everReady = false;
  client.on("ready", () => (everReady = true));
  const firstConnect = (): Promise<void> =>
    everReady || client.status === "ready"
      ? Promise.resolve()
      : new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error("redis not reachable")), 2000);
          client.once("ready", () => {
            clearTimeout(timer);
            resolve();
          });
        });
  return {
    name: "redis",
    async take(buckets: BucketLimit[], nowMs: number): Promise<TakeResult> {
      await firstConnect();
      const w = windowStart(nowMs);
      const keys = [
        ...buckets.map((b) => `rl:${b.bucket}:${w}`),
        ...buckets.map((b) => `rl:${b.bucket}:${w - WINDOW_S}`),
      ];
      const out = await client.rlTake(keys.length, ...keys, previousWeight(nowMs), ...buckets.map((b) => b.limit));
      return {
        allowed: out[out.length - 1] === 1,
        counts: buckets.map((b, i) => ({
          bucket: b.bucket,
          limit: b.limit,
          current: Number(out[2 * i]),
          previous: Number(out[2 * i + 1]),
        })),
      };
    },
    async ping() {
      await firstConnect();
      await client.ping();
    },
    async close() {
      client.disconnect();
    },
  };
}
