import { z } from "zod";

/** Money on the wire (spec "Money"). */
export const MoneySchema = z.object({
  amount: z.string().regex(/^-?\d+\.\d{2}$/),
  currency: z.string().length(3),
});

/** ISO 8601 UTC timestamp with Z. */
export const Timestamp = z.iso.datetime();

/**
 * `limit` query parameter (spec "Common query parameters"): an integer 1 to 100. It arrives as text and is
 * parsed here (digits only, so `1e2`, ` 5` or `5.0` are 422 `invalid_format`, 0 and 101 `out_of_range`),
 * while the OpenAPI document declares it as what it means, `integer` with its bounds and default, so
 * generated clients take a number (`limit: 100`) and serialize it as `limit=100`.
 */
export function limitParam(defaultValue: number) {
  return z
    .string()
    .regex(/^\d+$/, "must be an integer from 1 to 100")
    .transform(Number)
    .pipe(z.number().int().min(1, "must be from 1 to 100").max(100, "must be from 1 to 100"))
    .default(defaultValue)
    .meta({ override: integerQuery({ minimum: 1, maximum: 100, default: defaultValue }) });
}

/**
 * A boolean query parameter: exactly `true` or `false` in the query string, parsed to a boolean; the
 * document declares `boolean` (spec: `include_deleted` "boolean, default false"), which clients serialize
 * as `true` / `false`.
 */
export const boolParam = z
  .enum(["true", "false"], { message: "must be true or false" })
  .transform((v) => v === "true")
  .meta({ override: typedQuery({ type: "boolean" }) });

/**
 * Rendering of a text-parsed query parameter in the OpenAPI document: the string rules zod renders for
 * the input side (`type: string`, `pattern`, `enum`) are replaced by the parameter's real type, keeping
 * everything else (description, default).
 */
function typedQuery(schema: Record<string, unknown>) {
  return ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
    for (const k of ["type", "pattern", "enum", "format", "minLength", "maxLength"]) delete jsonSchema[k];
    Object.assign(jsonSchema, schema);
  };
}

function integerQuery(bounds: { minimum: number; maximum: number; default: number }) {
  return typedQuery({ type: "integer", ...bounds });
}

/**
 * `include_deleted` of a list whose items are deleted for good (spec "Common query parameters"; spec
 * "GET /leads", "GET /articles", "Strategist reads"): `false` (the default) is accepted, `true` answers 422
 * `validation_failed` with field error `not_supported` on `/include_deleted`, since there are no tombstones
 * to return and an answer without them would read as "nothing was deleted". `what` names the items in the
 * message, e.g. "deleted leads are not stored".
 */
export function includeDeletedNotStored(what: string) {
  return boolParam
    .refine((v) => !v, {
      message: `${what}, so include_deleted=true is not supported; omit it or send false`,
      params: { code: "not_supported" },
    })
    .optional()
    .meta({ description: `only false is accepted: ${what}` });
}

/**
 * `include_deleted` of a list whose items are never deleted one by one (spec "GET /conversations":
 * "accepted, adds nothing"): `true` and `false` answer the same page. `why` is the description's reason.
 */
export function includeDeletedAddsNothing(why: string) {
  return boolParam.optional().meta({ description: `accepted, adds nothing (${why})` });
}

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

/**
 * Query of a creating request of an asynchronous operation (spec "Limits": `wait` 0 to 20 seconds, default
 * 0): how long to wait for `what` before answering 202.
 */
export function waitQuery(what: string) {
  return z.strictObject({
    wait: z
      .string()
      .regex(/^\d+$/, "must be an integer from 0 to 20")
      .transform(Number)
      .pipe(z.number().int().min(0, "must be from 0 to 20").max(20, "must be from 0 to 20"))
      .default(0)
      .meta({
        description: `seconds to wait for ${what} (0 to 20)`,
        override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
          for (const k of ["pattern", "format"]) delete jsonSchema[k];
          Object.assign(jsonSchema, { type: "integer", minimum: 0, maximum: 20, default: 0 });
        },
      }),
  });
}
