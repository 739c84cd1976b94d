import type { PGlite, QueryOptions, Results } from "@electric-sql/pglite";
import { parse, protocol } from "@electric-sql/pglite";
import { takesTurns, nextTurn } from "./pglite-turns";

/** PostgreSQL's `invalid_sql_statement_name`: the named statement is gone (`DEALLOCATE`, `DISCARD ALL`). */
const STATEMENT_GONE = "26000";

/** The part of PGlite's `query` a drizzle prepared query calls: text, parameters, row options. */
export type PgliteQuery = (text: string, params?: unknown[], options?: QueryOptions) => Promise<Results<unknown>>;

/**
 * The most named statements kept on one instance. Each holds its parse tree and plans in PGlite's memory for
 * the instance's life; the callers' texts are a fixed set (one per prepared shape), so this only bounds a
 * mistake.
 */
export const MAX_PGLITE_STATEMENTS = 500;

/**
 * Per instance: its named statements' runners by text, and the client that uses them; and the last number
 * given to a statement. Kept on globalThis because Next.js bundles route modules apart from the server
 * entry: both copies of this module run statements on the one PGlite instance, and a second counter would
 * name a second `platform_1` (PostgreSQL: 42P05, the statement already exists).
 */
const REGISTRY = Symbol.for("platform.pgliteStatements");
type Registry = {
  byInstance: WeakMap<PGlite, { statements: Map<string, PgliteQuery>; client: { query: PgliteQuery } }>;
  counter: number;
};
const registry = (): Registry =>
  ((globalThis as { [REGISTRY]?: Registry })[REGISTRY] ??= { byInstance: new WeakMap(), counter: 0 });

/**
 * Whether `client` (a drizzle session's client) is a PGlite instance itself, not a transaction of one: a
 * transaction's queries must run on the transaction's object, which PGlite serialises for it.
 */
export function isPgliteInstance(client: unknown): client is PGlite {
  const c = client as Partial<PGlite> | null;
  return (
    typeof c?.execProtocol === "function" &&
    typeof c.runExclusive === "function" &&
    typeof (c as { _runExclusiveTransaction?: unknown })._runExclusiveTransaction === "function"
  );
}

/**
 * A stand-in for `pglite` in a drizzle prepared query (db/prepared.ts): its `query(text, params, options)`
 * answers as PGlite's would, but runs `text` as a named prepared statement, parsed and described once,
 * then each run is one call into PGlite with Bind, Describe, Execute and Sync (issue 22).
 *
 * Why: PGlite's `query` sends every statement unnamed, as six calls into its WebAssembly PostgreSQL (Parse
 * with the whole text, Describe, Bind, Describe, Execute, Sync), so PostgreSQL parses, analyses and plans
 * a list page's statement again on every run; on PostgreSQL proper postgres.js keeps it prepared. Named,
 * the plan is kept as there (PostgreSQL's plan cache: custom plans for five runs, then the generic one).
 * In process, 1,000 runs each: a `/leads` page of 25 leads 1.53 → 0.64 ms, 10 cards 0.86 → 0.51 ms.
 *
 * A run takes the same two locks as PGlite's `query` (its transaction lock, then its query lock), so it
 * never runs inside another caller's transaction or between a socket client's messages
 * (db/embedded-socket.ts), and first takes a turn of the event loop on a server's instance like
 * every other query there (db/pglite-turns.ts). A statement that is gone (a socket client's `DISCARD
 * ALL`) is prepared again once. Past {@link MAX_PGLITE_STATEMENTS} texts, new texts run unnamed.
 * Errors are PGlite's DatabaseError, with the SQLSTATE in `code`, as from its `query`.
 */
export function namedStatementClient(pglite: PGlite): { query: PgliteQuery } {
  const { byInstance } = registry();
  let entry = byInstance.get(pglite);
  if (!entry) {
    const statements = new Map<string, PgliteQuery>();
    const client = {
      query: (text: string, params: unknown[] = [], options?: QueryOptions) => {
        let run = statements.get(text);
        if (!run) {
          if (statements.size >= MAX_PGLITE_STATEMENTS) return pglite.query(text, params, options);
          run = namedStatement(pglite, text);
          statements.set(text, run);
        }
        return run(text, params, options);
      },
    };
    byInstance.set(pglite, (entry = { statements, client }));
  }
  return entry.client;
}

/** One named statement's runner on `pglite` (see {@link namedStatementClient}). */
function namedStatement(pglite: PGlite, text: string): PgliteQuery {
  const { serialize } = protocol;
  // A name of ours: a socket client (the operator CLI's postgres.js) shares PGlite's one session.
  const name = `platform_${++registry().counter}`;
  let paramTypes: number[] | null = null;
  const run = async (params: unknown[], options?: QueryOptions): Promise<Results<unknown>> => {
    if (!paramTypes) {
      const described = await pglite.execProtocolStream(
        Buffer.concat([serialize.parse({ name, text }), serialize.describe({ type: "S", name }), serialize.sync()]),
        { syncToFs: false },
      );
      paramTypes = parse.parseDescribeStatementResults(described);
    }
    const types = paramTypes;
    const values = params.map((p, i) => {
      if (p === null || p === undefined) return null;
      const serializer = options?.serializers?.[types[i]!] ?? pglite.serializers[types[i]!];
      return serializer ? serializer(p) : String(p);
    });
    // execProtocolStream, as PGlite's own `query`: it parses this call's output itself. `execProtocol` parses
    // through whatever output callback is set, and a raw call (the embedded socket's, for its clients'
    // messages) leaves its callback set: with pglite-socket the first statement after an operator-CLI
    // command wrote its rows to the CLI's socket and answered none (a valid key refused 401 in the e2e specs).
    const messages = await pglite.execProtocolStream(
      Buffer.concat([
        serialize.bind({ statement: name, values }),
        serialize.describe({ type: "P" }),
        serialize.execute({}),
        serialize.sync(),
      ]),
      { syncToFs: false },
    );
    // PGlite's `query` writes its files back after a statement outside a transaction block.
    if (!pglite.isInTransaction()) await pglite.syncToFs();
    const parsing = parsingOptions(pglite, options);
    return parse.parseResults(messages, parsing.parsers, parsing.options)[0]!;
  };
  return async (_text, params = [], options) => {
    if (takesTurns(pglite)) await nextTurn();
    return pglite._runExclusiveTransaction(() =>
      pglite.runExclusive(async () => {
        try {
          return await run(params, options);
        } catch (err) {
          if ((err as { code?: string }).code !== STATEMENT_GONE) throw err;
          paramTypes = null;
          return run(params, options);
        }
      }),
    );
  };
}

type Parsers = PGlite["parsers"];

/**
 * Per caller's options object (drizzle keeps one per prepared query): its parsers over the instance's
 * (`base`, checked on use, since one options object could meet two instances), and the options without them.
 */
const parsings = new WeakMap<QueryOptions, { base: Parsers; parsers: Parsers; options: QueryOptions }>();

/**
 * The parsers and options to parse a result with, as PGlite's `query` would parse it with `options`.
 *
 * Why: given options with `parsers` (drizzle passes its own for dates, intervals and their arrays on
 * every query), PGlite's result parsing first copies the instance's parsers and the options' into a new
 * object, on every query; the instance holds one for every array type of the catalog (318 on this
 * schema), and that copy took 78 µs a query (issue 22). Here the options' parsers sit over the instance's
 * in an object made once per options object, whose prototype is the instance's own parsers (so a parser
 * PGlite adds later is still found), and PGlite is called without `parsers`, so it copies nothing.
 */
function parsingOptions(
  pglite: PGlite,
  options: QueryOptions | undefined,
): { parsers: Parsers; options?: QueryOptions } {
  if (!options?.parsers) return { parsers: pglite.parsers, options };
  let parsing = parsings.get(options);
  if (parsing?.base !== pglite.parsers) {
    const parsers = Object.assign(Object.create(pglite.parsers) as Parsers, options.parsers);
    parsing = { base: pglite.parsers, parsers, options: { ...options, parsers: undefined } };
    parsings.set(options, parsing);
  }
  return parsing;
}
