// The bench's read p99 line (issue 68 item 3): relative to the framework's own tail in the same round.
// A read's p99 was held to an absolute line (50 ms on PostgreSQL, 100 ms embedded), which the host decided
// more than our code: on this project's VMs GET /api/health, which runs none of our request path, had a p99
// of 21-164 ms from one run to the next. The framework's tail is not ours to remove, so each read is now held
// to a multiple of the p99 of GET /api/health measured just before and just after it, on the same app.

/** A read's p99 may be at most this many times GET /api/health's p99 measured around it. */
export const P99_TARGET_FACTOR = 1.5;

/**
 * The p99 line of one read row: {@link P99_TARGET_FACTOR} × the mean of the p99s of GET /api/health measured
 * just before and just after it (one figure when only one was measured).
 * @param healthP99s GET /api/health's p99 around the row, ms (one or two figures)
 * @returns the row's p99 line, ms
 * @throws Error when no health p99 is given or one is not a positive number
 */
export function p99Line(healthP99s: readonly number[]): number {
  if (healthP99s.length === 0 || healthP99s.some((x) => !(x > 0)))
    throw new Error(`p99Line needs GET /api/health's p99 around the row, got [${healthP99s.join(", ")}]`);
  return (P99_TARGET_FACTOR * healthP99s.reduce((a, b) => a + b, 0)) / healthP99s.length;
}

/**
 * A read's p99 against its line, as the results write it.
 * @param p99 the read's p99, ms
 * @param healthP99s GET /api/health's p99 around the row, ms
 * @returns its multiple of health's p99 (`p99 ÷ mean health p99`), its line in ms, and whether it is met
 */
export function p99Verdict(
  p99: number,
  healthP99s: readonly number[],
): { multiple: number; line: number; met: boolean } {
  const line = p99Line(healthP99s);
  return { multiple: (p99 * P99_TARGET_FACTOR) / line, line, met: p99 <= line };
}
