import { describe, expect, it } from "vitest";
import { P99_TARGET_FACTOR, p99Line, p99Verdict } from "./p99-target";

describe("the read p99 line (issue 68 item 3)", () => {
  it("is 1.5 × the mean of GET /api/health's p99 just before and after the read", () => {
    expect(P99_TARGET_FACTOR).toBe(1.5);
    expect(p99Line([30, 34])).toBe(48);
    expect(p99Line([40])).toBe(60);
  });

  it("meets a read at its line and misses one over it, whatever the absolute figure", () => {
    // A slow host: health's own p99 at 80 ms, a read at 110 ms is within its line (120 ms).
    expect(p99Verdict(110, [80, 80])).toEqual({ multiple: 1.375, line: 120, met: true });
    expect(p99Verdict(120, [80, 80]).met).toBe(true);
    // A fast host: health at 20 ms, a read at 31 ms is over its line (30 ms), under the old 50 ms one.
    const fast = p99Verdict(31, [19, 21]);
    expect(fast.met).toBe(false);
    expect(fast.line).toBe(30);
    expect(fast.multiple).toBeCloseTo(1.55, 10);
  });

  it("refuses a row without a health p99 around it", () => {
    expect(() => p99Line([])).toThrow(/GET \/api\/health's p99/);
    expect(() => p99Line([0, 30])).toThrow(/got \[0, 30\]/);
    expect(() => p99Line([Number.NaN])).toThrow();
  });
});
