import fc from "fast-check";
import { z } from "zod";

// Helpers of the control-character tests (issue 76 item 4): where a schema takes text, and values full of
// control characters to put there.

type Json = Record<string, unknown>;

/**
 * JSON Pointers of every place an input schema takes a string: each property whose type admits a string
 * (a `string`, a string `enum`, or any value at all), through nested objects, `anyOf`/`oneOf` members and
 * `$ref`s, with array items at index 0 (`/buttons/0/label`). Read from the schema's JSON Schema (input
 * side), so a field added to a route or procedure is covered without anyone listing it.
 */
export function stringFields(schema: z.ZodType): string[] {
  const doc = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Json;
  const defs = (doc.$defs ?? {}) as Record<string, Json>;
  const out = new Set<string>();
  const walk = (s: Json, at: string, depth: number) => {
    if (depth > 8) return;
    if (typeof s.$ref === "string") return walk(defs[s.$ref.replace("#/$defs/", "")] ?? {}, at, depth + 1);
    const members = [...((s.anyOf as Json[]) ?? []), ...((s.oneOf as Json[]) ?? []), ...((s.allOf as Json[]) ?? [])];
    for (const m of members) walk(m, at, depth + 1);
    const types = s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];
    const any = s.type === undefined && !members.length && !s.$ref && !s.properties && !s.enum && !("const" in s);
    if (types.includes("string") || any || (Array.isArray(s.enum) && s.enum.some((v) => typeof v === "string")))
      if (at) out.add(at);
    if (s.properties)
      for (const [k, p] of Object.entries(s.properties as Record<string, Json>))
        walk(p, `${at}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`, depth + 1);
    if (s.items && typeof s.items === "object") walk(s.items as Json, `${at}/0`, depth + 1);
  };
  walk(doc, "", 0);
  return [...out];
}

/**
 * A deep copy of `base` with `value` at `pointer`, making the objects and arrays on the way that `base`
 * lacks (an array where the next token is a number).
 */
export function withValueAt(base: unknown, pointer: string, value: unknown): unknown {
  const tokens = pointer
    .split("/")
    .slice(1)
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
  const root: unknown = structuredClone(base ?? (/^\d+$/.test(tokens[0] ?? "") ? [] : {}));
  let node = root as Record<string, unknown>;
  tokens.forEach((t, i) => {
    if (i === tokens.length - 1) node[t] = value;
    else {
      if (typeof node[t] !== "object" || node[t] === null) node[t] = /^\d+$/.test(tokens[i + 1]) ? [] : {};
      node = node[t] as Record<string, unknown>;
    }
  });
  return root;
}

/** Every C0 control, DEL, a C1 control, U+2028, and both halves of a surrogate pair alone. */
export const CONTROL_CHARACTERS = [
  ...Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)),
  "\u007f",
  "\u0085",
  "\u2028",
  "\ud800",
  "\udfff",
];

/** Text made of control characters and ordinary text (emoji included), in any order; possibly empty. */
export const controlText = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...CONTROL_CHARACTERS) },
      { weight: 2, arbitrary: fc.string({ maxLength: 4 }) },
      { weight: 1, arbitrary: fc.constantFrom("😀", "é", "Ж", " ") },
    ),
    { maxLength: 8 },
  )
  .map((parts) => parts.join(""));

/** What a client library sends of a string it puts in a URL: UTF-8, an unpaired surrogate as U+FFFD. */
export function asSentInUrl(s: string): string {
  return s.replace(/\p{Cs}/gu, "\ufffd");
}
