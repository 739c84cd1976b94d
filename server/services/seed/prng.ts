/** Deterministic pseudo-random numbers of a seed: `next` in [0, 1), `int(n)` in [0, n), `pick` of a list. */
export interface Prng {
  next(): number;
  int(n: number): number;
  pick<T>(xs: readonly T[]): T;
}

/** Deterministic pseudo-random numbers (mulberry32), so every run of a seed with the same number has the same shape. */
export function prng(seed: number): Prng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)],
  };
}
