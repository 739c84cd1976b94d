import { sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";

/**
 * A `timestamptz` column as the text `Date.prototype.toISOString` writes for it (`2026-11-25T04:10:15.123Z`,
 * UTC, milliseconds), formatted by PostgreSQL; NULL stays NULL. For the JSON that hot list queries build
 * in SQL (server/services/leads/lead-view.ts, server/services/cards/cards.ts): the app then makes no
 * `Date` per value. Exact for our `timestamptz(3)` columns, years 0001 to 9999.
 */
export function isoText(column: AnyPgColumn): SQL<string | null> {
  return sql<string | null>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
