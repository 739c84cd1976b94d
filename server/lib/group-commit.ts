/**
 * Group commit: callers submit one item each and wait for its result; items submitted while a write is
 * in flight (or within `windowMs` of the first) are written together by one `write` call. Under load
 * this turns N round trips into one; at rest an item waits at most `windowMs` (0: until the current
 * turn of the event loop ends, so items submitted in the same turn still share a write).
 * Used by the disclosure journal (one multi-row insert) and the PostgreSQL rate-limit store (one
 * `rate_limit_take_many` call).
 */
export interface GroupCommit<T, R> {
  /**
   * Queues `item` for the next write and resolves with its result once that write has ended.
   * @throws what the batch's `write` threw: every item of a failed batch rejects with it.
   */
  submit(item: T): Promise<R>;
}

/** How a {@link GroupCommit} writes. */
export interface GroupCommitOptions<T, R> {
  /** ms the first item of an idle batch waits for others (0: the end of the event loop's turn). */
  windowMs: number;
  /** Most items one write takes; the rest wait for the next write. */
  maxBatch: number;
  /**
   * Writes one batch, in submission order, and returns one result per item (same order), or nothing
   * when the items have no result (`R` is void). Throwing fails the whole batch.
   */
  write(items: readonly T[]): Promise<readonly R[] | void>;
}

interface Waiting<T, R> {
  item: T;
  resolve(result: R): void;
  reject(err: unknown): void;
}

/** A group commit over `write`; one write is in flight at a time (see {@link GroupCommit}). */
export function groupCommit<T, R>(opts: GroupCommitOptions<T, R>): GroupCommit<T, R> {
  const queue: Waiting<T, R>[] = [];
  let scheduled = false;
  let writing = false;

  const flush = async () => {
    scheduled = false;
    writing = true;
    try {
      while (queue.length > 0) {
        const batch = queue.splice(0, opts.maxBatch);
        try {
          const results = await opts.write(batch.map((w) => w.item));
          batch.forEach((w, i) => w.resolve((results ? results[i] : undefined) as R));
        } catch (err) {
          for (const w of batch) w.reject(err);
        }
      }
    } finally {
      writing = false;
    }
  };

  return {
    submit(item) {
      return new Promise<R>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        // While a write is in flight the item waits for it to end (then `flush` goes on with the queue).
        if (writing || scheduled) return;
        scheduled = true;
        if (opts.windowMs > 0) setTimeout(() => void flush(), opts.windowMs);
        else setImmediate(() => void flush());
      });
    },
  };
}
