/** What a hidden competitor name or domain reads as (spec "Strategist resources": competitor names are hidden). */
export const COMPETITOR_PLACEHOLDER = "a competitor";

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Builds a masker that replaces every case-insensitive occurrence of any of `names` with "a competitor".
 * Longer names are tried first so "Rival Sport Pro" is not left as "a competitor Pro". Blank names are ignored.
 */
export function competitorMasker(names: readonly (string | null | undefined)[]): (text: string) => string {
  const clean = [...new Set(names.filter((n): n is string => typeof n === "string" && n.trim().length > 0))].sort(
    (a, b) => b.length - a.length,
  );
  if (!clean.length) return (text) => text;
  const re = new RegExp(clean.map(escapeRegExp).join("|"), "gi");
  return (text) => text.replace(re, COMPETITOR_PLACEHOLDER);
}

/** Walks a JSON value and masks every string in it (object keys stay: they are field names, not texts). */
export function maskJson<T>(value: T, mask: (text: string) => string): T {
  if (typeof value === "string") return mask(value) as T;
  if (Array.isArray(value)) return value.map((v) => maskJson(v, mask)) as T;
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskJson(v, mask)])) as T;
  }
  return value;
}
