import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from "node:crypto";
import { env } from "@/server/env";
import { invalidField } from "@/server/errors";
import { canonicalJson } from "@/server/lib/canonical-json";
import { nowMs } from "@/server/lib/clock";

/** Cursor lifetime, ms (spec "Limits": 24 hours). */
export const CURSOR_TTL_MS = 24 * 60 * 60 * 1000;

/** What a cursor is bound to besides its position (spec "Limits: pagination rules"). */
export interface CursorBinding {
  tenantId: string;
  keyMode: string;
  /** operationId of the list route. */
  route: string;
  /** The filter set of the walk (every query parameter except `limit` and `cursor`). */
  filters: Record<string, unknown>;
  /**
   * The signed tag of `filters`, when {@link bindCursor} made it; else each check and each signature makes
   * it again from `filters`.
   */
  tag?: string;
}

/**
 * `binding` with the tag of its filter set made once, for a request that checks the cursor it was given
 * and signs the next one (the canonical text of the filters, then a lookup or an HMAC, each time otherwise).
 */
export function bindCursor(binding: CursorBinding): CursorBinding {
  return { ...binding, tag: filterTag(binding.filters) };
}

interface Payload {
  t: string;
  m: string;
  r: string;
  f: string;
  p: unknown[];
  e: number;
}

/** The cursors' HMAC key and the app secret it was made from; a `KeyObject`, so no signature converts key text. */
let macKey: { secret: string; key: KeyObject } | null = null;

function cursorKey(): KeyObject {
  const secret = env().appSecret;
  if (macKey === null || macKey.secret !== secret)
    macKey = { secret, key: createSecretKey(Buffer.from(`cursor:${secret}`, "utf8")) };
  return macKey.key;
}

/** The MAC of `data` as a token carries it: base64url text, made by the digest itself. */
function macText(data: string): string {
  return createHmac("sha256", cursorKey()).update(data).digest("base64url");
}

/** Filter tags by the canonical text of their filters, for the secret they were signed with. */
const tags = { secret: "", byFilters: new Map<string, string>() };

function filterTag(filters: Record<string, unknown>): string {
  const clean = Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined));
  const text = canonicalJson(clean);
  // Most walks share a few filter sets (often none): their HMAC was a twentieth of a cards page's own CPU.
  if (tags.secret !== env().appSecret || tags.byFilters.size >= 1000) {
    tags.secret = env().appSecret;
    tags.byFilters.clear();
  }
  let tag = tags.byFilters.get(text);
  if (tag === undefined) {
    // The MAC's first 12 bytes: 12 is a multiple of 3, so their base64url is the text's first 16 characters.
    tag = macText(text).slice(0, 16);
    tags.byFilters.set(text, tag);
  }
  return tag;
}

/** The filter tag a cursor of `binding` carries: the one {@link bindCursor} made, else made now. */
function tagOf(binding: CursorBinding): string {
  return binding.tag ?? filterTag(binding.filters);
}

/** Makes the opaque `next_cursor` for a keyset position (the sort values of the last row, in order). */
export function encodeCursor(binding: CursorBinding, position: unknown[]): string {
  const payload: Payload = {
    t: binding.tenantId,
    m: binding.keyMode,
    r: binding.route,
    f: tagOf(binding),
    p: position,
    e: nowMs() + CURSOR_TTL_MS,
  };
  const data = Buffer.from(JSON.stringify(payload)).toString("base64url");
  return `${data}.${macText(data)}`;
}

const BAD = () =>
  invalidField(
    "/cursor",
    "invalid_cursor",
    "The cursor is invalid, expired or belongs to another walk; restart without a cursor.",
  );

/**
 * Checks a presented cursor and returns its position.
 * @throws ApiError 422 `validation_failed` on `/cursor` when it is malformed, tampered, expired, of another
 *   tenant or key mode, of another route, or its filters differ from this request's.
 */
export function decodeCursor(token: string, binding: CursorBinding): unknown[] {
  const [data, mac, extra] = token.split(".");
  if (!data || !mac || extra !== undefined) throw BAD();
  // The MAC is compared as the exact text we issued: base64 decoding is lenient (spare bits of the last
  // character, stray characters), so comparing decoded bytes would accept some altered tokens.
  const expected = Buffer.from(macText(data));
  const given = Buffer.from(mac);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw BAD();
  let p: Payload;
  try {
    p = JSON.parse(Buffer.from(data, "base64url").toString("utf8")) as Payload;
  } catch {
    throw BAD();
  }
  if (
    p.t !== binding.tenantId ||
    p.m !== binding.keyMode ||
    p.r !== binding.route ||
    p.f !== tagOf(binding) ||
    typeof p.e !== "number" ||
    p.e <= nowMs() ||
    !Array.isArray(p.p)
  ) {
    throw BAD();
  }
  return p.p;
}
