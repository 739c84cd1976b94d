import { describe, expect, it } from "vitest";
import { median, medianIndex } from "./median";

describe("median", () => {
  it("is the middle value, or the mean of the two middle values", () => {
    expect(median([0.84, 0.58, 0.79])).toBe(0.79);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});

describe("medianIndex", () => {
  it("gives the round whose value is the median", () => {
    // Rounds of 0.58, 0.84, 0.79: the row keeps the third.
    expect(medianIndex([0.58, 0.84, 0.79])).toBe(2);
    expect(medianIndex([0.7])).toBe(0);
  });

  it("takes the lower middle round of an even count and the earlier of equal values", () => {
    expect(medianIndex([0.9, 0.6, 0.8, 0.7])).toBe(3);
    expect(medianIndex([0.5, 0.5, 0.5])).toBe(1);
    expect(() => medianIndex([])).toThrow();
  });

  it("puts rounds without a figure last", () => {
    expect(medianIndex([NaN, 0.6, 0.7])).toBe(2);
  });
});
