import type { Database, Db } from "@/db/client";
import { listenForChanges, type ChangeListener, type ChangeListenerOptions } from "@/db/change-listener";
import { log } from "@/server/log";

/** NOTIFY channel of the key-cache triggers (db/migrations/*_key_cache_notify.sql). */
export const KEY_CACHE_CHANNEL = "key_cache";

/** How long a cached key row is trusted without any notification, ms (issue 22: at most 10 s). */
export const KEY_CACHE_FRESH_MS = 5000;

/** Entries kept at most; the oldest go first (a key row with its arrays is 1-2 KB, so ~20 MB at most). */
export const KEY_CACHE_MAX_ENTRIES = 10_000;

/** What the cache needs to know of a cached row: the tenant it belongs to (invalidation granularity). */
export interface CachedKeyRow {
  tenantId: string;
}

interface Entry<Row> {
  row: Row;
  /** The UTC day the row was read for (its daily-spend figure is that day's). */
  day: string;
  storedAt: number;
}

/**
 * The in-process cache of the key query's row (DESIGN "Hot path"; server/services/access/authenticate.ts),
 * keyed by public `key_id`. Only rows of existing keys are kept: unknown keys always go to the database.
 *
 * Trust rules: an entry is served only while the change listener is connected, only for the UTC day it
 * was read for, and only for `freshMs` after it was read (a safety net; notifications do the real work).
 * A notification drops the tenant's entries (`*` drops all). A row read while an invalidation of its
 * tenant (or of everything) arrived is not stored (a read that raced a change could hold the old state),
 * which is what {@link KeyCache.begin} and the token of {@link KeyCache.put} are for. Losing or regaining the listener
 * drops everything.
 */
export class KeyCache<Row extends CachedKeyRow> {
  private readonly entries = new Map<string, Entry<Row>>();
  private readonly byTenant = new Map<string, Set<string>>();
  /** Counts every invalidation; `begin()` hands out its current value. */
  private generation = 0;
  /** Generation of the last invalidation of everything (`*`, listener lost or regained). */
  private allSince = 0;
  /** Generation of the last invalidation per tenant (cleared, as an invalidation of everything, when large). */
  private readonly tenantSince = new Map<string, number>();
  private up = false;
  private readonly freshMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  /** Lookups answered from the cache or not, invalidations heard and listener losses, since start (bench, tests). */
  readonly stats = { hits: 0, misses: 0, invalidations: 0, disconnects: 0 };

  constructor(opts: { freshMs?: number; maxEntries?: number; now?: () => number } = {}) {
    this.freshMs = Math.min(opts.freshMs ?? KEY_CACHE_FRESH_MS, 10_000);
    this.maxEntries = opts.maxEntries ?? KEY_CACHE_MAX_ENTRIES;
    this.now = opts.now ?? Date.now;
  }

  /** Whether entries are served (the listener is connected). */
  get trusted(): boolean {
    return this.up;
  }

  /** The row of `keyId` read for `day` (YYYY-MM-DD, UTC), or undefined when it must be read again. */
  get(keyId: string, day: string): Row | undefined {
    if (!this.up) {
      this.stats.misses++;
      return undefined;
    }
    const e = this.entries.get(keyId);
    if (!e || e.day !== day || this.now() - e.storedAt >= this.freshMs) {
      this.stats.misses++;
      return undefined;
    }
    this.stats.hits++;
    return e.row;
  }

  /** Call before reading a row from the database; pass the result to {@link put}. */
  begin(): number {
    // Invalidations after this value are exactly those with a larger generation.
    return this.generation;
  }

  /** Stores a row read after `begin()` returned `token`, unless anything was invalidated since. */
  put(keyId: string, day: string, row: Row, token: number): void {
    if (!this.up || token < this.allSince || token < (this.tenantSince.get(row.tenantId) ?? 0)) return;
    this.remove(keyId);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.remove(oldest);
    }
    this.entries.set(keyId, { row, day, storedAt: this.now() });
    let keys = this.byTenant.get(row.tenantId);
    if (!keys) this.byTenant.set(row.tenantId, (keys = new Set()));
    keys.add(keyId);
  }

  /** A change committed for `tenantId` (`*` = unknown tenant): its entries go, reads in flight are not stored. */
  invalidate(tenantId: string): void {
    this.generation++;
    this.stats.invalidations++;
    if (tenantId === "*" || this.tenantSince.size >= this.maxEntries) {
      this.allSince = this.generation;
      this.tenantSince.clear();
      if (tenantId === "*") {
        this.clear();
        return;
      }
    }
    this.tenantSince.set(tenantId, this.generation);
    const keys = this.byTenant.get(tenantId);
    if (!keys) return;
    for (const k of keys) this.entries.delete(k);
    this.byTenant.delete(tenantId);
  }

  /** The listener connected (`true`: start trusting, from empty) or was lost (`false`: bypass). */
  setConnected(up: boolean): void {
    if (this.up && !up) this.stats.disconnects++;
    this.generation++;
    this.allSince = this.generation;
    this.tenantSince.clear();
    this.clear();
    this.up = up;
  }

  /** Number of entries held. */
  get size(): number {
    return this.entries.size;
  }

  private clear(): void {
    this.entries.clear();
    this.byTenant.clear();
  }

  private remove(keyId: string): void {
    const e = this.entries.get(keyId);
    if (!e) return;
    this.entries.delete(keyId);
    const keys = this.byTenant.get(e.row.tenantId);
    keys?.delete(keyId);
    if (keys?.size === 0) this.byTenant.delete(e.row.tenantId);
  }
}

const REGISTRY = Symbol.for("platform.keyCaches");
type Holder = { [REGISTRY]?: WeakMap<Db, KeyCache<CachedKeyRow>> };

function registry(): WeakMap<Db, KeyCache<CachedKeyRow>> {
  // On globalThis: Next.js bundles route modules apart from the server entry that starts the cache.
  return ((globalThis as Holder)[REGISTRY] ??= new WeakMap());
}

/** The key cache started for `db` by {@link startKeyCache}, or undefined (then every request reads the database). */
export function keyCacheOf<Row extends CachedKeyRow>(db: Db): KeyCache<Row> | undefined {
  return registry().get(db) as KeyCache<Row> | undefined;
}

/** A started key cache and its listener. */
export interface RunningKeyCache {
  cache: KeyCache<CachedKeyRow>;
  listener: ChangeListener;
  stop(): Promise<void>;
}

/**
 * Starts the key cache of an open database: listens on {@link KEY_CACHE_CHANNEL} (PostgreSQL: a
 * dedicated connection; embedded: PGlite's listen) and registers the cache so that `authenticate` uses
 * it for `database.db`. Started by the app process (server/http-server.ts); without it nothing is cached.
 */
export async function startKeyCache(
  database: Database,
  opts: { freshMs?: number; maxEntries?: number; listener?: ChangeListenerOptions } = {},
): Promise<RunningKeyCache> {
  const cache = new KeyCache<CachedKeyRow>(opts);
  const listener = await listenForChanges(
    database,
    KEY_CACHE_CHANNEL,
    {
      onNotify: (tenantId) => cache.invalidate(tenantId),
      onConnected: (up) => {
        cache.setConnected(up);
        if (!up) log().warn("key cache listener disconnected: keys are read from the database until it is back");
        else if (cache.stats.hits + cache.stats.misses > 0) log().info("key cache listener reconnected");
      },
    },
    opts.listener,
  );
  registry().set(database.db, cache);
  return {
    cache,
    listener,
    async stop() {
      if (registry().get(database.db) === cache) registry().delete(database.db);
      cache.setConnected(false);
      await listener.stop();
    },
  };
}
