import ipaddr from "ipaddr.js";
import { env } from "@/server/env";

/**
 * Header our own HTTP server (server/main.ts) sets from the TCP peer address, after deleting any value a
 * client sent. Route handlers cannot see the socket, so this is how the peer reaches them.
 */
export const PEER_HEADER = "x-service-peer-address";

/**
 * The caller's address for IP allowlists.
 * - `TRUST_PROXY=none` (default): the TCP peer. Use when clients connect to this process directly.
 * - `TRUST_PROXY=N`: the Nth address from the right of `X-Forwarded-For`, for N trusted proxies in
 *   front that each append the address they saw. Entries further left are client-controlled and ignored.
 * Returns null when the address cannot be known (then every allowlist refuses).
 */
export function callerIp(headers: Headers): string | null {
  const trust = env().trustProxy;
  if (trust === "none") return headers.get(PEER_HEADER);
  const chain = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return chain.length >= trust ? chain[chain.length - trust] : null;
}

/**
 * The bucket key of a client address: IPv4-mapped IPv6 as IPv4, other IPv6 by its /64 (one host
 * usually holds a whole /64, so single IPv6 addresses would be fresh buckets), anything unparsable as
 * sent (lower case).
 */
export function addressKey(address: string): string {
  try {
    let a = ipaddr.parse(address);
    if (a.kind() === "ipv6" && (a as ipaddr.IPv6).isIPv4MappedAddress()) a = (a as ipaddr.IPv6).toIPv4Address();
    if (a.kind() === "ipv4") return a.toString();
    const bytes = a.toByteArray().slice(0, 8).concat(Array(8).fill(0));
    return `${ipaddr.fromByteArray(bytes).toString()}/64`;
  } catch {
    return address.toLowerCase().slice(0, 64);
  }
}
