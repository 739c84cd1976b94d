import type { BucketLimit, LimitStore, TakeResult } from "./limit-store";
import { windowStart } from "./sliding-window";

/** Most requests one lease reserves ahead. */
export const MAX_LEASE = 256;
/** A lease reserves at most this share of the smaller bucket's limit per minute (1 %). */
export const LEASE_SHARE_OF_LIMIT = 0.01;
/** A lease used up sooner than this after its grant doubles the next one, ms. */
export const GROW_WITHIN_MS = 100;
/** A lease asked for this long after the previous grant starts again at one request, ms. */
export const RESET_AFTER_MS = 1000;
/**
 * A busy lease (more than one take) reserves its next takes once this share of its size is left, so that
 * its requests do not wait for the refill: under load a waiting request waited for the store's round trip
 * and one or two turns of the event loop (about a tenth of `GET /me`'s requests waited 6-26 ms; issue 22).
 */
export const PREFETCH_AT = 0.25;

/** What one lease of a pair of buckets holds: its window and the results of the takes not yet used. */
interface Lease {
  buckets: BucketLimit[];
  window: number;
  /** The inner store's results for the reserved takes, in the order they were counted; used from `next`. */
  results: TakeResult[];
  next: number;
  /** Requests the next refill reserves (1 to the cap), and when the last refill was granted, ms. */
  size: number;
  grantedAt: number;
  /** Requests waiting for the refill in flight, in arrival order. */
  waiters: Waiter[];
  inFlight: boolean;
}

interface Waiter {
  nowMs: number;
  resolve(r: TakeResult): void;
  reject(err: unknown): void;
}

/**
 * A limit store that takes requests from `inner` ahead, in leases, so a busy key's requests in this process
 * are counted without a store round trip each (issue 22: in the pipeline alone the batched PostgreSQL take
 * cost a request about 40 µs; in the app, a cards page's CPU fell by a fifth against health's, and
 * PostgreSQL's CPU under `GET /me` from 7-8 % of a core to 3 %; bench/HISTORY.md, tenth session).
 *
 * How: the takes of one set of buckets (a key's and its tenant's) are reserved from `inner` n at a time, as n
 * ordinary takes in one batch, so `inner` counts them exactly as n requests; the reserved results are handed
 * to this process's next requests in order, each answering the counts its own take would have (the
 * `RateLimit-Remaining` a client sees still falls by one a request). n starts at 1 (a take per request,
 * as without the lease), doubles while leases run out within {@link GROW_WITHIN_MS}, and falls back to 1
 * after {@link RESET_AFTER_MS} without a refill and on any refusal; it never exceeds {@link MAX_LEASE} nor
 * {@link LEASE_SHARE_OF_LIMIT} of the smaller bucket's limit (so a bucket under 200 a minute is always taken
 * one request at a time). A lease of more than one take reserves the next one when {@link PREFETCH_AT} of it
 * is left, so a busy key's requests do not wait for a refill. Takes reserved but unused when their window
 * ends stay counted in it.
 *
 * Accuracy (docs/operations.md "Rate limits: accuracy of each store"): never more requests than the limit, across every
 * process of the inner store. A request may be refused early, while other processes hold reserved takes
 * they have not used: at most a lease and a quarter per process, 1.25 % of the limit. A refused take is
 * never reserved: requests beyond the limit each ask `inner` again. Limits are part of the lease's identity,
 * so a changed limit applies to the next request. When `inner` throws, every request waiting on that refill
 * gets the error (the rate limiter then applies its store-down rules); reserved takes already granted are
 * still used. A failed prefetch fails no request: those that came while it was in flight ask again.
 */
export function leasedLimitStore(inner: LimitStore): LimitStore {
  const leases = new Map<string, Lease>();
  let pruned = 0;

  /**
   * Reserves the lease's next takes: for the requests waiting on it, or ahead of them (`prefetchMs`, the
   * time of the take that found the lease running low) while its reserved takes still answer requests.
   */
  function refill(lease: Lease, prefetchMs?: number): void {
    const waiting = lease.waiters.length;
    const n = Math.max(waiting, lease.size);
    const nowMs = prefetchMs ?? Math.max(...lease.waiters.map((w) => w.nowMs));
    const window = windowStart(nowMs);
    const buckets = lease.buckets;
    lease.inFlight = true;
    // Submitted in one turn, the n takes go to the inner store together (one batch on PostgreSQL).
    Promise.all(Array.from({ length: n }, () => inner.take(buckets, nowMs))).then(
      (results) => {
        lease.inFlight = false;
        lease.grantedAt = performance.now();
        const granted = results.filter((r) => r.allowed);
        const refused = results.find((r) => !r.allowed);
        // Over the limit, each further request asks the store alone: reserving ahead would only add refusals.
        if (refused) {
          lease.size = 1;
          lease.grantedAt = -Infinity;
        }
        const waiters = lease.waiters.splice(0, waiting);
        waiters.forEach((w, i) => w.resolve(granted[i] ?? refused!));
        // Only allowed takes are kept: a refused request is counted nowhere, so it is not reserved either.
        // A prefetch's takes were counted after the ones still held, so they are handed out after them. A
        // refill for waiters replaces what is left: its waiters queued behind a request of another window
        // and were answered from the new takes, so older ones handed out later would count backwards (they
        // stay counted, as unused takes do). A lease of an earlier window holds nothing this one can use.
        const fresh = granted.slice(waiters.length);
        lease.results =
          prefetchMs !== undefined && lease.window === window ? lease.results.slice(lease.next).concat(fresh) : fresh;
        lease.window = window;
        lease.next = 0;
        if (lease.waiters.length) serve(lease);
      },
      (err: unknown) => {
        lease.inFlight = false;
        for (const w of lease.waiters.splice(0, waiting)) w.reject(err);
        if (lease.waiters.length) serve(lease);
      },
    );
  }

  /** Hands reserved takes to waiters in order, then refills for the rest. */
  function serve(lease: Lease): void {
    while (
      lease.waiters.length &&
      lease.next < lease.results.length &&
      lease.window === windowStart(lease.waiters[0].nowMs)
    )
      lease.waiters.shift()!.resolve(lease.results[lease.next++]);
    if (!lease.waiters.length || lease.inFlight) return;
    resize(lease);
    refill(lease);
  }

  /**
   * Sizes a lease for its next refill: back to 1 take after a pause of {@link RESET_AFTER_MS} since the last
   * grant, doubled (up to its cap) when that grant ran out within {@link GROW_WITHIN_MS}.
   * @returns whether the lease had paused
   */
  function resize(lease: Lease): boolean {
    const sinceMs = performance.now() - lease.grantedAt;
    if (sinceMs > RESET_AFTER_MS) lease.size = 1;
    else if (sinceMs < GROW_WITHIN_MS) lease.size = Math.min(capOf(lease.buckets), lease.size * 2);
    return sinceMs > RESET_AFTER_MS;
  }

  /**
   * Reserves a busy lease's next takes before it runs out, so its requests keep answering without a wait;
   * sized as {@link serve} sizes a refill ({@link resize}). After a pause it reserves nothing ahead: the lease
   * runs out and starts again at 1.
   */
  function prefetch(lease: Lease, nowMs: number): void {
    if (!resize(lease)) refill(lease, nowMs);
  }

  return {
    name: inner.name,
    ping: () => inner.ping(),
    close: inner.close && (() => inner.close!()),
    take(buckets: BucketLimit[], nowMs: number): Promise<TakeResult> {
      const lease = leaseOf(buckets, nowMs);
      const result = reserved(lease, nowMs);
      if (result) return Promise.resolve(result);
      return new Promise<TakeResult>((resolve, reject) => {
        lease.waiters.push({ nowMs, resolve, reject });
        serve(lease);
      });
    },
    takeNow(buckets: BucketLimit[], nowMs: number): TakeResult | undefined {
      return reserved(leaseOf(buckets, nowMs), nowMs);
    },
  };

  /** The lease of `buckets` (made empty when there is none), after pruning leases of past windows. */
  function leaseOf(buckets: BucketLimit[], nowMs: number): Lease {
    const w = windowStart(nowMs);
    if (w !== pruned) {
      for (const [k, l] of leases) if (l.window < w && !l.inFlight && !l.waiters.length) leases.delete(k);
      pruned = w;
    }
    const id = buckets.map((b) => `${b.bucket}\u0000${b.limit}`).join("\u0001");
    let lease = leases.get(id);
    if (!lease) {
      lease = {
        buckets,
        window: w,
        results: [],
        next: 0,
        size: 1,
        grantedAt: -Infinity,
        waiters: [],
        inFlight: false,
      };
      leases.set(id, lease);
    }
    return lease;
  }

  /**
   * The common case under load: a reserved take of this window, answered without waiting on anything (and
   * the next takes reserved when few are left); undefined when the request must wait for a refill.
   */
  function reserved(lease: Lease, nowMs: number): TakeResult | undefined {
    if (lease.waiters.length || lease.window !== windowStart(nowMs) || lease.next >= lease.results.length) return;
    const result = lease.results[lease.next++];
    if (lease.size > 1 && !lease.inFlight && lease.results.length - lease.next <= lease.size * PREFETCH_AT)
      prefetch(lease, nowMs);
    return result;
  }
}

/** The most one lease may reserve for these buckets: {@link MAX_LEASE}, and 1 % of the smaller limit. */
function capOf(buckets: BucketLimit[]): number {
  const smallest = Math.min(...buckets.map((b) => b.limit));
  return Math.max(1, Math.min(MAX_LEASE, Math.floor(smallest * LEASE_SHARE_OF_LIMIT)));
}
