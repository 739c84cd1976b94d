import type { BucketLimit, LimitStore, TakeResult } from "./limit-store";
import { previousWeight, WINDOW_S, windowStart } from "./sliding-window";

/**
 * In-process counters with the same sliding-window rule; `take` counts all buckets or none, synchronously
 * (nothing else runs between its check and its count). Accuracy: exact for the requests of this one
 * process, lost at a restart (right after one, a key may get up to one more minute's limit), and with N
 * processes each counts alone (up to N times the limit). Used as the store of the embedded database,
 * which one process owns (see `databaseLimitStore`), and as the soft limit for reads while the real store
 * is unreachable (spec "Limits"). Windows older than the previous one are pruned as the window turns.
 */
export function memoryLimitStore(): LimitStore {
  const counters = new Map<string, number>();
  let pruned = 0;
  return {
    name: "memory",
    async ping() {},
    take: async (buckets, nowMs) => takeNow(buckets, nowMs),
    takeNow,
  };

  function takeNow(buckets: BucketLimit[], nowMs: number): TakeResult {
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
  }
}
