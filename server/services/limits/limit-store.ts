import type { BucketCount } from "./sliding-window";

/** A bucket to count a request in and its limit per minute. */
export interface BucketLimit {
  bucket: string;
  limit: number;
}

/** What a take answers: every bucket's counts, and whether the request was counted in all of them. */
export interface TakeResult {
  allowed: boolean;
  counts: BucketCount[];
}

/**
 * Where rate counters live. `take` checks every bucket and counts the request in all of them or in none,
 * atomically: across processes for the shared stores (Redis, PostgreSQL), within the process for the
 * in-process one (docs/operations.md "Rate limits: accuracy of each store"). It throws when the store cannot be reached (the caller then fails
 * closed for writes and falls back to the soft in-process limit for reads).
 */
export interface LimitStore {
  readonly name: string;
  take(buckets: BucketLimit[], nowMs: number): Promise<TakeResult>;
  /**
   * The same take answered without a promise when the store can (in-process counters, a take reserved
   * ahead); undefined when it must ask elsewhere, and then nothing was counted and the caller calls
   * {@link take}. Optional: a store without it is always asked through `take`.
   */
  takeNow?(buckets: BucketLimit[], nowMs: number): TakeResult | undefined;
  /** Resolves when the store answers (readiness probe); throws when it cannot be reached. */
  ping(): Promise<void>;
  close?(): Promise<void>;
}
