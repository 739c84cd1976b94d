/**
 * The rows of a raw statement's result, the same on both drivers: postgres.js answers an array of rows,
 * PGlite `{ rows }`.
 */
export function rowsOf<Row>(result: unknown): Row[] {
  return (Array.isArray(result) ? result : ((result as { rows?: unknown[] }).rows ?? [])) as Row[];
}
