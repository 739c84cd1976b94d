/**
 * Readable text of the report's open items (issue 73 item 5: reports readable, not JSON). The spec does
 * not show the structure of highlights and concerns, so an item shows its title (`title`, else
 * `headline`), then its text (`detail`, `text`, `description` or `message`), then any other field as
 * "name: value"; a nested value is flattened the same way.
 */
const TITLE_KEYS = ["title", "headline"];
const TEXT_KEYS = ["detail", "text", "description", "message", "summary"];

/** A value as plain text: strings as they are, lists joined with "; ", objects as "name: value" pairs. */
export function plainText(v: unknown): string {
  if (v === null || v === undefined) return "—";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return v.map(plainText).join("; ");
  if (typeof v === "object")
    return Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${humanKey(k)}: ${plainText(x)}`)
      .join(", ");
  return String(v);
}

/** `expected_effect` → "Expected effect". */
export function humanKey(k: string): string {
  const s = k.replace(/_/g, " ");
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** An open item split for display: its title, its text, and its other fields as [label, text]. */
export function itemParts(item: Record<string, unknown>): {
  title: string | null;
  text: string | null;
  rest: [string, string][];
} {
  const pick = (keys: string[]) => {
    const k = keys.find((x) => typeof item[x] === "string" && (item[x] as string).trim());
    return k ? { key: k, value: item[k] as string } : null;
  };
  const title = pick(TITLE_KEYS);
  const text = pick(TEXT_KEYS);
  const used = new Set([title?.key, text?.key]);
  const rest = Object.entries(item)
    .filter(([k]) => !used.has(k))
    .map(([k, v]): [string, string] => [humanKey(k), plainText(v)]);
  return { title: title?.value ?? null, text: text?.value ?? null, rest };
}
