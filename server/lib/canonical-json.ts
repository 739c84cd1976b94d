import { createHash } from "node:crypto";

/** JSON with object keys sorted at every depth, so equal values give equal text whatever the key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

/** Hex SHA-256 of the canonical JSON of a value. */
export function fingerprint(value: unknown): string {
  return createHash("sha256")
    .update(canonicalJson(value ?? null))
    .digest("hex");
}
