import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";
import { env } from "@/server/env";
import { invalidField } from "@/server/errors";
import { forbiddenAddressReason, isIpLiteral } from "./address-policy";

/** One resolved address, as `dns.lookup({all: true})` gives it. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to all its A and AAAA addresses. */
export type HostResolver = (host: string) => Promise<ResolvedAddress[]>;

const systemResolver: HostResolver = (host) => lookup(host, { all: true, verbatim: true });
let resolver: HostResolver = systemResolver;

/** How long a creation or change waits for DNS before calling the host unresolvable, ms. */
export const RESOLVE_TIMEOUT_MS = 5_000;

/**
 * Replaces the resolver (tests map their host names to chosen addresses); undefined restores the
 * system resolver (`node:dns/promises` lookup with `all: true`).
 */
export function setHostResolver(r: HostResolver | undefined): void {
  resolver = r ?? systemResolver;
}

/**
 * All addresses of `host` through the current resolver, or null when it cannot be resolved (no such
 * name, no addresses, DNS failure, or no answer within {@link RESOLVE_TIMEOUT_MS}).
 */
export async function resolveHost(host: string): Promise<ResolvedAddress[] | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), RESOLVE_TIMEOUT_MS);
  });
  try {
    const found = await Promise.race([resolver(host).catch(() => null), timeout]);
    return found && found.length > 0 ? found : null;
  } finally {
    clearTimeout(timer);
  }
}

const FIELD = "/url";
const fail = (code: string, message: string) => invalidField(FIELD, code, message);

/** True for `localhost` and loopback IP literals (`127.0.0.0/8`, `::1`), bracketed or not. */
function isLoopbackHost(host: string): boolean {
  const h = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (h.toLowerCase() === "localhost") return true;
  if (!ipaddr.isValid(h)) return false;
  let ip = ipaddr.parse(h);
  if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  return ip.range() === "loopback";
}

/**
 * The SSRF check of a subscription address at creation and change (spec "Endpoints: Webhooks", create
 * rules; DESIGN "Decisions"). The delivery client checks again at every connection.
 *
 * Field codes on `/url`, in the order checked:
 * - `invalid_url`: not an absolute URL;
 * - `https_only`: scheme other than https;
 * - `userinfo_not_allowed`: user name or password in the URL;
 * - `ip_not_allowed`: the host is an IP literal (a host name is required);
 * - `port_not_allowed`: an explicit port other than 443;
 * - `unresolvable_host`: DNS gives no address (or no answer within 5 s);
 * - `private_address`: any of the resolved A/AAAA addresses is not public unicast
 *   ({@link forbiddenAddressReason}); one bad address refuses the whole host, since any could be used.
 *
 * Operator setting `WEBHOOK_ALLOW_PRIVATE_CIDRS`: addresses inside the listed networks pass `private_address`.
 * Test setting `WEBHOOK_ALLOW_LOOPBACK` (refused in production): a loopback host (`localhost`,
 * `127.0.0.1`, `[::1]`) may be an IP literal on any port, so tests can run local https receivers (with
 * loopback listed in `WEBHOOK_ALLOW_PRIVATE_CIDRS`). Other IP literals and ports stay refused.
 * @throws ApiError 422 `validation_failed` with one error on `/url`.
 */
export async function checkWebhookUrl(url: string): Promise<void> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw fail("invalid_url", "must be an absolute https:// address");
  }
  if (u.protocol !== "https:") throw fail("https_only", "must use https://");
  if (u.username || u.password) throw fail("userinfo_not_allowed", "must not contain a user name or password");
  const host = u.hostname;
  if (!host) throw fail("invalid_url", "must name a host");
  const loopbackForTests = env().webhookAllowLoopback && isLoopbackHost(host);
  if (isIpLiteral(host) && !loopbackForTests) throw fail("ip_not_allowed", "must use a host name, not an IP address");
  // URL drops the default port, so `port` is empty for 443 and set for any other.
  if (u.port !== "" && !loopbackForTests) throw fail("port_not_allowed", "must use port 443");
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  const addresses = ipaddr.isValid(bare)
    ? [{ address: bare, family: bare.includes(":") ? 6 : 4 }]
    : await resolveHost(bare);
  if (!addresses) throw fail("unresolvable_host", "the host name does not resolve to any address");
  if (addresses.some((a) => forbiddenAddressReason(a.address) !== null)) {
    throw fail(
      "private_address",
      "the host resolves to a private, loopback, link-local or otherwise non-public address",
    );
  }
}
