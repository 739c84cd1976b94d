/**
 * Most bytes of row text in one statement's JSON array. Under 128 KB, V8's largest regular object: a
 * longer string goes to the large-object space, and making one (from a buffer, or by join) cost about
 * 750 µs against 25 µs for 120 KB (Node 20, measured for issue 22).
 */
export const REQUEST_LOG_ARRAY_BYTES = 100_000;

const INITIAL_BYTES = 64 * 1024;

/**
 * Rows queued as JSON text (record.ts requestLogRowText) in one off-heap buffer, each followed by a comma.
 * Why not an array of entries or strings: a row waits up to a second for its flush, long enough for V8 to
 * promote whatever holds it to the old generation, where only a full collection frees it (the rows queued
 * as entries were about 1.3 KB of promoted bytes a request, npm run bench, issue 22); bytes in a `Buffer`
 * are outside the JavaScript heap, and the row's text dies young.
 */
export class RowBuffer {
  private bytes = Buffer.allocUnsafe(INITIAL_BYTES);
  private used = 0;
  /** Byte offset just past each row's comma. */
  private readonly ends: number[] = [];

  get rows(): number {
    return this.ends.length;
  }

  add(text: string): void {
    // At most 3 bytes a UTF-16 unit, and the comma: room without measuring the text first.
    const room = this.used + text.length * 3 + 1;
    if (room > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(room, this.bytes.length * 2));
      this.bytes.copy(grown, 0, 0, this.used);
      this.bytes = grown;
    }
    this.used += this.bytes.write(text, this.used);
    this.bytes[this.used++] = 0x2c; // ","
    this.ends.push(this.used);
  }

  /**
   * The queued rows as JSON array texts of at most {@link REQUEST_LOG_ARRAY_BYTES} bytes of rows each (a
   * longer row goes alone), in arrival order, with the number of rows in each; empties the buffer.
   */
  take(): { json: string; rows: number }[] {
    const arrays: { json: string; rows: number }[] = [];
    let start = 0;
    let first = 0;
    while (first < this.ends.length) {
      let last = first;
      while (last + 1 < this.ends.length && this.ends[last + 1] - start <= REQUEST_LOG_ARRAY_BYTES) last++;
      const end = this.ends[last];
      arrays.push({ json: `[${this.bytes.toString("utf8", start, end - 1)}]`, rows: last - first + 1 });
      start = end;
      first = last + 1;
    }
    this.used = 0;
    this.ends.length = 0;
    // A burst may have grown it to megabytes (capacity × a row); the usual batch needs far less.
    if (this.bytes.length > INITIAL_BYTES * 16) this.bytes = Buffer.allocUnsafe(INITIAL_BYTES);
    return arrays;
  }
}
