import type { BucketLimit, LimitStore, TakeResult } from "./limit-store";
import { previousWeight, WINDOW_S, windowStart } from "./sliding-window";

/**
 * In-process counters with the same sliding-window rule. Used as the soft limit for reads while the real
 * store is unreachable (spec "Limits"): each process then limits on its own.
 */
export function memoryLimitStore(): LimitStore {
  const counters = new Map<string, number>();
  let pruned = 0;
  return {
    name: "memory",
    async ping() {},
    async take(buckets: BucketLimit[], nowMs: number): Promise<TakeResult> {
      const w = windowStart(nowMs);
      if (w !== pruned) {
        for (const k of counters.keys()) if (Number(k.slice(k.lastIndexOf("@") + 1)) < w - WINDOW_S) counters.delete(k);
        pruned = w;
      }
      const weight = previousWeight(nowMs);
      const counts = buckets.map((b) => ({
        bucket: b.bucket,
        limit: b.limit,
        current: counters.get(`${b.bucket}@${w}`) ?? 0,
        previous: counters.get(`${b.bucket}@${w - WINDOW_S}`) ?? 0,
      }));
      const allowed = counts.every((c) => c.previous * weight + c.current + 1 <= c.limit);
      if (allowed) for (const c of counts) counters.set(`${c.bucket}@${w}`, ++c.current);
      return { allowed, counts };
    },
  };
}
