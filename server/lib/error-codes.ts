/**
 * Whether `err` or an error in its `cause` chain (five deep at most) carries one of `codes` as its `code`:
 * a PostgreSQL SQLSTATE (`23505`), a Node.js system error (`ECONNREFUSED`) or a driver's own code. drizzle
 * wraps a driver's error in its own, so the database's code is usually one cause down.
 */
export function hasErrorCode(err: unknown, codes: string | ReadonlySet<string>): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; depth++) {
    if (typeof e.code === "string" && (typeof codes === "string" ? e.code === codes : codes.has(e.code))) return true;
    e = e.cause as typeof e;
  }
  return false;
}
