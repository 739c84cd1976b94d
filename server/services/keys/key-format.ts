import { hash, randomBytes, timingSafeEqual } from "node:crypto";
import { CELLS, type Cell } from "@/server/env";

/**
 * API key strings: `sk_<mode>_<cell>_<id20>_<secret40>`.
 * The prefix carries mode and cell so that a cell recognises another cell's key without a shared
 * database (DESIGN "Decisions"); `key_id` = `kid_<id20>` is public; only SHA-256(secret) is stored.
 */
const KEY_RE = /^sk_(live|test)_(ru|en|id)_([a-z2-7]{20})_([A-Za-z0-9]{40})$/;
const B32 = "abcdefghijklmnopqrstuvwxyz234567";
const B62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

export type KeyMode = "live" | "test";

/** The parts of a well-formed key string. */
export interface ParsedKey {
  mode: KeyMode;
  cell: Cell;
  keyId: string;
  secret: string;
}

function randomString(alphabet: string, length: number): string {
  // Rejection sampling keeps every character uniform.
  const out: string[] = [];
  const limit = 256 - (256 % alphabet.length);
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < limit && out.length < length) out.push(alphabet[b % alphabet.length]);
    }
  }
  return out.join("");
}

/** Makes a new key; `key` is shown once and never stored. */
export function generateKey(mode: KeyMode, cell: Cell): { key: string; keyId: string; secretHash: string } {
  const id = randomString(B32, 20);
  const secret = randomString(B62, 40);
  return { key: `sk_${mode}_${cell}_${id}_${secret}`, keyId: `kid_${id}`, secretHash: hashSecret(secret) };
}

/** Parses a presented key; null when it is not of our format (answered as `invalid_api_key`). */
export function parseKey(key: string): ParsedKey | null {
  const m = KEY_RE.exec(key);
  if (!m || !(CELLS as readonly string[]).includes(m[2])) return null;
  return { mode: m[1] as KeyMode, cell: m[2] as Cell, keyId: `kid_${m[3]}`, secret: m[4] };
}

/** Hex SHA-256 of a key's secret part. */
export function hashSecret(secret: string): string {
  // crypto.hash, one call without a Hash object: every request hashes its key's secret (issue 22).
  return hash("sha256", secret, "hex");
}

/** Constant-time comparison of a presented secret with a stored hash. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(secret), "hex");
  const b = Buffer.from(storedHash, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}
