import { z } from "zod";

/** Money on the wire (spec "Money"). */
export const MoneySchema = z.object({
  amount: z.string().regex(/^-?\d+\.\d{2}$/),
  currency: z.string().length(3),
});

/** ISO 8601 UTC timestamp with Z. */
export const Timestamp = z.iso.datetime();

/** `limit` query parameter: an integer 1 to 100 given as text (spec "Common query parameters"). */
export function limitParam(defaultValue: number) {
  return z
    .string()
    .regex(/^\d+$/, "must be an integer from 1 to 100")
    .transform(Number)
    .pipe(z.number().int().min(1, "must be from 1 to 100").max(100, "must be from 1 to 100"))
    .default(defaultValue);
}

/** A boolean query parameter: exactly `true` or `false`. */
export const boolParam = z.enum(["true", "false"], { message: "must be true or false" }).transform((v) => v === "true");

/** `cursor` query parameter: the opaque `next_cursor` of the previous page. */
export const cursorParam = z.string().min(1).max(2048);

/** A list answer `{data, next_cursor}`. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), next_cursor: z.string().nullable() });
}

/** A uuid path parameter; anything else answers 404. */
export const UuidParam = z.object({ id: z.uuid() });

/**
 * A moment in a query parameter: ISO 8601 date-time WITH a zone (`Z` or `±hh:mm`), e.g. `updated_after`
 * of `GET /conversations`. Parsed to a Date (ms precision).
 */
export const instantParam = z.iso
  .datetime({ offset: true, message: "must be an ISO 8601 date-time with a time zone, e.g. 2026-11-01T10:00:00Z" })
  .transform((v) => new Date(v));

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const dateOrInstant = z.union([z.iso.date(), z.iso.datetime({ offset: true })]);

/**
 * A date or moment in a query parameter: `YYYY-MM-DD` (midnight UTC) or an ISO 8601 date-time with a zone
 * (`Z` or `±hh:mm`), e.g. `updated_since` / `updated_after` of leads and articles; parsed to a Date.
 * Anything else, a zone-less date-time included (it would be read in an unknown zone), is a 422 field
 * error `invalid_format`.
 */
export const dateOrInstantParam = z
  .string()
  .refine((v) => dateOrInstant.safeParse(v).success, {
    message: "must be a date YYYY-MM-DD or an ISO 8601 date-time with a time zone, e.g. 2026-11-01T10:00:00Z",
    params: { code: "invalid_format" },
  })
  .transform((v) => new Date(DATE_ONLY.test(v) ? `${v}T00:00:00Z` : v));
