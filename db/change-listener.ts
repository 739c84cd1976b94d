import type { Database } from "./client";
import { onSocketWrite } from "./embedded-socket";

/** What a change listener reports to its owner. */
export interface ChangeHandlers {
  /** A notification on the channel committed somewhere; `payload` as sent (`*` = anything may have changed). */
  onNotify(payload: string): void;
  /**
   * The listener is (again) listening (`true`), or lost its connection (`false`). Notifications sent
   * while it was down are lost, so an owner must not trust anything it learned before a `true`.
   */
  onConnected(up: boolean): void;
}

/** A running change listener. */
export interface ChangeListener {
  /** Whether notifications are being received right now. */
  connected(): boolean;
  /** Stops listening and closes the dedicated connection. */
  stop(): Promise<void>;
}

/** Options of {@link listenForChanges}. */
export interface ChangeListenerOptions {
  /** PostgreSQL: how often the listening connection is proven alive with a query, ms; default 1000. */
  heartbeatMs?: number;
  /** PostgreSQL: pause between reconnection attempts, ms; default 500. */
  retryMs?: number;
}

/**
 * Listens to a NOTIFY channel of the database (the key cache's `key_cache`, db/migrations/*_key_cache_notify.sql).
 * PostgreSQL: one dedicated connection (not the pool's), which runs `LISTEN` and answers a heartbeat
 * query every `heartbeatMs`; a closed connection or a heartbeat without answer within `heartbeatMs`
 * reports `onConnected(false)` at once and reconnects every `retryMs` until `LISTEN` succeeds, then
 * `onConnected(true)`. Embedded PGlite (one process owns it): PGlite's own `listen` for this process's
 * statements, plus a `*` notification after each unit of work of a socket client (the operator CLI), whose
 * notifications PGlite hands back to that client only (db/embedded-socket.ts).
 * `channel` must be a plain SQL identifier.
 */
export async function listenForChanges(
  database: Database,
  channel: string,
  handlers: ChangeHandlers,
  opts: ChangeListenerOptions = {},
): Promise<ChangeListener> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`bad channel name ${channel}`);
  if (database.pglite) {
    const pglite = database.pglite;
    const unlisten = await pglite.listen(channel, (payload) => handlers.onNotify(payload));
    const unsocket = onSocketWrite(pglite, () => handlers.onNotify("*"));
    handlers.onConnected(true);
    let up = true;
    return {
      connected: () => up,
      async stop() {
        up = false;
        unsocket();
        await unlisten().catch(() => {});
      },
    };
  }
  if (!database.url) throw new Error("listenForChanges needs the database URL on PostgreSQL");
  return listenPostgres(database.url, channel, handlers, opts);
}

async function listenPostgres(
  url: string,
  channel: string,
  handlers: ChangeHandlers,
  opts: ChangeListenerOptions,
): Promise<ChangeListener> {
  const { default: postgres } = await import("postgres");
  const heartbeatMs = opts.heartbeatMs ?? 1000;
  const retryMs = opts.retryMs ?? 500;
  type Sql = ReturnType<typeof postgres>;
  let sql: Sql | null = null;
  let up = false;
  let stopped = false;
  let connecting: Promise<void> | null = null;
  let beating = false;

  const setUp = (v: boolean) => {
    if (v === up) return;
    up = v;
    handlers.onConnected(v);
  };
  const drop = () => {
    setUp(false);
    const old = sql;
    sql = null;
    void old?.end({ timeout: 0 }).catch(() => {});
  };
  const withTimeout = <T>(p: Promise<T>, ms: number): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("listener query timed out")), ms);
      }),
    ]).finally(() => clearTimeout(timer));
  };
  const connect = (): Promise<void> =>
    (connecting ??= (async () => {
      while (!stopped) {
        const s: Sql = postgres(url, {
          max: 1,
          idle_timeout: 0, // never closed for idleness
          max_lifetime: null, // nor for age (postgres.js would otherwise recycle it every 30-60 min)
          connect_timeout: 5,
          fetch_types: false,
          connection: { application_name: `listen:${channel}` }, // to find it in pg_stat_activity
          onnotice: () => {},
          onnotify: (c: string, payload: string) => {
            if (c === channel && sql === s) handlers.onNotify(payload);
          },
          // Any close of the listening connection loses notifications: distrust at once, then reconnect.
          onclose: () => {
            if (sql !== s || stopped) return;
            drop();
            void connect();
          },
        } as unknown as Parameters<typeof postgres>[1]);
        sql = s;
        try {
          await withTimeout(s.unsafe(`LISTEN ${channel}`), 5000);
          if (sql === s) {
            setUp(true);
            return;
          }
        } catch {
          if (sql === s) drop();
        }
        await new Promise((r) => setTimeout(r, retryMs));
      }
    })().finally(() => {
      connecting = null;
    }));

  // Start-up does not wait on a database that is down: the owner just sees `connected() === false`.
  await Promise.race([connect(), new Promise((r) => setTimeout(r, 5500).unref?.())]);
  const heartbeat = setInterval(() => {
    const s = sql;
    if (!s || !up || beating || stopped) return;
    beating = true;
    withTimeout(s`select 1`, heartbeatMs)
      .catch(() => {
        if (sql === s && !stopped) {
          drop();
          void connect();
        }
      })
      .finally(() => {
        beating = false;
      });
  }, heartbeatMs);
  heartbeat.unref?.();

  return {
    connected: () => up,
    async stop() {
      stopped = true;
      clearInterval(heartbeat);
      up = false;
      const s = sql;
      sql = null;
      await s?.end({ timeout: 1 }).catch(() => {});
    },
  };
}
