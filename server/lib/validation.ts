import type { z } from "zod";
import { ApiError, type FieldError } from "@/server/errors";
import { refusedCharacterErrors } from "./control-characters";

/** RFC 6901 pointer of a path: ["buttons", 0, "url"] → "/buttons/0/url"; [] → "" (the whole document). */
export function toPointer(path: readonly PropertyKey[]): string {
  return path.map((p) => "/" + String(p).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
}

/** Maps one zod issue to the catalog's field error codes (`required`, `out_of_range`, `invalid_format`, ...). */
function codeOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined ? "required" : "invalid_type";
    case "too_big":
    case "too_small": {
      const o = issue.origin;
      if (o === "string") return issue.code === "too_big" ? "too_long" : "too_short";
      if (o === "array" || o === "set") return issue.code === "too_big" ? "too_many" : "too_few";
      return "out_of_range";
    }
    case "invalid_format":
      return "invalid_format";
    case "invalid_value":
      return "invalid_value";
    case "unrecognized_keys":
      return "unknown_field";
    case "invalid_union":
      return "invalid_value";
    case "custom":
      return typeof issue.params?.code === "string" ? issue.params.code : "invalid_value";
    default:
      return "invalid_value";
  }
}

/** Zod issues → `errors[]`; an unknown key is reported at its own pointer. */
export function fieldErrors(issues: readonly z.core.$ZodIssue[], prefix: PropertyKey[] = []): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      for (const k of issue.keys) {
        out.push({
          field: toPointer([...prefix, ...issue.path, k]),
          code: "unknown_field",
          message: `Unknown field "${k}".`,
        });
      }
      continue;
    }
    out.push({ field: toPointer([...prefix, ...issue.path]), code: codeOf(issue), message: issue.message });
  }
  return out;
}

/**
 * Parses with a schema or collects its field errors. Every string of the input (and every object key) is
 * first checked for characters no text may hold (./control-characters.ts, issue 76 item 4): such a string
 * is a field error `invalid_character` at its pointer whatever the schema says, so no field, however its
 * schema was built, carries U+0000 to the database. The schema's own errors follow, except on fields
 * already refused for their characters. `itemsJudgedUnder` (a pointer, e.g. `/events`): characters inside
 * that array's items are left to the caller, which judges each item alone (issue 74, `POST /intake/events`).
 */
export function check<T>(
  schema: z.ZodType<T>,
  input: unknown,
  opts: { itemsJudgedUnder?: string } = {},
): { ok: true; value: T } | { ok: false; errors: FieldError[] } {
  const under = opts.itemsJudgedUnder === undefined ? null : `${opts.itemsJudgedUnder}/`;
  const refused = refusedCharacterErrors(input).filter((e) => under === null || !e.field.startsWith(under));
  // reportInput: zod 4 leaves `input` off issues by default, and without it a wrong type reads as `required`.
  const r = schema.safeParse(input, { reportInput: true });
  if (!refused.length)
    return r.success ? { ok: true, value: r.data } : { ok: false, errors: fieldErrors(r.error.issues) };
  if (r.success) return { ok: false, errors: refused };
  const named = new Set(refused.map((e) => e.field));
  return { ok: false, errors: [...refused, ...fieldErrors(r.error.issues).filter((e) => !named.has(e.field))] };
}

/** The 422 for a list of field errors; the detail names the first one. */
export function validationError(errors: FieldError[]): ApiError {
  const first = errors[0];
  const detail =
    errors.length === 1
      ? `${first.field || "The body"}: ${first.message}`
      : `${errors.length} fields are invalid; see errors.`;
  return new ApiError("validation_failed", detail, { errors });
}
