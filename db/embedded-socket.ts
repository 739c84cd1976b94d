import net from "node:net";
import type { PGlite } from "@electric-sql/pglite";

// The app's embedded database (PGlite) is one PostgreSQL session in this process. Scripts (the operator
// CLI, the seed, a worker) reach it while the app runs through this loopback server, speaking the
// PostgreSQL wire protocol. One session cannot serve two users at once: a statement of one between
// another's Parse and Bind replaces the unnamed statement ("bind message supplies 3 parameters, but
// prepared statement "" requires 1"), and a statement of one between another's BEGIN and COMMIT joins
// that transaction. So every user waits for one queue, and holds it for a whole unit of work:
//
// - The app's own queries already do: PGlite runs each `query`, `exec` and `transaction` under its
//   transaction lock, and every protocol exchange under its query lock (db/pglite-statements.ts takes
//   both the same way).
// - A socket client takes both locks, in that order, with its first message and keeps them until the
//   database says the session is idle again: a ReadyForQuery message whose status is `I` (not in a
//   transaction block). PostgreSQL sends ReadyForQuery only after a Sync or a simple Query, so one unit
//   is a whole extended-protocol exchange (Parse ... Flush, the client's round trip, Bind, Execute, Sync)
//   or a whole transaction, however the client splits its messages. The rule reads the database's answer,
//   not the client's message types, and never lets go while a unit is open.
// - A client that sends no whole message inside a unit for CLIENT_UNIT_IDLE_MS (part of one does not
//   count) is disconnected (as PostgreSQL's idle_in_transaction_session_timeout does); a client that leaves inside a unit is cleaned up (Sync,
//   ROLLBACK) before the locks are given back.
// - What PostgreSQL keeps per connection is kept per client: a client that binds the unnamed statement in
//   a later unit than its Parse gets its own statement parsed again first (another user's query replaced
//   it meanwhile), and its named prepared statements are deallocated when it leaves.
//
// This replaces @electric-sql/pglite-socket and a guard around it (issue 68 item 4). pglite-socket runs
// one protocol message at a time and lets any other user in between two of a client's messages; the guard
// kept the app out from an extended-protocol message to its Sync by reading message types, and let go
// after 2 s, so a client slower than that lost its statement to the app's next query. pglite-socket also
// refused a fifth client with a line of text instead of a PostgreSQL error, and kept every client's named
// statements in the session for the app's life.

/**
 * How long (ms) a socket client may go without sending a whole message while it holds the session (inside a
 * transaction or an extended-protocol exchange) before it is disconnected and its transaction rolled back;
 * part of a message does not count. The app's queries wait meanwhile. postgres.js answers within an
 * event-loop turn; this only bounds a client that hangs.
 */
export const CLIENT_UNIT_IDLE_MS = 10_000;

/** Socket clients served at once (`npm run admin` uses one connection a command); more are refused (53300). */
export const MAX_SOCKET_CLIENTS = 32;

/** A running socket server: its port and a stop that disconnects its clients and waits for their cleanup. */
export interface EmbeddedSocket {
  port: number;
  stop(): Promise<void>;
}

/**
 * Serves `pglite` on `host:port` (port 0: any free port) to PostgreSQL wire-protocol clients, one unit at a
 * time with the app's own queries (see the comment at the top of this file). No authentication: it listens
 * on loopback only, as PostgreSQL's `trust` for local connections.
 * @param opts.unitIdleMs overrides {@link CLIENT_UNIT_IDLE_MS} (tests)
 * @returns the port it listens on and `stop()`
 */
export async function serveEmbedded(
  pglite: PGlite,
  opts: { host?: string; port?: number; maxClients?: number; unitIdleMs?: number } = {},
): Promise<EmbeddedSocket> {
  await pglite.waitReady;
  const sessions = new Set<SocketSession>();
  const server = net.createServer((socket) => {
    // Past the limit a client is refused after its startup message, as PostgreSQL refuses it.
    const refused = sessions.size >= (opts.maxClients ?? MAX_SOCKET_CLIENTS);
    const session = new SocketSession(pglite, socket, opts.unitIdleMs ?? CLIENT_UNIT_IDLE_MS, refused);
    if (refused) return;
    sessions.add(session);
    void session.ended.then(() => sessions.delete(session));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const ending = [...sessions].map((s) => s.end());
      await Promise.all(ending);
      await closed;
    },
  };
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;
const READY_FOR_QUERY = 0x5a; // 'Z'
const IDLE = 0x49; // 'I': ReadyForQuery's status outside a transaction block
const PARSE = 0x50; // 'P'
const CLOSE = 0x43; // 'C'
const TERMINATE = 0x58; // 'X'
const QUERY = 0x51; // 'Q'
const PARSE_COMPLETE = 0x31; // '1'
const BIND = 0x42; // 'B'
const DESCRIBE = 0x44; // 'D'

/** A Bind of the unnamed statement, or a Describe of it: a use of what the client's last Parse "" left. */
function usesUnnamedStatement(message: Buffer): boolean {
  if (message[0] === BIND) {
    const statementAt = message.indexOf(0, 5) + 1; // after the portal's name
    return message[statementAt] === 0;
  }
  return message[0] === DESCRIBE && message[5] === 0x53 && message[6] === 0;
}

/** One socket client: its bytes cut into protocol messages, run in order, each unit under PGlite's locks. */
class SocketSession {
  private input: Buffer = Buffer.alloc(0);
  private started = false;
  /** Messages run one after another, in the order they arrived. */
  private chain: Promise<void> = Promise.resolve();
  /** Gives PGlite's locks back; set while this client holds them (inside a unit). */
  private release: (() => void) | null = null;
  private idleTimer: ReturnType<typeof setTimeout> | null = null;
  /** Messages received and not yet run (or running). */
  private queued = 0;
  /**
   * The client's last Parse of the unnamed statement, and whether the session's unnamed statement is still
   * that one. PostgreSQL keeps the unnamed statement after a Sync; another user's query replaces it in the
   * one session, so a client that binds it in a later unit gets its own statement parsed again first.
   */
  private unnamedParse: Buffer | null = null;
  private unnamedIsOurs = false;
  /** The client's named prepared statements, deallocated when it leaves. */
  private readonly statements = new Set<string>();
  private readonly answer = new BackendReader();
  private closing: Promise<void> | null = null;
  private resolveEnded!: () => void;
  /** Resolves once the client is gone and the session is clean (its locks given back). */
  readonly ended = new Promise<void>((resolve) => (this.resolveEnded = resolve));

  constructor(
    private readonly pglite: PGlite,
    private readonly socket: net.Socket,
    private readonly unitIdleMs: number,
    /** Answer the startup message with PostgreSQL's too-many-clients error, then close. */
    private readonly refused = false,
  ) {
    socket.setNoDelay(true);
    socket.on("data", (data: Buffer) => this.receive(data));
    socket.on("error", () => void this.end());
    socket.on("close", () => void this.end());
  }

  /** Disconnects the client (if still there) and cleans up after it, once. */
  end(): Promise<void> {
    this.closing ??= (async () => {
      this.clearIdle();
      // Whatever was written still goes out (an error message); a client that does not close its side
      // in a second is cut off.
      this.socket.end();
      setTimeout(() => this.socket.destroy(), 1_000).unref();
      // The message running now finishes first; the ones after it are dropped (see run()).
      await this.chain;
      await this.cleanUp().catch(() => {});
      this.resolveEnded();
    })();
    return this.closing;
  }

  /**
   * Cuts `data` into messages and queues them. Only a whole message counts as a sign of life for the idle
   * limit: the first bytes of one do not (a client stopped half-way through a message, or trickling a byte at
   * a time, would otherwise hold the locks for ever), so they neither clear nor extend the timer.
   */
  private receive(data: Buffer): void {
    if (this.closing) return;
    this.input = this.input.length ? Buffer.concat([this.input, data]) : data;
    let whole = false;
    for (;;) {
      const message = this.nextMessage();
      if (!message) break;
      whole = true;
      this.queued++;
      // A message that fails to run (PGlite closed under it) ends the session; the chain never rejects.
      this.chain = this.chain
        .then(() => this.run(message))
        .catch(() => void this.end())
        .finally(() => this.queued--);
    }
    // run() arms the timer again after the last queued message if the unit is still open.
    if (whole) this.clearIdle();
    // Part of a message inside a unit, nothing to run: the timer (set after the last whole message) keeps
    // running; armed here only if it somehow is not.
    else if (this.release && this.queued === 0 && !this.idleTimer && !this.closing) this.armIdle();
  }

  /** Cuts the next whole message off the input: the startup packet (no type byte), then typed messages. */
  private nextMessage(): Buffer | null {
    const at = this.started ? 1 : 0;
    if (this.input.length < at + 4) return null;
    const length = at + this.input.readInt32BE(at);
    if (length < at + 4) {
      void this.end(); // not the PostgreSQL protocol
      return null;
    }
    if (this.input.length < length) return null;
    const message = this.input.subarray(0, length);
    this.input = this.input.subarray(length);
    if (!this.started) {
      const code = message.length >= 8 ? message.readInt32BE(4) : 0;
      if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
        this.socket.write("N"); // no encryption on loopback; the client goes on in the clear
        return this.nextMessage();
      }
      if (code === CANCEL_REQUEST) {
        void this.end(); // nothing to cancel: every statement runs to its end
        return null;
      }
      if (code !== PROTOCOL_3) {
        this.socket.write(errorResponse("FATAL", "08P01", "unsupported frontend protocol"));
        void this.end();
        return null;
      }
      this.started = true;
    }
    return Buffer.from(message); // a copy: the input buffer is reused
  }

  /** Runs one message of the client inside its unit, taking PGlite's locks when a unit starts. */
  private async run(message: Buffer): Promise<void> {
    if (this.closing) return;
    if (this.refused) {
      this.socket.write(errorResponse("FATAL", "53300", "sorry, too many clients already"));
      void this.end();
      return;
    }
    if (this.started && message[0] === TERMINATE) {
      void this.end();
      return;
    }
    if (!this.release) {
      this.release = await takeLocks(this.pglite);
      // Others used the session since this client's last unit: its unnamed statement may be theirs now.
      this.unnamedIsOurs = false;
    }
    if (this.closing) return; // left while waiting: cleanUp() gives the locks back
    this.track(message);
    if (!this.unnamedIsOurs && usesUnnamedStatement(message) && this.unnamedParse) {
      // Parsed again as this client left it; the client hears of it only if it fails (not its ParseComplete).
      await this.exec(this.unnamedParse, (bytes) => {
        if (bytes[0] !== PARSE_COMPLETE && !this.socket.destroyed) this.socket.write(bytes);
      });
      this.unnamedIsOurs = true;
    }
    const ready = await this.exec(message, (bytes) => {
      if (!this.socket.destroyed) this.socket.write(bytes);
    });
    if (ready === IDLE) this.endUnit();
    else if (!this.closing && this.queued === 1) this.armIdle(); // inside a unit, and nothing more to run
  }

  /**
   * Runs `message` on PGlite (the caller holds the locks) and hands the answer's bytes to `write` while it
   * runs. PGlite keeps the output callback of its last raw call, so the callback stops writing when the call
   * returns: an app call that used it later would otherwise write the app's rows to this client.
   * @returns the status of the last ReadyForQuery in the answer, or null when there was none
   */
  private async exec(message: Buffer, write: (bytes: Buffer) => void): Promise<number | null> {
    let live = true;
    this.answer.lastReady = null;
    try {
      await this.pglite.execProtocolRawStream(new Uint8Array(message), {
        onRawData: (bytes) => {
          if (!live) return;
          // A view into PGlite's WebAssembly memory, which its next write reuses: a socket that cannot
          // send at once keeps what it was given, so it gets a copy.
          const copy = Buffer.from(bytes);
          this.answer.read(copy);
          write(copy);
        },
      });
    } finally {
      live = false;
    }
    return this.answer.lastReady;
  }

  /**
   * Remembers the named statements the client prepares (Parse) and closes (Close 'S'), and its last Parse
   * of the unnamed statement.
   */
  private track(message: Buffer): void {
    if (message[0] === PARSE && message[5] === 0) {
      this.unnamedParse = message;
      this.unnamedIsOurs = true;
      return;
    }
    if (message[0] === QUERY) this.unnamedParse = null; // a simple Query drops the unnamed statement
    if (message[0] !== PARSE && message[0] !== CLOSE) return;
    const from = message[0] === PARSE ? 5 : 6;
    if (message[0] === CLOSE && message[5] !== 0x53) return; // closes a portal
    const name = message.toString("utf8", from, message.indexOf(0, from));
    if (!name) return;
    if (message[0] === PARSE) this.statements.add(name);
    else this.statements.delete(name);
  }

  /** The session is idle again: the app and the other clients may go on. */
  private endUnit(): void {
    this.clearIdle();
    const release = this.release;
    this.release = null;
    release?.();
    announceSocketWrite(this.pglite);
  }

  private armIdle(): void {
    this.clearIdle();
    this.idleTimer = setTimeout(() => {
      this.socket.write(errorResponse("FATAL", "25P03", "terminating connection: idle inside a unit of work"));
      void this.end();
    }, this.unitIdleMs);
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /**
   * After the client left: ends what it left open in the session (an extended-protocol exchange, a
   * transaction), drops its named statements, then gives the locks back. Takes the locks when it does
   * not hold them and has statements to drop.
   */
  private async cleanUp(): Promise<void> {
    if (!this.release && this.statements.size === 0) return;
    const held = Boolean(this.release);
    if (!this.release) this.release = await takeLocks(this.pglite);
    try {
      const discard = () => {};
      if (held) {
        await this.exec(wireMessage("S", Buffer.alloc(0)), discard);
        if (this.pglite.isInTransaction()) await this.exec(simpleQuery("ROLLBACK"), discard);
      }
      for (const name of this.statements)
        await this.exec(simpleQuery(`DEALLOCATE "${name.replace(/"/g, '""')}"`), discard);
    } finally {
      this.endUnit();
    }
  }
}

/**
 * Takes PGlite's transaction lock, then its query lock, and keeps both until the returned function is
 * called: no app query, app transaction or other socket client runs meanwhile.
 */
function takeLocks(pglite: PGlite): Promise<() => void> {
  return new Promise((granted) => {
    void pglite._runExclusiveTransaction(() =>
      pglite.runExclusive(() => new Promise<void>((done) => granted(() => done()))),
    );
  });
}

/**
 * Follows the backend messages of an answer across the chunks PGlite hands out and records the status byte
 * of each ReadyForQuery ('Z', length 5, one status byte).
 */
class BackendReader {
  /** The status of the last ReadyForQuery read since this was last set to null. */
  lastReady: number | null = null;
  private header = Buffer.alloc(5);
  private headerBytes = 0;
  private bodyLeft = 0;
  private type = 0;

  read(bytes: Uint8Array): void {
    let i = 0;
    while (i < bytes.length) {
      if (this.bodyLeft === 0) {
        this.header[this.headerBytes++] = bytes[i++]!;
        if (this.headerBytes === 5) {
          this.headerBytes = 0;
          this.type = this.header[0]!;
          this.bodyLeft = this.header.readInt32BE(1) - 4;
        }
        continue;
      }
      const take = Math.min(this.bodyLeft, bytes.length - i);
      if (this.type === READY_FOR_QUERY && this.bodyLeft === 1) this.lastReady = bytes[i]!;
      i += take;
      this.bodyLeft -= take;
    }
  }
}

/** A protocol message: type byte, int32 length, body. */
function wireMessage(type: string, body: Buffer): Buffer {
  const message = Buffer.alloc(5 + body.length);
  message.write(type, 0, "ascii");
  message.writeInt32BE(4 + body.length, 1);
  body.copy(message, 5);
  return message;
}

/** A simple Query message. */
function simpleQuery(sql: string): Buffer {
  return wireMessage("Q", Buffer.from(`${sql}\0`, "utf8"));
}

/** An ErrorResponse ('E') with severity, SQLSTATE and message. */
function errorResponse(severity: string, code: string, text: string): Buffer {
  return wireMessage("E", Buffer.from(`S${severity}\0V${severity}\0C${code}\0M${text}\0\0`, "utf8"));
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

/** Calls the {@link onSocketWrite} listeners of `pglite`. */
function announceSocketWrite(pglite: PGlite): void {
  for (const fn of socketWriteListeners(pglite)) fn();
}

/**
 * Calls `fn` whenever a socket client (the operator CLI, scripts) ends a unit of work on `pglite`, i.e.
 * whenever such a client may have committed a change. Used by the embedded change listener
 * (db/change-listener.ts) because the NOTIFY of a socket client's transaction goes back to that client in
 * its protocol stream, never to this process's `pglite.listen`. Kept on globalThis so that Next.js's
 * bundled copy of this module and the server's see one registry.
 * @returns a function that removes `fn`
 */
export function onSocketWrite(pglite: PGlite, fn: () => void): () => void {
  const set = socketWriteListeners(pglite);
  set.add(fn);
  return () => set.delete(fn);
}
