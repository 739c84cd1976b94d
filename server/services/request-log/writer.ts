import type { Db } from "@/db/client";
import { getDb } from "@/db/client";
import { env } from "@/server/env";
import { log } from "@/server/log";
import { requestLogRowText, writeRequestLogRows, type RequestLogEntry } from "./record";
import { RowBuffer } from "./row-buffer";

/** Settings of the in-process request-log buffer. */
export interface RequestLogWriterOptions {
  /** Flush at the latest this long after the first row of a batch arrived, ms (default 1,000). */
  intervalMs?: number;
  /** Flush as soon as this many rows wait (default 500). */
  flushRows?: number;
  /** At most this many rows wait; more are dropped and counted until a flush makes room (default 20,000). */
  capacity?: number;
  /** Where rows go (default the process database). */
  db?: () => Promise<Db>;
}

/** What a writer did so far; for tests, the bench and the shutdown log line. */
export interface RequestLogStats {
  written: number;
  dropped: number;
  failedFlushes: number;
  /** INSERT statements run. */
  inserts: number;
}

/**
 * The request log's writer (DESIGN "Hot path": written per request, not needed by the answer, so batched
 * off the critical path). `push` only appends the row's JSON text to an in-process buffer; a flush runs
 * after `intervalMs` or at `flushRows` rows and writes the batch with one statement per JSON array of
 * {@link RowBuffer.take} (server/services/request-log/record.ts).
 * Bounded: past `capacity` rows waiting (the database slower than the traffic) new rows are dropped and
 * counted, so memory stays flat. A failed flush is logged and its rows are dropped; it never reaches a
 * request. Rows still buffered when the process is killed (SIGKILL) are lost: the log is an aid, not a
 * ledger. One flush runs at a time.
 */
export class RequestLogWriter {
  private readonly buffer = new RowBuffer();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private flushing: Promise<void> = Promise.resolve();
  /** A flush is chained but has not taken its batch yet: rows pushed now go with it. */
  private queued = false;
  private readonly intervalMs: number;
  private readonly flushRows: number;
  private readonly capacity: number;
  private readonly db: () => Promise<Db>;
  readonly stats: RequestLogStats = { written: 0, dropped: 0, failedFlushes: 0, inserts: 0 };

  constructor(opts: RequestLogWriterOptions = {}) {
    this.intervalMs = opts.intervalMs ?? 1_000;
    this.flushRows = opts.flushRows ?? 500;
    this.capacity = opts.capacity ?? 20_000;
    this.db = opts.db ?? getDb;
  }

  /** Queues one row; returns at once (no I/O). */
  push(entry: RequestLogEntry): void {
    if (this.buffer.rows >= this.capacity) {
      this.stats.dropped++;
      return;
    }
    this.buffer.add(requestLogRowText(entry));
    if (this.buffer.rows >= this.flushRows) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.intervalMs);
      // A waiting batch never keeps a process (a script, a test) alive; shutdown calls flush itself.
      this.timer.unref?.();
    }
  }

  /** Rows waiting for the next flush. */
  get pending(): number {
    return this.buffer.rows;
  }

  /**
   * Writes what is buffered now (after any flush in progress). Never rejects: a failure is logged with
   * the number of rows lost.
   */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.queued) return this.flushing;
    this.queued = true;
    const next = this.flushing.then(() => {
      this.queued = false;
      return this.writeBatch();
    });
    this.flushing = next;
    return next;
  }

  private async writeBatch(): Promise<void> {
    if (!this.buffer.rows) return;
    const arrays = this.buffer.take();
    let rows = arrays.reduce((n, a) => n + a.rows, 0);
    try {
      const db = await this.db();
      for (const array of arrays) {
        await writeRequestLogRows(db, array.json);
        this.stats.inserts++;
        this.stats.written += array.rows;
        rows -= array.rows;
      }
    } catch (err) {
      // `rows`: those of the array that failed and of the arrays after it.
      this.stats.failedFlushes++;
      const e = err as { message?: string; code?: string };
      log().warn(
        { rows, err: { message: e?.message?.slice(0, 300), code: e?.code } },
        "request log flush failed; rows dropped",
      );
    }
    if (this.stats.dropped) {
      log().warn({ dropped: this.stats.dropped }, "request log buffer was full; rows dropped");
      this.stats.dropped = 0;
    }
  }
}

const KEY = Symbol.for("platform.requestLog");
type Holder = { [KEY]?: RequestLogWriter | null };

/**
 * The process's writer, or null when `REQUEST_LOG=off` (the bench measures the log's cost with it on and
 * off). Kept on globalThis because Next.js bundles route modules apart from the server entry, which
 * flushes it on shutdown.
 */
export function requestLogWriter(): RequestLogWriter | null {
  const g = globalThis as Holder;
  if (g[KEY] === undefined) g[KEY] = env().requestLog ? new RequestLogWriter() : null;
  return g[KEY];
}

/** Queues one request-log row in the process's writer (nothing when the log is off). */
export function recordRequest(entry: RequestLogEntry): void {
  requestLogWriter()?.push(entry);
}

/** Writes every buffered row now (shutdown; tests). Never rejects. */
export async function flushRequestLog(): Promise<void> {
  await requestLogWriter()?.flush();
}

/** Replaces the process's writer (tests: a writer with other settings; null turns logging off). */
export function setRequestLogWriter(writer: RequestLogWriter | null | undefined): void {
  (globalThis as Holder)[KEY] = writer;
}
