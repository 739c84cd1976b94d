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
