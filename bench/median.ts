// Medians of the bench's repeated measurements: --compare's rounds (bench/compare.ts) and the rounds of a
// row with a ratio target in a full run (bench/run.ts).

/** The median of `xs` (the mean of the two middle values for an even count); NaN when empty. */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * The index in `xs` of its median value: the middle one of an odd count, the lower middle one of an even
 * count (a measured round, not a mean of two). Ties keep the earlier index; NaN values sort last.
 * @throws Error when `xs` is empty
 */
export function medianIndex(xs: readonly number[]): number {
  if (xs.length === 0) throw new Error("medianIndex of no values");
  const order = xs
    .map((x, i) => i)
    .sort((a, b) => {
      const x = xs[a]!;
      const y = xs[b]!;
      if (Number.isNaN(x) || Number.isNaN(y)) return Number(Number.isNaN(x)) - Number(Number.isNaN(y)) || a - b;
      return x - y || a - b;
    });
  return order[(xs.length - 1) >> 1]!;
}
