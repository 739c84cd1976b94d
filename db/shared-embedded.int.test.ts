import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import net from "node:net";
import path from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "./client";
import { namedStatementClient } from "./pglite-statements";
import { serveEmbedded } from "./embedded-socket";
import { portFile, shareEmbedded } from "./shared-embedded";

// The operator CLI reaches the running app's PGlite through its socket (db/embedded-socket.ts). A CLI
// transaction must be isolated from the app's own queries: they wait until it ends, never join it.

let dir: string;
let app: Database;
let stop: () => Promise<void>;
let cli: postgres.Sql;
/** The port the app's PGlite is shared on, as the CLI finds it. */
let port: number;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "shared-embedded-"));
  const pgliteDir = path.join(dir, "pglite");
  app = await openDatabase({ dir: pgliteDir });
  await app.pglite!.exec("create table t (id int primary key, v text)");
  stop = await shareEmbedded(app, pgliteDir);
  port = Number(readFileSync(portFile(pgliteDir), "utf8").trim());
  cli = postgres(`postgres://postgres@127.0.0.1:${port}/postgres`, { max: 1, onnotice: () => {} });
});
afterAll(async () => {
  await cli.end({ timeout: 2 });
  await stop();
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

const appRows = async () =>
  (await app.pglite!.query<{ id: number }>("select id from t order by id")).rows.map((r) => r.id);

// A raw-protocol call leaves its output callback set on PGlite after each socket message: an app statement
// that did not set its own parser wrote its rows to the CLI's socket (db/pglite-statements.ts).
describe("the app's named statements next to a socket client", () => {
  it("answer their own rows right after a socket client's command", async () => {
    const named = namedStatementClient(app.pglite!);
    await cli`insert into t values (900, 'socket')`;
    expect((await named.query("select id, v from t where id = $1", [900])).rows).toEqual([{ id: 900, v: "socket" }]);
    await cli`update t set v = 'again' where id = 900`;
    expect((await named.query("select id, v from t where id = $1", [900])).rows).toEqual([{ id: 900, v: "again" }]);
    await cli`delete from t where id = 900`;
    expect((await named.query("select id, v from t where id = $1", [900])).rows).toEqual([]);
  });
});

describe("a socket client's transaction", () => {
  it("keeps the app's queries out until it commits; the app then sees the whole change", async () => {
    let appDone = false;
    let appRead: Promise<number[]> | null = null;
    await cli.begin(async (tx) => {
      await tx`insert into t (id, v) values (1, 'a')`;
      appRead = appRows().then((r) => {
        appDone = true;
        return r;
      });
      await new Promise((r) => setTimeout(r, 100));
      // The app's read waits: without the guard it would run inside this transaction and see row 1.
      expect(appDone).toBe(false);
      await tx`insert into t (id, v) values (2, 'b')`;
    });
    expect(await appRead!).toEqual([1, 2]);
  });

  it("rolled back, it leaves nothing, and an app transaction started meanwhile commits on its own", async () => {
    let appTx: Promise<void> | null = null;
    await expect(
      cli.begin(async (tx) => {
        await tx`insert into t (id, v) values (3, 'c')`;
        appTx = app.pglite!.transaction(async (t) => {
          await t.query("insert into t (id, v) values (4, 'd')");
        });
        await new Promise((r) => setTimeout(r, 50));
        throw new Error("CLI command failed");
      }),
    ).rejects.toThrow("CLI command failed");
    await appTx!;
    expect(await appRows()).toEqual([1, 2, 4]);
  });

  it("a client that disconnects mid-transaction is rolled back and releases the app", async () => {
    const lost = postgres(`postgres://postgres@127.0.0.1:${port}/postgres`, { max: 1, onnotice: () => {} });
    await lost`begin`;
    await lost`insert into t (id, v) values (5, 'e')`;
    await lost.end({ timeout: 0 });
    expect(await appRows()).toEqual([1, 2, 4]);
  });
});

describe("a socket client's statements outside a transaction", () => {
  it("keep their extended-protocol messages together while the app queries with other parameters", async () => {
    // postgres.js sends Parse, Bind, Describe, Execute and Sync for each parameterized query, and the
    // socket runs them one message at a time. An app query between the client's Parse and Bind
    // replaced the unnamed statement, and the client's Bind failed ("bind message supplies 3
    // parameters, but prepared statement "" requires 1").
    let appBusy = true;
    let n = 0;
    // Eight request-like chains keep app queries waiting for PGlite's mutex, as a loaded app does.
    const appLoops = Array.from({ length: 8 }, async () => {
      while (appBusy) {
        await app.pglite!.query("select $1::int + 1 as v", [n++]);
        // PGlite answers in microtasks: yield so the socket's messages (macrotasks) are served too.
        await new Promise((r) => setImmediate(r));
      }
    });
    const results = [];
    // Unnamed statements, as drizzle sends them (postgres.js `unsafe`).
    for (let i = 0; i < 200; i++)
      results.push(await cli.unsafe("select $1::int as a, $2::text as b, $3::int as c", [i, "x", i * 2]));
    appBusy = false;
    await Promise.all(appLoops);
    expect(n).toBeGreaterThan(0);
    expect(results.map((r) => [r[0].a, r[0].b, r[0].c])).toEqual(
      Array.from({ length: 200 }, (_, i) => [i, "x", i * 2]),
    );
  });

  it("two socket clients at once keep their statements apart, even when one sends a statement in pieces", async () => {
    // Two clients (two CLI commands, or a script): the socket runs their messages one at a time. A
    // client that writes its Parse, then its Bind and Sync later, must not have the other client's
    // statement run in between: it would replace the unnamed statement, and the Bind would fail.
    const a = await rawClient(port);
    const b = await rawClient(port);
    try {
      a.send(parseMessage("select $1::int + 1 as v", 1));
      await new Promise((r) => setTimeout(r, 100));
      const bDone = b.untilReady();
      b.send(parseMessage("select $1::text || $2::text as v", 2), bindMessage(["x", "y"]), EXECUTE, SYNC_MESSAGE);
      await new Promise((r) => setTimeout(r, 100));
      const aDone = a.untilReady();
      a.send(bindMessage(["41"]), EXECUTE, SYNC_MESSAGE);
      const [fromA, fromB] = await Promise.all([aDone, bDone]);
      expect(fromA).toEqual({ error: null, values: ["42"] });
      expect(fromB).toEqual({ error: null, values: ["xy"] });
    } finally {
      a.close();
      b.close();
    }
  });

  it("a client that leaves in the middle of a statement does not hold the app up", async () => {
    // A raw client: startup, then a Parse with no Sync after it, then gone.
    const client = await rawClient(port);
    client.send(parseMessage("select 1", 0));
    await new Promise((r) => setTimeout(r, 100));
    client.close();
    const started = Date.now();
    expect(await appRows()).toEqual([1, 2, 4]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

// Issue 68 item 4: one unit of work at a time (db/embedded-socket.ts). A client holds the session from its
// first message until the database is idle again (ReadyForQuery 'I'), however long that takes; nothing
// lets go of it in between.
describe("one unit of work at a time", () => {
  it("a client slow between its Parse and its Bind keeps the session: its Bind binds its own statement", async () => {
    // postgres.js sends Parse, Describe and Flush, waits for the parameter types, then Bind, Execute and
    // Sync. A client that takes its time (a loaded machine, a paused process) must not lose its statement
    // to an app query that ran meanwhile, however long it waits.
    const client = await rawClient(port);
    try {
      client.send(parseMessage("select $1::int + $2::int as v", 2), DESCRIBE_UNNAMED, FLUSH);
      await new Promise((r) => setTimeout(r, 100));
      let appDone = false;
      const appRead = app.pglite!.query<{ v: string }>("select $1::text as v", ["app"]).then((r) => {
        appDone = true;
        return r.rows[0]!.v;
      });
      await new Promise((r) => setTimeout(r, 2_500));
      const appRanMeanwhile = appDone;
      const done = client.untilReady();
      client.send(bindMessage(["40", "2"]), EXECUTE, SYNC_MESSAGE);
      expect(await done).toEqual({ error: null, values: ["42"] });
      expect(appRanMeanwhile).toBe(false);
      expect(await appRead).toBe("app");
    } finally {
      client.close();
    }
  });

  it("a client that binds its unnamed statement after a Sync binds its own, not the app's", async () => {
    // PostgreSQL keeps the unnamed statement after a Sync; the app's queries use it too.
    const client = await rawClient(port);
    try {
      client.send(parseMessage("select $1::int + 1 as v", 1), SYNC_MESSAGE);
      expect(await client.untilReady()).toEqual({ error: null, values: null });
      expect((await app.pglite!.query("select $1::text || $2::text as v", ["x", "y"])).rows).toEqual([{ v: "xy" }]);
      const done = client.untilReady();
      client.send(bindMessage(["41"]), EXECUTE, SYNC_MESSAGE);
      expect(await done).toEqual({ error: null, values: ["42"] });
    } finally {
      client.close();
    }
  });

  it("a client silent inside a transaction past the limit is disconnected and rolled back; the app goes on", async () => {
    const server = await serveEmbedded(app.pglite!, { unitIdleMs: 300 });
    const silent = postgres(`postgres://postgres@127.0.0.1:${server.port}/postgres`, { max: 1, onnotice: () => {} });
    try {
      await silent`begin`;
      await silent`insert into t (id, v) values (7, 'never')`;
      const started = Date.now();
      // The app waits for the client's transaction, which ends when the client is cut off.
      expect(await appRows()).toEqual([1, 2, 4]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      await expect(silent`commit`).rejects.toThrow();
      expect(await appRows()).toEqual([1, 2, 4]);
    } finally {
      await silent.end({ timeout: 1 });
      await server.stop();
    }
  });

  // A message's first bytes are no sign of life: the limit counts from the client's last whole message, so a
  // client stopped half-way through a message (a suspended process, a lost TCP segment) or trickling bytes
  // is cut off all the same.
  it("a client that sends half a message inside a transaction and goes silent is cut off and rolled back", async () => {
    const server = await serveEmbedded(app.pglite!, { unitIdleMs: 300 });
    const client = await rawClient(server.port);
    try {
      client.send(simpleQueryMessage("begin"));
      await client.untilReady();
      client.send(simpleQueryMessage("insert into t (id, v) values (8, 'half')"));
      await client.untilReady();
      const next = simpleQueryMessage("insert into t (id, v) values (9, 'never')");
      client.send(next.subarray(0, 10));
      const started = Date.now();
      expect(await withinMs(appRows(), 3_000)).toEqual([1, 2, 4]);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(await withinMs(client.closed, 3_000)).toBe("closed");
      expect(client.errorCodes()).toContain("25P03");
    } finally {
      client.close();
      await server.stop();
    }
  });

  it("a client trickling a byte at a time inside a transaction is cut off at the limit", async () => {
    const server = await serveEmbedded(app.pglite!, { unitIdleMs: 300 });
    const client = await rawClient(server.port);
    let trickling = true;
    try {
      client.send(simpleQueryMessage("begin"));
      await client.untilReady();
      client.send(simpleQueryMessage("insert into t (id, v) values (10, 'trickle')"));
      await client.untilReady();
      // One byte every 100 ms (a third of the limit): 400 bytes would take 40 s to make a whole message.
      const message = simpleQueryMessage(`select '${"x".repeat(400)}'`);
      const trickle = (async () => {
        for (let i = 0; trickling && !client.isClosed() && i < message.length; i++) {
          client.send(message.subarray(i, i + 1));
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      const started = Date.now();
      expect(await withinMs(appRows(), 3_000)).toEqual([1, 2, 4]);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(await withinMs(client.closed, 3_000)).toBe("closed");
      trickling = false;
      await trickle;
    } finally {
      trickling = false;
      client.close();
      await server.stop();
    }
  });

  it("refuses a client past the limit with PostgreSQL's too-many-clients error", async () => {
    const server = await serveEmbedded(app.pglite!, { maxClients: 1 });
    const url = `postgres://postgres@127.0.0.1:${server.port}/postgres`;
    const first = postgres(url, { max: 1, onnotice: () => {} });
    const second = postgres(url, { max: 1, onnotice: () => {} });
    try {
      expect(await first`select 1 as v`).toEqual([{ v: 1 }]);
      await expect(second`select 1 as v`).rejects.toMatchObject({ code: "53300" });
    } finally {
      await first.end({ timeout: 1 });
      await second.end({ timeout: 1 });
      await server.stop();
    }
  });

  it("drops a client's named statements when it leaves, as PostgreSQL does with its connection", async () => {
    const named = (await app.pglite!.query<{ name: string }>("select name from pg_prepared_statements")).rows;
    const before = new Set(named.map((r) => r.name));
    const client = postgres(`postgres://postgres@127.0.0.1:${port}/postgres`, { max: 1, onnotice: () => {} });
    // postgres.js prepares its statements under names of its own (prepare: true).
    expect(await client`select ${5}::int + 1 as v`).toEqual([{ v: 6 }]);
    const statementsNow = async () =>
      (await app.pglite!.query<{ name: string }>("select name from pg_prepared_statements")).rows
        .map((r) => r.name)
        .filter((n) => !before.has(n));
    expect((await statementsNow()).length).toBeGreaterThan(0);
    await client.end({ timeout: 1 });
    const until = Date.now() + 5_000;
    while ((await statementsNow()).length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(await statementsNow()).toEqual([]);
  });
});

/** Frontend messages of the extended protocol, as raw bytes (type byte, int32 length, body). */
function frontend(type: string, body: Buffer): Buffer {
  const msg = Buffer.alloc(5 + body.length);
  msg.write(type, 0, "ascii");
  msg.writeInt32BE(4 + body.length, 1);
  body.copy(msg, 5);
  return msg;
}
/** Parse of the unnamed statement with `params` parameters of unspecified type. */
function parseMessage(sqlText: string, params: number): Buffer {
  const types = Buffer.alloc(2 + 4 * params);
  types.writeInt16BE(params, 0);
  return frontend("P", Buffer.concat([Buffer.from(`\0${sqlText}\0`), types]));
}
/** Bind of the unnamed portal to the unnamed statement, text parameters, text results. */
function bindMessage(values: string[]): Buffer {
  const parts = [Buffer.from("\0\0"), Buffer.from([0, 0])];
  const count = Buffer.alloc(2);
  count.writeInt16BE(values.length, 0);
  parts.push(count);
  for (const v of values) {
    const len = Buffer.alloc(4);
    len.writeInt32BE(Buffer.byteLength(v), 0);
    parts.push(len, Buffer.from(v));
  }
  parts.push(Buffer.from([0, 0]));
  return frontend("B", Buffer.concat(parts));
}
const EXECUTE = frontend("E", Buffer.from([0, 0, 0, 0, 0]));
const SYNC_MESSAGE = frontend("S", Buffer.alloc(0));
const FLUSH = frontend("H", Buffer.alloc(0));
/** A simple Query message. */
function simpleQueryMessage(sqlText: string): Buffer {
  return frontend("Q", Buffer.from(`${sqlText}\0`));
}
/** `promise`'s value, or the string "timed out" after `ms` milliseconds (a hang fails an assertion, not the run). */
function withinMs<T>(promise: Promise<T>, ms: number): Promise<T | "timed out"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timed out">((resolve) => (timer = setTimeout(() => resolve("timed out"), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
/** Describe of the unnamed statement. */
const DESCRIBE_UNNAMED = frontend("D", Buffer.from("S\0"));

/** A raw protocol client: sends messages, and reads the first DataRow's values or error until ReadyForQuery. */
async function rawClient(socketPort: number) {
  const socket = net.connect({ host: "127.0.0.1", port: socketPort });
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  let buffer = Buffer.alloc(0);
  let waiter: (() => void) | null = null;
  /** Every byte the server sent, for errorCodes(). */
  let received = Buffer.alloc(0);
  socket.on("data", (d: Buffer) => {
    buffer = Buffer.concat([buffer, d]);
    received = Buffer.concat([received, d]);
    waiter?.();
  });
  socket.on("error", () => {}); // the server cutting the client off is what some tests wait for
  const closed = new Promise<"closed">((resolve) => socket.once("close", () => resolve("closed")));
  /** Reads backend messages until ReadyForQuery ('Z'); the first DataRow's text values, or the error's message. */
  const untilReady = async (): Promise<{ error: string | null; values: string[] | null }> => {
    let error: string | null = null;
    let values: string[] | null = null;
    for (;;) {
      while (buffer.length >= 5 && buffer.length >= 1 + buffer.readInt32BE(1)) {
        const type = String.fromCharCode(buffer[0]);
        const body = buffer.subarray(5, 1 + buffer.readInt32BE(1));
        buffer = buffer.subarray(1 + buffer.readInt32BE(1));
        if (type === "D" && !values) {
          values = [];
          let at = 2;
          for (let i = 0; i < body.readInt16BE(0); i++) {
            const len = body.readInt32BE(at);
            values.push(body.subarray(at + 4, at + 4 + len).toString());
            at += 4 + len;
          }
        } else if (type === "E") {
          const m = /M([^\0]*)/.exec(body.toString());
          error = m ? m[1] : "error";
        } else if (type === "Z") return { error, values };
      }
      await new Promise<void>((resolve) => (waiter = resolve));
      waiter = null;
    }
  };
  const user = Buffer.from("user\0postgres\0database\0postgres\0\0");
  const startup = Buffer.alloc(8 + user.length);
  startup.writeInt32BE(8 + user.length, 0);
  startup.writeInt32BE(196608, 4);
  user.copy(startup, 8);
  socket.write(startup);
  await untilReady();
  return {
    send: (...messages: Buffer[]) => socket.write(Buffer.concat(messages)),
    untilReady,
    /** Resolves once the socket is closed (by either side). */
    closed,
    isClosed: () => socket.destroyed,
    /** The SQLSTATE of every ErrorResponse the server sent so far, read or not. */
    errorCodes: () => {
      const codes: string[] = [];
      for (let at = 0; at + 5 <= received.length; at += 1 + received.readInt32BE(at + 1)) {
        if (received[at] !== 0x45) continue; // 'E'
        const body = received.subarray(at + 5, at + 1 + received.readInt32BE(at + 1)).toString();
        codes.push(/(?:^|\0)C([^\0]*)/.exec(body)?.[1] ?? "");
      }
      return codes;
    },
    close: () => socket.destroy(),
  };
}
