import { describe, expect, it } from "vitest";
import { REQUEST_LOG_ARRAY_BYTES, RowBuffer } from "./row-buffer";

const row = (i: number, pad = 0) => JSON.stringify({ q: `req_${i}`, p: `/p/"ü€😀\\${"x".repeat(pad)}` });

describe("RowBuffer", () => {
  it("gives back every row, in order, as JSON arrays under the byte limit", () => {
    const b = new RowBuffer();
    // About 120 KB of rows: two arrays, and the buffer grown past its first 64 KB.
    const n = 2_000;
    for (let i = 0; i < n; i++) b.add(row(i, i % 50));
    expect(b.rows).toBe(n);
    const arrays = b.take();
    expect(arrays.length).toBeGreaterThan(1);
    for (const a of arrays) expect(Buffer.byteLength(a.json) - 2).toBeLessThanOrEqual(REQUEST_LOG_ARRAY_BYTES);
    expect(arrays.reduce((s, a) => s + a.rows, 0)).toBe(n);
    const back = arrays.flatMap((a) => JSON.parse(a.json) as unknown[]);
    expect(back).toEqual(Array.from({ length: n }, (_, i) => JSON.parse(row(i, i % 50))));
    expect(b.rows).toBe(0);
    expect(b.take()).toEqual([]);
  });

  it("sends a row longer than the limit alone, and starts empty after a take", () => {
    const b = new RowBuffer();
    b.add(row(1));
    b.add(row(2, REQUEST_LOG_ARRAY_BYTES));
    b.add(row(3));
    const arrays = b.take();
    expect(arrays.map((a) => a.rows)).toEqual([1, 1, 1]);
    expect(JSON.parse(arrays[1].json)).toEqual([JSON.parse(row(2, REQUEST_LOG_ARRAY_BYTES))]);
    b.add(row(4));
    expect(b.take()).toEqual([{ json: `[${row(4)}]`, rows: 1 }]);
  });
});
