import { env } from "@/server/env";

/** A Host header: a DNS name or IPv4 address, or a bracketed IPv6 address, with an optional port. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The origin a request was sent to, as this server received it (issue 76 item 5): the scheme the
 * request arrived with (the request URL's, which Next.js takes from the TLS socket or a TLS-terminating
 * proxy's `X-Forwarded-Proto`) and the `Host` header the client sent, serialized like a browser's
 * `Origin` (lower case, default port dropped), e.g. `http://127.0.0.1:3000`. The request URL's own host
 * is not used: Next.js builds it from the host name it was started with (`localhost`), whatever name
 * the page was opened by. Falls back to the URL's host when there is no `Host` header (a Request made in
 * process).
 * @returns null when the Host header is not a host name, an IP address or a bracketed IPv6 address (with
 *   an optional port)
 */
export function requestOrigin(request: Request): string | null {
  const url = new URL(request.url);
  const host = request.headers.get("host") ?? url.host;
  if (!HOST.test(host)) return null;
  try {
    return new URL(`${url.protocol}//${host}`).origin;
  } catch {
    return null;
  }
}

/**
 * Whether a state-changing request comes from a page of ours: its `Origin` header is the request's own
 * origin as received ({@link requestOrigin}: the console opened at `127.0.0.1:PORT`, `localhost:PORT` or
 * its public name alike) or this cell's configured origin (behind a TLS-terminating proxy that rewrites
 * the Host). A missing or `null` Origin, or any other origin, is not ours. A browser sets both headers
 * itself, so a page of another site cannot pass for ours.
 */
export function isSameOrigin(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (!origin || origin === "null") return false;
  return origin === requestOrigin(request) || origin === env().cellOrigins[env().cell];
}
