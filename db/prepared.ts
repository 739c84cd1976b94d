import { sql, type SQL } from "drizzle-orm";
import type { Db } from "./client";
import { isPgliteInstance, namedStatementClient } from "./pglite-statements";
import { rowsOf } from "./rows";

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
    q = namedOnPglite(build(db).prepare(shape.replace(/[^a-z0-9_]/gi, "_")));
    shapes.set(shape, q as Prepared<unknown>);
  }
  return q;
}

/** The part of drizzle's session and dialect that {@link executePrepared} uses. */
interface NamedSession {
  dialect: { sqlToQuery(query: SQL): { sql: string; params: unknown[] } };
  prepareQuery(
    query: { sql: string; params: unknown[] },
    fields: undefined,
    name: string,
    isResponseInArrayMode: boolean,
  ): { execute(values?: Record<string, unknown>): Promise<unknown> };
}

/** The handle's drizzle session (a transaction's own for `tx`), where raw SQL is prepared. */
function sessionOf(db: Db): NamedSession {
  return (db as unknown as { _: { session: NamedSession } })._.session;
}

/**
 * A drizzle prepared query whose client is the embedded database's PGlite instance (a root handle's, not
 * a transaction's) runs through {@link namedStatementClient}: PGlite keeps the statement parsed and
 * planned, as PostgreSQL does for postgres.js, where drizzle's PGlite driver would send the whole text
 * unnamed on every run. drizzle's own execution (placeholders, row mapping, error wrapping) is unchanged.
 * A transaction's prepared query keeps its client, the transaction's own object.
 */
function namedOnPglite<Q extends object>(prepared: Q): Q {
  const p = prepared as { client?: unknown };
  if (isPgliteInstance(p.client)) p.client = namedStatementClient(p.client);
  return prepared;
}

/**
 * Runs raw SQL (`sql\`...\``) as a named prepared statement and returns its rows, the same on both drivers.
 *
 * Why: `db.execute(sql)` sends an unnamed statement, and postgres.js sends an unnamed statement that has
 * parameters as Parse/Describe first, waits for the parameter types, then Bind/Execute: two round trips and
 * two socket writes on every run. Named, it is parsed once per connection, and every later run is one
 * Bind/Execute write (issue 22: on a `/leads` page the rate-limit and disclosure batches made about half of
 * the app's writes to PostgreSQL). PGlite runs it as before.
 *
 * Only for SQL whose text is the same on every run (every value a parameter): each distinct text stays
 * prepared on each connection for the connection's life.
 * @param name drizzle's label for the statement (postgres.js names its server-side statements itself)
 * @throws what the query throws
 */
export async function executePrepared<Row>(db: Db, name: string, query: SQL): Promise<Row[]> {
  const session = sessionOf(db);
  const prepared = namedOnPglite(session.prepareQuery(session.dialect.sqlToQuery(query), undefined, name, false));
  return rowsOf<Row>(await prepared.execute());
}

/**
 * The prepared form of a raw-SQL read (`sql\`select ... ${sql.placeholder("x")}\``), built once per database
 * handle and shape like {@link preparedQuery}, whose rows come back as the driver gives them: objects keyed
 * by column name or alias, with no drizzle row mapping.
 *
 * Why: the list pages' statements are SQL that drizzle's query builder does not write (a lateral row read
 * as one JSON text per row, a lateral probe for a message's first file), and their rows need no mapping: a
 * JSON text, or a few columns already in the answer's form.
 *
 * Every value must be a placeholder or a literal that is part of the shape, so one shape is one statement
 * text. Cached per handle: a transaction's handle has its own statements, as in {@link preparedQuery}.
 * @param shape names the query and every choice that changes its SQL text; also drizzle's statement label
 * @param build the statement, called once per handle and shape
 * @returns `execute(values)`: the rows, the same shape on both drivers ({@link rowsOf}); throws what the query throws
 */
export function preparedRows<Row>(db: Db, shape: string, build: () => SQL): Prepared<Row> {
  return preparedQuery<Row>(db, `rows:${shape}`, () => {
    const session = sessionOf(db);
    return {
      prepare(name: string): Prepared<Row> {
        const q = namedOnPglite(session.prepareQuery(session.dialect.sqlToQuery(build()), undefined, name, false));
        return { execute: async (values) => rowsOf<Row>(await q.execute(values)) };
      },
    };
  });
}

/**
 * A placeholder the planner cannot look into: `(select $n::type)`, an initplan whose value the plan reads at
 * run time. For a prepared statement whose best plan is the same for every value (one index that matches
 * its filter and its order), written with this for every value.
 *
 * Why: PostgreSQL plans a prepared statement for its actual values five times, then keeps its generic plan
 * only if that plan's estimated cost is no higher than theirs. With skewed data (one tenant holding most
 * leads) the generic plan's row estimate is the average tenant's, so for a large tenant it always looks
 * dearer than a plan for the value, and PostgreSQL plans the statement again on every run, though it picks
 * the same index every time. Through an initplan the estimate is the same for every value, so the generic
 * plan is kept after five runs. On a `/leads` page of the bench's 100,000-lead tenant the planner was a third
 * of PostgreSQL's CPU (issue 22, bench/HISTORY.md, twenty-third session).
 * @param name the placeholder's name, as `sql.placeholder(name)`
 * @param type the PostgreSQL type the value is cast to (a trusted literal, e.g. `uuid`, `boolean`)
 */
export function planlessPlaceholder(name: string, type: string): SQL {
  return sql`(select ${sql.placeholder(name)}::${sql.raw(type)})`;
}

/**
 * A LIMIT written into the statement's text, for a prepared list query; put the same number in the query's
 * shape ({@link preparedQuery}), since each number is its own statement.
 *
 * Why: PostgreSQL plans a LIMIT that is a parameter as if a tenth of the matching rows were wanted. The
 * generic plan of such a statement then always costs more than a plan for the actual values, so PostgreSQL
 * plans it again on every run; with a literal, it keeps the generic plan after five runs. On a `/leads`
 * page the planning was a fifth of PostgreSQL's CPU (issue 22, bench/HISTORY.md). Where one tenant holds
 * most rows, the estimate for that tenant's value can still make it plan every run: {@link planlessPlaceholder}.
 * @param rows rows to fetch: a list route's `limit` + 1 (1 to 101)
 * @throws RangeError when `rows` is not a whole number from 1 to 101
 */
export function literalLimit(rows: number): number {
  if (!Number.isInteger(rows) || rows < 1 || rows > 101) throw new RangeError(`limit ${rows} is not 1 to 101`);
  // drizzle's `.limit()` takes a number or a placeholder; a SQL chunk goes into the text as it is.
  return sql.raw(String(rows)) as unknown as number;
}
