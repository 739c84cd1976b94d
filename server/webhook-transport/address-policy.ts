import ipaddr from "ipaddr.js";
import { env } from "@/server/env";

/**
 * Why an address may not receive a webhook, or null when it may: anything but a public unicast address
 * (private, loopback, link-local, CGNAT, multicast, broadcast, reserved, unspecified, documentation,
 * 6to4/Teredo relays, unique-local...). IPv4-mapped and IPv4-compatible IPv6 forms are judged as the IPv4
 * address they carry. Networks the operator listed in `WEBHOOK_ALLOW_PRIVATE_CIDRS` are allowed.
 * Implements the SSRF rule of spec "Endpoints: Webhooks" (checked at creation and at every connection).
 * @param address textual IPv4 or IPv6 address (as DNS returned it)
 * @returns `private_address` (the journal error code) or null
 */
export function forbiddenAddressReason(address: string): "private_address" | null {
  if (!ipaddr.isValid(address)) return "private_address";
  let ip = ipaddr.parse(address);
  if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  if (ip.range() === "unicast") return null;
  // Networks the operator allowed (WEBHOOK_ALLOW_PRIVATE_CIDRS; loopback under the test setting).
  const allowed = env().webhookAllowedPrivateNetworks.some(
    ([net, bits]) => net.kind() === ip.kind() && ip.match(net, bits),
  );
  return allowed ? null : "private_address";
}

/** True when `host` is an IP literal (v4, v6, bracketed v6), which webhook URLs may not use. */
export function isIpLiteral(host: string): boolean {
  const h = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  return ipaddr.isValid(h) || /^\d+$/.test(h) || /^0x[0-9a-f]+$/i.test(h);
}
