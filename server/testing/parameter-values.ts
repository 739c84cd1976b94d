import type { Json } from "./openapi-lookup";

// Only plain code here: the e2e tests load this file in the Playwright process, without the server.

/**
 * Where a parameter's text came from: the values of a query name (one per repetition), a path
 * segment (percent-decoded) or a header line.
 */
export type RawParameter = { in: "query"; values: string[] } | { in: "path" | "header"; value: string };

/**
 * The candidate JSON values of one parameter as OpenAPI parameter serialization defines them (OpenAPI
 * 3.1 §4.8.12.4 "Style Values"): the text is split by the parameter's `style` and `explode` (query
 * default `form` + explode, path and header default `simple`), and each piece is coerced to the schema's
 * declared type: a `limit` declared `{type: "string", pattern: "^\d+$"}` stays `"5"`, one declared
 * `{type: "integer"}` becomes `5`. A schema that allows several types (a `type` list, `anyOf`/`oneOf`)
 * yields one candidate per reading; the value matches when any candidate does.
 * @returns candidates, most specific first; an error text when the serialization is not one the tests use
 *   (objects, `content` parameters), so a new kind of parameter fails loudly instead of passing unchecked.
 */
export function parameterCandidates(param: Json, schema: Json, raw: RawParameter): unknown[] | { error: string } {
  const style = (param.style as string | undefined) ?? (raw.in === "query" ? "form" : "simple");
  const explode = (param.explode as boolean | undefined) ?? style === "form";
  const types = declaredTypes(schema);
  if (types.has("object")) return { error: `object parameters (style ${style}) are not checked by the test validator` };
  if (types.has("array")) {
    const pieces = arrayPieces(style, explode, raw);
    if (typeof pieces === "string") return { error: pieces };
    const item = (schema.items as Json | undefined) ?? {};
    const itemTypes = declaredTypes(item);
    return [pieces.map((p) => coerce(p, itemTypes)[0])];
  }
  if (raw.in === "query") {
    // A primitive given twice has no serialized form: keep the list so the schema refuses it.
    if (raw.values.length !== 1) return [raw.values];
    return coerce(raw.values[0], types);
  }
  return coerce(unprefixed(style, raw.value, String(param.name)), types);
}

/** The JSON types a schema admits: its `type` (one or a list), the members of `anyOf`/`oneOf`, or the kinds of its `const`/`enum`. */
export function declaredTypes(schema: Json): Set<string> {
  const out = new Set<string>();
  const add = (s: Json) => {
    const t = s.type;
    if (typeof t === "string") out.add(t);
    else if (Array.isArray(t)) t.forEach((x) => out.add(String(x)));
    for (const k of ["anyOf", "oneOf", "allOf"] as const) if (Array.isArray(s[k])) (s[k] as Json[]).forEach(add);
    if ("const" in s) out.add(kindOf(s.const));
    if (Array.isArray(s.enum)) s.enum.forEach((v) => out.add(kindOf(v)));
  };
  add(schema);
  if (out.has("integer")) out.add("number");
  return out;
}

const NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** Readings of one text for the declared types, typed ones first; the text itself last when a string is allowed (or nothing else fits). */
function coerce(text: string, types: Set<string>): unknown[] {
  const out: unknown[] = [];
  if (types.has("number") && NUMBER.test(text)) out.push(Number(text));
  if (types.has("boolean") && (text === "true" || text === "false")) out.push(text === "true");
  if (types.has("null") && (text === "" || text === "null")) out.push(null);
  if (types.has("string") || types.size === 0 || out.length === 0) out.push(text);
  return out;
}

function arrayPieces(style: string, explode: boolean, raw: RawParameter): string[] | string {
  if (raw.in === "query") {
    if (explode && style === "form") return raw.values;
    if (raw.values.length !== 1)
      return `array query parameter given ${raw.values.length} times with style ${style}, explode false`;
    const sep = { form: ",", spaceDelimited: " ", pipeDelimited: "|" }[style];
    return sep
      ? raw.values[0].split(sep)
      : `array query parameters with style ${style} are not checked by the test validator`;
  }
  if (style !== "simple") return `array ${raw.in} parameters with style ${style} are not checked by the test validator`;
  return raw.value.split(",");
}

/** Path values of `label` (`.v`) and `matrix` (`;name=v`) styles carry a prefix. */
function unprefixed(style: string, value: string, name: string): string {
  if (style === "label" && value.startsWith(".")) return value.slice(1);
  if (style === "matrix" && value.startsWith(`;${name}=`)) return value.slice(name.length + 2);
  return value;
}

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v === "number" ? (Number.isInteger(v) ? "integer" : "number") : typeof v;
}
