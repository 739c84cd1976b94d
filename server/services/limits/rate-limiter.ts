import { database } from "@/db/client";
import { env } from "@/server/env";
import { ApiError } from "@/server/errors";
import { nowMs } from "@/server/lib/clock";
import { log } from "@/server/log";
import type { BucketLimit, LimitStore, TakeResult } from "./limit-store";
import { memoryLimitStore } from "./memory-limit-store";
import { databaseLimitStore } from "./database-limit-store";
import type { RateLimits } from "./rate-limits";
import { redisLimitStore } from "./redis-limit-store";
import { previousWeight, remaining, resetSeconds, retryAfterSeconds } from "./sliding-window";

/** Rate classes of the spec's "Limits": reads, writes, paid operations. */
export type RateClass = "read" | "write" | "paid";

const KEY = Symbol.for("platform.limitStore");
const SOFT = Symbol.for("platform.softLimitStore");
const ADDRESS = Symbol.for("platform.addressLimitStore");
type Holder = { [KEY]?: LimitStore; [SOFT]?: LimitStore; [ADDRESS]?: LimitStore };

/**
 * The limit store of this process (docs/operations.md "Rate limits: accuracy of each store"):
 * - `REDIS_URL` set: Redis, one script call per request for both buckets, exact across processes;
 * - embedded database (PGlite, no `DATABASE_URL`): counters in this process, exact, no round trip
 *   (the process owns the database, so no other process serves its keys; a restart forgets the minute);
 * - PostgreSQL: concurrent takes batched into one `rate_limit_take_many` call, a busy key's reserved ahead
 *   in leases; never more than the limit across processes (early refusals bounded by other processes' leases).
 */
export function limitStore(): LimitStore {
  const g = globalThis as Holder;
  return (g[KEY] ??= env().redisUrl ? redisLimitStore(env().redisUrl!) : databaseLimitStore(database));
}

/** Replaces the limit store (tests); `undefined` goes back to the configured one. */
export function setLimitStore(store: LimitStore | undefined): void {
  (globalThis as Holder)[KEY] = store;
  (globalThis as Holder)[SOFT] = undefined;
}

function softStore(): LimitStore {
  return ((globalThis as Holder)[SOFT] ??= memoryLimitStore());
}

/** Seconds a client should wait when the limit store is down. */
const STORE_DOWN_RETRY_S = 5;

const PER_MIN: Record<RateClass, keyof RateLimits> = {
  read: "read_per_min",
  write: "write_per_min",
  paid: "paid_per_min",
};

/** Who is counted: a key and its tenant, with the limits of each bucket (per minute). */
export interface RateSubject {
  keyId: string;
  tenantId: string;
  limits: RateLimits;
  tenantLimits: RateLimits;
}

/** The room left in the tightest bucket, for the `RateLimit-*` headers. `resetSeconds` in seconds. */
export interface RateRoom {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/**
 * Counts one request against its key's and its tenant's sliding windows of its class (spec "Limits")
 * and answers the room left in whichever of the two buckets has less.
 * When the store cannot be reached: reads go on under a soft in-process limit, writes and paid
 * operations fail closed.
 * @returns the room, without a promise when the store answered at once (`LimitStore.takeNow`)
 * @throws ApiError 429 `rate_limited` with `Retry-After` and the `RateLimit-*` headers (synchronously when
 *   the store answered at once); 503 `service_unavailable` with `Retry-After`.
 */
export function takeRateLimit(subject: RateSubject, rateClass: RateClass): RateRoom | Promise<RateRoom> {
  const now = nowMs();
  const buckets = bucketsOf(subject, rateClass);
  // Answered without a promise when the store can (in-process counters, a take reserved ahead).
  const known = limitStore().takeNow?.(buckets, now);
  if (known) return roomOf(known, rateClass, now);
  return takeFromStore(buckets, rateClass, now);
}

/** The key's and the tenant's bucket of `rateClass`, with their limits per minute. */
function bucketsOf(subject: RateSubject, rateClass: RateClass): BucketLimit[] {
  const field = PER_MIN[rateClass];
  return [
    { bucket: `key:${subject.keyId}:${rateClass}`, limit: subject.limits[field] },
    { bucket: `tenant:${subject.tenantId}:${rateClass}`, limit: subject.tenantLimits[field] },
  ];
}

/** {@link takeRateLimit} through the store's round trip, with the store-down rules. */
async function takeFromStore(buckets: BucketLimit[], rateClass: RateClass, now: number): Promise<RateRoom> {
  let result;
  try {
    result = await limitStore().take(buckets, now);
  } catch (err) {
    log().warn({ store: limitStore().name, err: (err as Error).message }, "limit store unreachable");
    if (rateClass !== "read") {
      throw new ApiError(
        "service_unavailable",
        "Rate limits cannot be checked right now, so writes are refused; retry after a pause with the same Idempotency-Key.",
        {},
        { "retry-after": String(STORE_DOWN_RETRY_S) },
      );
    }
    result = await softStore().take(buckets, now);
  }
  return roomOf(result, rateClass, now);
}

/**
 * The room a take left in the tightest of its buckets.
 * @throws ApiError 429 `rate_limited` when the take was refused
 */
function roomOf(result: TakeResult, rateClass: RateClass, now: number): RateRoom {
  let tightest = result.counts[0];
  for (const c of result.counts) if (remaining(c, now) < remaining(tightest, now)) tightest = c;
  const room: RateRoom = {
    limit: tightest.limit,
    remaining: remaining(tightest, now),
    resetSeconds: resetSeconds(now),
  };
  if (!result.allowed) {
    const weight = previousWeight(now);
    const full = result.counts.filter((c) => c.previous * weight + c.current + 1 > c.limit);
    const wait = Math.max(1, ...full.map((c) => retryAfterSeconds(c, now)));
    const which = full.some((c) => c.bucket.startsWith("tenant:")) ? "the tenant" : "this key";
    throw new ApiError(
      "rate_limited",
      `Too many ${rateClass} requests for ${which} (${tightest.limit} per minute); retry after ${wait} s.`,
      {},
      { "retry-after": String(wait), ...rateLimitHeaders(room) },
    );
  }
  return room;
}

/** The IETF RateLimit fields of the spec's "Common request rules" (`RateLimit-Reset` in seconds). */
export function rateLimitHeaders(room: RateRoom): Record<string, string> {
  return {
    "ratelimit-limit": String(room.limit),
    "ratelimit-remaining": String(room.remaining),
    "ratelimit-reset": String(room.resetSeconds),
  };
}

/**
 * Requests answered before a key was accepted (an unknown path, a 405, a 401 or 403 of authentication)
 * allowed per client address per sliding minute. They have no key or tenant to count against, so they
 * count against their address; the spec sends `RateLimit-*` on every answer (docs/interpretations.md).
 */
export const ADDRESS_LIMIT_PER_MIN = 600;

/**
 * Counts one request that failed before its key was accepted against its address's window, in this
 * process (no store round trip for traffic that proves nothing; with N processes an address gets up to N
 * times the limit). `addressBucket` is the client address as bucketed by `addressKey`, or `unknown`.
 * @returns the room left, for the `RateLimit-*` headers
 * @throws ApiError 429 `rate_limited` with `Retry-After` and the `RateLimit-*` headers
 */
export async function takeAddressLimit(addressBucket: string): Promise<RateRoom> {
  const now = nowMs();
  const store = ((globalThis as Holder)[ADDRESS] ??= memoryLimitStore());
  const result = await store.take([{ bucket: `address:${addressBucket}`, limit: ADDRESS_LIMIT_PER_MIN }], now);
  const count = result.counts[0];
  const room: RateRoom = { limit: count.limit, remaining: remaining(count, now), resetSeconds: resetSeconds(now) };
  if (!result.allowed) {
    const wait = Math.max(1, retryAfterSeconds(count, now));
    throw new ApiError(
      "rate_limited",
      `Too many requests without an accepted key from this address (${count.limit} per minute); retry after ${wait} s.`,
      {},
      { "retry-after": String(wait), ...rateLimitHeaders(room) },
    );
  }
  return room;
}
