import type { FieldError } from "@/server/errors";

/**
 * Characters no text sent to us may hold (issue 76 item 4), in any string of a body, a query parameter,
 * a path parameter or a console call, and in any object key:
 * - U+0000: PostgreSQL refuses it in `text` and in `jsonb`, so it used to reach the INSERT and answer 500;
 * - the other C0 controls U+0001 to U+001F except tab, line feed and carriage return: no person types
 *   them, no client has a reason to send them, and they corrupt what we show and export (a terminal
 *   escape in the admin CLI's output, a form feed or backspace in a CSV export, an invalid XML 1.0
 *   character in a feed); tab, line feed and carriage return are ordinary in free text and stay allowed;
 * - unpaired UTF-16 surrogates (a lone `\ud800` in JSON): they have no UTF-8 form, so the database would
 *   store U+FFFD instead and answer something other than what was sent.
 * DEL (U+007F) and the C1 controls are printable-safe for every store and output we have and are kept.
 */
export const REFUSED_CHARACTER = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]|\p{Cs}/u;

/** Field error code of a string holding a {@link REFUSED_CHARACTER}. */
export const REFUSED_CHARACTER_CODE = "invalid_character";

/** Message of that field error. */
export const REFUSED_CHARACTER_MESSAGE =
  "must not contain control characters (U+0000 to U+001F other than tab, line feed and carriage return) or unpaired surrogates";

/** At most this many field errors are reported for one input; a body full of them answers no larger. */
export const MAX_REFUSED_CHARACTER_ERRORS = 20;

/** A path step of the walk, linked to its parent so no pointer text is built unless a string is refused. */
interface Step {
  parent: Step | null;
  key: string;
}

/** An object or array being walked: its keys (null for an array), its length (arrays) and the next index. */
interface Frame {
  value: object;
  keys: string[] | null;
  length: number;
  next: number;
  at: Step | null;
}

function pointerOf(step: Step | null): string {
  const keys: string[] = [];
  for (let s = step; s; s = s.parent) keys.push(s.key);
  let out = "";
  for (let i = keys.length - 1; i >= 0; i--) out += "/" + keys[i].replace(/~/g, "~0").replace(/\//g, "~1");
  return out;
}

/**
 * Field errors for every string (and object key) of `input` that holds a {@link REFUSED_CHARACTER}, in
 * document order: `{field, code: "invalid_character", message}` with `field` the RFC 6901 pointer of the
 * string (of the key itself for a key), `""` when `input` is such a string. Walks parsed JSON (plain
 * objects, arrays, primitives) without recursion, so nesting of any depth costs no stack; stops after
 * {@link MAX_REFUSED_CHARACTER_ERRORS}. The one check every door's input passes (the public API's
 * `check` in ./validation.ts, the console's base tRPC procedure), whatever its schema: a string field
 * built with a plain `z.string()`, a record key, an open JSON value.
 * @returns [] when every string is clean
 */
export function refusedCharacterErrors(input: unknown): FieldError[] {
  const out: FieldError[] = [];
  const refuse = (at: Step | null) =>
    out.push({ field: pointerOf(at), code: REFUSED_CHARACTER_CODE, message: REFUSED_CHARACTER_MESSAGE });
  if (typeof input === "string") {
    if (REFUSED_CHARACTER.test(input)) refuse(null);
    return out;
  }
  if (typeof input !== "object" || input === null) return out;
  // Depth first in document order, with an explicit stack of frames (one per open object or array).
  const frame = (value: object, at: Step | null): Frame => ({
    value,
    keys: Array.isArray(value) ? null : Object.keys(value),
    length: Array.isArray(value) ? value.length : 0,
    next: 0,
    at,
  });
  const stack: Frame[] = [frame(input, null)];
  while (stack.length && out.length < MAX_REFUSED_CHARACTER_ERRORS) {
    const f = stack[stack.length - 1];
    if (f.next >= (f.keys ? f.keys.length : f.length)) {
      stack.pop();
      continue;
    }
    const i = f.next++;
    const name = f.keys?.[i];
    // A path step is made only for what is refused or walked into: a clean string costs none.
    if (name !== undefined && REFUSED_CHARACTER.test(name)) {
      refuse({ parent: f.at, key: name });
      continue;
    }
    const child = name !== undefined ? (f.value as Record<string, unknown>)[name] : (f.value as unknown[])[i];
    if (typeof child === "string") {
      if (REFUSED_CHARACTER.test(child)) refuse({ parent: f.at, key: name ?? String(i) });
    } else if (typeof child === "object" && child !== null)
      stack.push(frame(child, { parent: f.at, key: name ?? String(i) }));
  }
  return out;
}
