import { mkdirSync } from "node:fs";
import path from "node:path";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { lockDirectory } from "./directory-lock";
import { queriesTakeTurns } from "./pglite-turns";
import * as schema from "./schema";

/** A drizzle database or transaction over our schema; services take it as their first argument. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema, ExtractTablesWithRelations<typeof schema>>;

/** An open database with what is needed to close it. `kind` tells the embedded PGlite from PostgreSQL. */
export interface Database {
  db: Db;
  kind: "pglite" | "postgres";
  close(): Promise<void>;
  /** The PGlite instance in embedded mode (for the socket that `npm run admin` uses). */
  pglite?: import("@electric-sql/pglite").PGlite;
  /** The connection string on PostgreSQL, for a dedicated connection (LISTEN, db/change-listener.ts). */
  url?: string;
}

/** The committed migrations (drizzle-kit's folder). */
export const MIGRATIONS = path.join(process.cwd(), "db/migrations");

/**
 * PostgreSQL settings of the embedded database. Its 128 MB default of shared buffers is resident in the
 * WebAssembly heap for the life of the process (about 264 MB for PGlite on reopening a data directory,
 * 146 MB with 16 MB); the operating system's page cache still holds the files PGlite reads.
 */
export const PGLITE_CONF = ["shared_buffers=16MB"];

/**
 * Opens the database: postgres.js when `url` is given, else PGlite in `dir` (in memory when `dir` is
 * `memory://`). Runs the committed migrations when `migrate` is true (under an advisory lock on PostgreSQL).
 * `pgliteSnapshot` (PGlite only): a data directory as `PGlite.dumpDataDir` wrote it (tar), to start from
 * instead of an empty database; migrations already in it are not run again.
 * `takeTurns` (PGlite only): each query first takes a turn of the event loop (db/pglite-turns.ts), for a
 * server answering many requests on one thread; a lone caller (a test, a script) does better without.
 * `poolSize` (PostgreSQL only): connections of postgres.js's pool, 10 unless given; the app passes
 * `DATABASE_POOL_SIZE` (server/env.ts `DEFAULT_DATABASE_POOL_SIZE` says why it is small).
 */
export async function openDatabase(opts: {
  url?: string;
  dir?: string;
  migrate?: boolean;
  poolSize?: number;
  pgliteSnapshot?: Blob;
  takeTurns?: boolean;
}): Promise<Database> {
  if (opts.url) {
    const { default: postgres } = await import("postgres");
    const { drizzle } = await import("drizzle-orm/postgres-js");
    if (opts.migrate) await migratePostgres(opts.url);
    // postgres.js's default pipelining (max_pipeline 100) is kept: with max_pipeline 1 (DESIGN.md's
    // setting) a BEGIN that fills a connection's pipeline skips the reservation of sql.begin, and under
    // concurrent transactions postgres.js fails them with UNSAFE_TRANSACTION (porsager/postgres#823,
    // #1189); `npm run bench` saw 500s on POST /cards from it.
    const client = postgres(opts.url, {
      max: opts.poolSize ?? 10,
      onnotice: () => {},
      connect_timeout: 5,
      idle_timeout: 60,
    } as Parameters<typeof postgres>[1]);
    const db = drizzle(client, { schema }) as unknown as Db;
    return { db, kind: "postgres", url: opts.url, close: () => client.end({ timeout: 5 }) };
  }
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const dir = opts.dir ?? "memory://";
  const onDisk = !dir.startsWith("memory://");
  if (onDisk) mkdirSync(dir, { recursive: true });
  // One opener per directory (db/directory-lock.ts); held until close().
  const unlock = onDisk ? lockDirectory(dir) : () => {};
  let pglite: import("@electric-sql/pglite").PGlite | undefined;
  try {
    pglite = await PGlite.create(dir, {
      postgresqlconf: PGLITE_CONF,
      ...(opts.pgliteSnapshot ? { loadDataDir: opts.pgliteSnapshot } : {}),
    });
    const db = drizzle(opts.takeTurns ? queriesTakeTurns(pglite) : pglite, { schema }) as unknown as Db;
    if (opts.migrate) {
      const { migrate } = await import("drizzle-orm/pglite/migrator");
      await migrate(db as never, { migrationsFolder: MIGRATIONS });
    }
    const opened = pglite;
    const close = async () => {
      try {
        await opened.close();
      } finally {
        unlock();
      }
    };
    return { db, kind: "pglite", pglite: opened, close };
  } catch (err) {
    await pglite?.close().catch(() => {});
    unlock();
    throw err;
  }
}

/** Applies migrations once even when several instances start together (session advisory lock). */
async function migratePostgres(url: string): Promise<void> {
  const { default: postgres } = await import("postgres");
  const { drizzle } = await import("drizzle-orm/postgres-js");
  const { migrate } = await import("drizzle-orm/postgres-js/migrator");
  const client = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await client`select pg_advisory_lock(727274)`;
    await migrate(drizzle(client), { migrationsFolder: MIGRATIONS });
    await client`select pg_advisory_unlock(727274)`;
  } finally {
    await client.end({ timeout: 5 });
  }
}

const KEY = Symbol.for("platform.database");
const OPEN = Symbol.for("platform.database.open");
type Holder = { [KEY]?: Promise<Database>; [OPEN]?: { from: Promise<Database>; db: Db } };

/**
 * The process-wide database. Kept on globalThis because Next.js bundles route modules apart from the
 * server entry: both must see the one PGlite instance (it allows a single opener).
 */
export function database(): Promise<Database> {
  const g = globalThis as Holder;
  if (!g[KEY]) {
    const opening = (async () => {
      const { env } = await import("@/server/env");
      const e = env();
      return openDatabase({ url: e.databaseUrl, dir: e.pgliteDir, migrate: true, poolSize: e.databasePoolSize });
    })();
    g[KEY] = opening;
    opening.then(
      (d) => {
        if (g[KEY] === opening) g[OPEN] = { from: opening, db: d.db };
      },
      () => {
        if (g[KEY] === opening) g[KEY] = undefined;
      },
    );
  }
  return g[KEY];
}

/** Installs an already open database as the process-wide one (server start, tests, scripts). */
export function installDatabase(d: Database): void {
  const g = globalThis as Holder;
  const installed = Promise.resolve(d);
  g[KEY] = installed;
  g[OPEN] = { from: installed, db: d.db };
}

/**
 * The process-wide database's handle once it is open, without a promise (the public API's pipeline asks on
 * every request); undefined while it is opening or before anything asked for it ({@link getDb} then).
 */
export function openedDb(): Db | undefined {
  const g = globalThis as Holder;
  const open = g[OPEN];
  return open && open.from === g[KEY] ? open.db : undefined;
}

/** Shorthand for `(await database()).db`. */
export async function getDb(): Promise<Db> {
  return (await database()).db;
}
