import { timestamp } from "drizzle-orm/pg-core";

/**
 * A moment column: `timestamptz(3)`. Milliseconds are what a JS `Date` and the API's ISO 8601 text carry,
 * so a stored moment reads back exactly as it was written and keyset positions compare equal.
 * @param name the column's SQL name (`created_at`)
 */
export const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });
