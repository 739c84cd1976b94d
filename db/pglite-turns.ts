import type { PGlite } from "@electric-sql/pglite";

/**
 * Makes each query and transaction of `pglite` start on a later turn of the event loop (`setImmediate`)
 * instead of in the microtask that asked for it. Returns the same instance.
 *
 * Why: PGlite runs PostgreSQL synchronously on the app's thread and hands its lock from one waiting query
 * to the next through promises, so the queries of every request in flight, and our code between them,
 * ran as one unbroken chain of microtasks. Sockets were read and answers written only when the chain ran
 * dry: under 16 connections the event loop stalled for 50-150 ms at a time and a few requests waited
 * through several stalls (embedded bench, `/leads` page p99 372 ms at p50 66 ms). With a turn before each
 * query the requests are served in turn with I/O between their queries (p99 166-215 ms at the same
 * req/s; bench/HISTORY.md). Yielding only when other queries wait, or after 2 ms of back-to-back
 * queries, left p99 at 269-329 ms, so every query takes its turn. A query inside a transaction does not:
 * the transaction holds the lock until it ends anyway. The cost is one turn of the loop per query, a few
 * µs under load, more on an idle loop (a lone caller's `select 1`: about 230 µs without, 240-300 µs with),
 * so only the server opens its database this way (`openDatabase({ takeTurns: true })`); tests and scripts do not.
 * @param pglite an open PGlite instance; its `query` and `transaction` are replaced on the instance
 */
export function queriesTakeTurns(pglite: PGlite): PGlite {
  taking.add(pglite);
  const takingTurns =
    <A extends unknown[], R>(run: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await nextTurn();
      return run(...args);
    };
  pglite.query = takingTurns(pglite.query.bind(pglite)) as typeof pglite.query;
  pglite.transaction = takingTurns(pglite.transaction.bind(pglite)) as typeof pglite.transaction;
  return pglite;
}

/** Instances made by {@link queriesTakeTurns}. */
const taking = new WeakSet<PGlite>();

/** Whether `pglite`'s queries take turns ({@link queriesTakeTurns}); its named statements do the same. */
export const takesTurns = (pglite: PGlite): boolean => taking.has(pglite);

/** A promise that resolves on a later turn of the event loop (`setImmediate`). */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));
