import type { Db } from "./client";

/** A query built once with `sql.placeholder(...)` values, run many times with different values. */
export interface Prepared<Row> {
  execute(values: Record<string, unknown>): Promise<Row[]>;
}

const byDb = new WeakMap<object, Map<string, Prepared<unknown>>>();

/**
 * The prepared form of a hot read, built once per database handle and shape (issue 22: drizzle's query
 * building — the SQL chunks, `is()` checks and parameter walk — was about a tenth of a cards page's CPU).
 * `shape` names the query and every choice that changes its SQL text (which filters are present), so one
 * shape always builds the same statement; the values go in `execute`'s placeholders.
 *
 * Cached per handle: a transaction (`tx`) is its own handle, so a query prepared on the root database never
 * runs outside the caller's transaction. The cache is weak on the handle and holds one entry per shape.
 * @example preparedQuery(db, `cards:list:${ai}`, (d) => d.select().from(products).where(eq(products.tenantId, sql.placeholder("tenant")))).execute({ tenant })
 */
export function preparedQuery<Row>(
  db: Db,
  shape: string,
  build: (db: Db) => { prepare(name: string): Prepared<Row> },
): Prepared<Row> {
  let shapes = byDb.get(db);
  if (!shapes) byDb.set(db, (shapes = new Map()));
  let q = shapes.get(shape) as Prepared<Row> | undefined;
  if (!q) {
    // The name is drizzle's label for the statement; postgres.js names its server-side statements itself.
    q = build(db).prepare(shape.replace(/[^a-z0-9_]/gi, "_"));
    shapes.set(shape, q as Prepared<unknown>);
  }
  return q;
}
