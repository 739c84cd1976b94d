import type { PGlite } from "@electric-sql/pglite";

/**
 * The PGlite face handed to pglite-socket, so that a transaction opened by a socket client (the
 * operator CLI while the app runs) is isolated from the app's own queries.
 *
 * Why: pglite-socket runs each protocol message of a client under PGlite's query mutex and keeps the
 * messages of other socket clients out while one is in a transaction, but the app's own `query`,
 * `exec` and `transaction` wait only for PGlite's transaction mutex. Without this guard an app query
 * (an API request, the local delivery driver's poll) could run between a CLI's `BEGIN` and `COMMIT`,
 * join that transaction, commit it early or abort it: a half-written change or a failed CLI command.
 *
 * How: before a socket message runs, the guard takes PGlite's transaction mutex (the one every app
 * operation waits for) unless the socket already holds it; after the message, it keeps holding it while
 * PGlite reports an open transaction block and releases it once the block ends (COMMIT, ROLLBACK or
 * the ROLLBACK pglite-socket sends when a client disconnects mid-transaction).
 * It also keeps holding it from an extended-protocol message (Parse, Bind, Describe, Execute, Close,
 * Flush) until the client's Sync: the app's queries use PGlite's unnamed statement too, and one run
 * between a client's Parse and Bind made that Bind fail ("bind message supplies 3 parameters, but
 * prepared statement "" requires 1"). A client that sends no Sync within {@link EXTENDED_HOLD_MS}
 * (it left mid-statement) no longer holds the app up. Other socket clients are kept out over the same
 * span: the guard reports it to pglite-socket as a transaction, whose queue then serves only that client.
 * @param pglite the app's open PGlite instance
 * @returns an object with the members pglite-socket uses (`runExclusive`, `execProtocolRawStream`,
 *   `isInTransaction`, `exec`, `waitReady`), typed as PGlite for its constructor
 */
export function guardSocketTransactions(pglite: PGlite): PGlite {
  let release: (() => void) | null = null;
  /** A socket client is between the first message of an extended-protocol query and its Sync. */
  let extended = false;
  let watchdog: ReturnType<typeof setTimeout> | null = null;
  const endExtended = () => {
    extended = false;
    if (watchdog) clearTimeout(watchdog);
    watchdog = null;
  };
  // A socket client's notifications (NOTIFY from the key-cache triggers) go back to that client in the
  // raw protocol stream, never to this process's `pglite.listen`; so whatever a socket client ran is
  // announced here once it is committed (no transaction block open any more).
  const announce = () => {
    if (pglite.isInTransaction()) return;
    for (const fn of socketWriteListeners(pglite)) fn();
  };

  const hold = (): Promise<void> =>
    new Promise<void>((acquired) => {
      void pglite._runExclusiveTransaction(
        () =>
          new Promise<void>((done) => {
            release = done;
            acquired();
          }),
      );
    });

  const settle = () => {
    if (release && !extended && !pglite.isInTransaction()) {
      const r = release;
      release = null;
      r();
    }
  };

  const guarded = {
    get waitReady() {
      return pglite.waitReady;
    },
    // pglite-socket's queue serves only the last client's messages while this says true. Between a
    // client's extended-protocol message and its Sync that keeps the other socket clients out too: one's
    // Parse between another's Parse and Bind would replace the unnamed statement just as an app query did.
    isInTransaction: () => pglite.isInTransaction() || extended,
    execProtocolRawStream(message: Uint8Array, opts: Parameters<PGlite["execProtocolRawStream"]>[1]) {
      const type = message[0];
      if (EXTENDED_MESSAGES.has(type)) {
        extended = true;
        if (watchdog) clearTimeout(watchdog);
        watchdog = setTimeout(() => {
          endExtended();
          settle();
        }, EXTENDED_HOLD_MS);
        watchdog.unref?.();
      } else if (type === SYNC || type === QUERY || type === TERMINATE) endExtended();
      return pglite.execProtocolRawStream(message, opts);
    },
    async runExclusive<T>(fn: () => Promise<T>): Promise<T> {
      if (!release) await hold();
      try {
        return await pglite.runExclusive(fn);
      } finally {
        settle();
        announce();
      }
    },
    // pglite-socket calls exec("ROLLBACK") when a client leaves inside a transaction. PGlite's own exec
    // would wait for the transaction mutex this guard holds, so it runs as a protocol message instead.
    async exec(query: string): Promise<void> {
      if (!release) {
        await pglite.exec(query);
        return;
      }
      await guarded.runExclusive(() => pglite.execProtocolRawStream(simpleQuery(query), { onRawData: () => {} }));
    },
  };
  return guarded as unknown as PGlite;
}

/** Frontend message types of the extended query protocol before its Sync: P, B, D, E, C, H. */
const EXTENDED_MESSAGES = new Set([0x50, 0x42, 0x44, 0x45, 0x43, 0x48]);
const SYNC = 0x53; // S
const QUERY = 0x51; // Q
const TERMINATE = 0x58; // X

/**
 * How long (ms) a socket client may hold the app's queries between an extended-protocol message and its
 * Sync. postgres.js sends a query's messages in one write, so a live client needs microseconds; this
 * only bounds a client that disconnected in the middle.
 */
export const EXTENDED_HOLD_MS = 2_000;

/** A frontend `Query` message ('Q', int32 length, the SQL, NUL). */
function simpleQuery(sql: string): Uint8Array {
  const text = Buffer.from(`${sql}\0`, "utf8");
  const msg = Buffer.alloc(5 + text.length);
  msg.write("Q", 0, "ascii");
  msg.writeInt32BE(4 + text.length, 1);
  text.copy(msg, 5);
  return new Uint8Array(msg);
}

const LISTENERS = Symbol.for("platform.socketWriteListeners");
type Holder = { [LISTENERS]?: WeakMap<PGlite, Set<() => void>> };

function socketWriteListeners(pglite: PGlite): Set<() => void> {
  const g = globalThis as Holder;
  const all = (g[LISTENERS] ??= new WeakMap());
  let set = all.get(pglite);
  if (!set) all.set(pglite, (set = new Set()));
  return set;
}

/**
 * Calls `fn` after each message of a socket client (the operator CLI, scripts) that ran outside a
 * transaction block or ended one, i.e. whenever such a client may have committed a change. Used by the
 * embedded change listener (db/change-listener.ts) because the triggers' NOTIFY of a socket client's
 * transaction never reaches this process's own listeners. Kept on globalThis so that Next.js's bundled
 * copy of this module and the server's see one registry.
 * @returns a function that removes `fn`
 */
export function onSocketWrite(pglite: PGlite, fn: () => void): () => void {
  const set = socketWriteListeners(pglite);
  set.add(fn);
  return () => set.delete(fn);
}
