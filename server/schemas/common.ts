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
