import type { FieldError } from "@/server/errors";
import ipaddr from "ipaddr.js";

/**
 * IP allowlists of keys and integrations: single addresses and CIDR networks, IPv4 and IPv6, with
 * IPv4-mapped IPv6 callers (::ffff:a.b.c.d) matched against IPv4 entries. Parsing is ipaddr.js's.
 */
type Net = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Parses one entry (`203.0.113.7`, `203.0.113.0/24`, `2001:db8::/56`); null when it is not valid. */
export function parseAllowlistEntry(entry: string): Net | null {
  const s = entry.trim();
  try {
    if (s.includes("/")) {
      const [addr, bits] = ipaddr.parseCIDR(s);
      // Normalise the network address so 10.0.0.7/8 reads as 10.0.0.0/8.
      const net =
        addr.kind() === "ipv4" ? ipaddr.IPv4.networkAddressFromCIDR(s) : ipaddr.IPv6.networkAddressFromCIDR(s);
      return [net, bits];
    }
    if (!ipaddr.isValid(s)) return null;
    const a = ipaddr.parse(s);
    return [a, a.kind() === "ipv4" ? 32 : 128];
  } catch {
    return null;
  }
}

/** Canonical text of an entry: addresses as written by ipaddr.js, networks as `addr/bits`. */
export function normalizeEntry(entry: string): string | null {
  const n = parseAllowlistEntry(entry);
  if (!n) return null;
  const full = n[0].kind() === "ipv4" ? 32 : 128;
  return n[1] === full ? n[0].toString() : `${n[0].toString()}/${n[1]}`;
}

/**
 * Validates and normalises a list; returns the bad entries by index for `errors[]`.
 * Strict parsing: legacy IPv4 forms such as `127.1` or `0x7f000001` are refused.
 */
export function validateAllowlist(entries: readonly string[]): {
  ok: string[];
  bad: { index: number; value: string }[];
} {
  const ok: string[] = [];
  const bad: { index: number; value: string }[] = [];
  entries.forEach((value, index) => {
    const v = value.trim();
    const strict = v.includes("/") ? v.split("/")[0] : v;
    const looksStrict =
      ipaddr.IPv4.isValidFourPartDecimal(strict) || (strict.includes(":") && ipaddr.IPv6.isValid(strict));
    const n = looksStrict ? normalizeEntry(v) : null;
    if (n) ok.push(n);
    else bad.push({ index, value });
  });
  return { ok, bad };
}

/**
 * An optional allowlist as given in a settings form or CLI flag: null or empty = none; otherwise the
 * normalised entries, with one `invalid_format` field error at `/ip_allowlist/<index>` per bad entry.
 */
export function allowlistInput(entries: readonly string[] | null | undefined): {
  allowlist: string[] | null;
  errors: FieldError[];
} {
  if (!entries || !entries.length) return { allowlist: null, errors: [] };
  const v = validateAllowlist(entries);
  return {
    allowlist: v.ok,
    errors: v.bad.map((b) => ({
      field: `/ip_allowlist/${b.index}`,
      code: "invalid_format",
      message: `"${b.value}" is not an IP address or CIDR network.`,
    })),
  };
}

function parseCaller(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  try {
    return ipaddr.process(ip.replace(/^\[|\]$/g, "").replace(/%.*$/, ""));
  } catch {
    return null;
  }
}

/** Most parsed addresses and entries {@link memo} keeps before it starts over. */
const MEMO_MAX = 2000;

/**
 * `parse(text)`, remembered: an allowlisted key calls from the same few addresses against the same few
 * entries on every request, and parsing them each time was most of this check's cost. The parsed values
 * are never changed by the callers below. The map is cleared when it reaches {@link MEMO_MAX}.
 */
function memo<T>(parse: (text: string) => T): (text: string) => T {
  const seen = new Map<string, T>();
  return (text) => {
    let v = seen.get(text);
    if (v === undefined && !seen.has(text)) {
      if (seen.size >= MEMO_MAX) seen.clear();
      seen.set(text, (v = parse(text)));
    }
    return v as T;
  };
}

const callerAddress = memo(parseCaller);
const allowlistEntry = memo(parseAllowlistEntry);

/** True when `ip` (the caller) is inside any entry. An unparseable caller address is never allowed. */
export function isAllowed(ip: string | null, entries: readonly string[]): boolean {
  if (!ip) return false;
  const caller = callerAddress(ip);
  if (!caller) return false;
  return entries.some((e) => {
    const n = allowlistEntry(e);
    if (!n) return false;
    let net = n[0];
    if (net.kind() === "ipv6" && (net as ipaddr.IPv6).isIPv4MappedAddress()) net = (net as ipaddr.IPv6).toIPv4Address();
    if (caller.kind() !== net.kind()) return false;
    const bits = net.kind() === "ipv4" && n[0].kind() === "ipv6" ? Math.max(0, n[1] - 96) : n[1];
    return caller.match(net as never, bits);
  });
}

/**
 * "Narrow" in the RU cell's personal-data rule: every entry a single address, an IPv4 network of /24 or
 * smaller, or an IPv6 network of /56 or smaller; and the list not empty.
 */
export function isNarrowAllowlist(entries: readonly string[] | null): boolean {
  if (!entries || entries.length === 0) return false;
  return entries.every((e) => {
    // Remembered, like the allowlist check: every personal-data answer asks this of the key's entries.
    const n = allowlistEntry(e);
    if (!n) return false;
    return n[0].kind() === "ipv4" ? n[1] >= 24 : n[1] >= 56;
  });
}
