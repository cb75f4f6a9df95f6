/**
 * Which addresses a webhook may be delivered to (docs/webhooks.md#endpoint-addresses). In production an
 * endpoint must not reach the service's own network (SSRF): every range below is refused, IPv4 and
 * IPv6, including the IPv6 forms that carry an IPv4 address (mapped, compatible, translated, 6to4, NAT64, Teredo), which
 * could otherwise reach an internal IPv4 address through a translator. The check is made on every
 * address the name resolves to, at connection time (the socket connects to the checked address), so a
 * name that resolves to a private address, or changes its answer between a check and the connection
 * (DNS rebinding), is refused too.
 *
 * A refusal names the rule, never the address: the shop reads it (the 422 on its endpoint, an
 * attempt's error), and the address an internal name resolves to is this network's business.
 */
import { BlockList, isIP } from "node:net";

type Family = "ipv4" | "ipv6";

export interface RefusedAddressRange {
  /** What a refusal says: the kind of range and its prefix, e.g. "carrier-grade NAT 100.64.0.0/10". */
  rule: string;
  network: string;
  prefix: number;
  family: Family;
}

const range = (kind: string, network: string, prefix: number): RefusedAddressRange => ({
  rule: `${kind} ${network}/${prefix}`,
  network,
  prefix,
  family: isIP(network) === 4 ? "ipv4" : "ipv6",
});

/**
 * IANA's special-purpose registries, the parts that are not a public host. Ranges nested in another
 * come first, so a refusal names the narrower rule (broadcast before reserved, ::1 before ::/96).
 */
export const refusedAddressRanges: readonly RefusedAddressRange[] = [
  range("this network", "0.0.0.0", 8),
  range("private network", "10.0.0.0", 8),
  range("carrier-grade NAT", "100.64.0.0", 10),
  range("loopback", "127.0.0.0", 8),
  range("link-local", "169.254.0.0", 16),
  range("private network", "172.16.0.0", 12),
  range("IETF protocol assignments", "192.0.0.0", 24),
  range("documentation", "192.0.2.0", 24),
  range("6to4 relay anycast", "192.88.99.0", 24),
  range("private network", "192.168.0.0", 16),
  range("benchmarking", "198.18.0.0", 15),
  range("documentation", "198.51.100.0", 24),
  range("documentation", "203.0.113.0", 24),
  range("multicast", "224.0.0.0", 4),
  range("broadcast", "255.255.255.255", 32),
  range("reserved", "240.0.0.0", 4),
  range("unspecified", "::", 128),
  range("loopback", "::1", 128),
  range("IPv4-mapped IPv6", "::ffff:0:0", 96),
  range("IPv4-compatible IPv6", "::", 96),
  range("IPv4-translated IPv6 (SIIT)", "::ffff:0:0:0", 96),
  range("discard-only", "100::", 64),
  range("NAT64", "64:ff9b::", 96),
  range("local-use NAT64", "64:ff9b:1::", 48),
  range("Teredo", "2001::", 32),
  range("documentation", "2001:db8::", 32),
  range("6to4", "2002::", 16),
  range("documentation", "3fff::", 20),
  range("segment routing", "5f00::", 16),
  range("unique local", "fc00::", 7),
  range("link-local", "fe80::", 10),
  range("site-local", "fec0::", 10),
  range("multicast", "ff00::", 8),
];

/** What a refusal of something that is not an address says (a name is resolved first, never checked as such). */
export const NOT_AN_ADDRESS = "not an IP address";

export interface AddressGuard {
  /** True when a delivery may connect to this IP address. */
  allows(address: string): boolean;
  /** The rule that refuses this address (`refusedAddressRanges[].rule`, or NOT_AN_ADDRESS), or null when it is allowed. */
  refusal(address: string): string | null;
}

/**
 * One BlockList per range, asked only about addresses of its own family: a BlockList compares IPv4
 * and IPv6 through the mapped form, so an IPv6 rule such as ::ffff:0:0/96 would otherwise refuse every
 * IPv4 address.
 */
function rangeCheckers(): { rule: string; family: Family; list: BlockList }[] {
  return refusedAddressRanges.map(({ rule, network, prefix, family }) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return { rule, family, list };
  });
}

/** Allows public addresses only; `allowPrivate` (outside production, WEBHOOK_ALLOW_PRIVATE_URLS) allows every address. */
export function createAddressGuard({ allowPrivate }: { allowPrivate: boolean }): AddressGuard {
  const checkers = allowPrivate ? [] : rangeCheckers();
  const refusal = (address: string): string | null => {
    const version = isIP(address);
    if (version === 0) return NOT_AN_ADDRESS;
    const family: Family = version === 4 ? "ipv4" : "ipv6";
    return checkers.find((checker) => checker.family === family && checker.list.check(address, family))?.rule ?? null;
  };
  return { refusal, allows: (address) => refusal(address) === null };
}
