/**
 * Which addresses a webhook may be delivered to. In production an endpoint must not reach the
 * service's own network (SSRF): loopback, private, link-local, carrier-grade NAT, multicast and the
 * unspecified address are refused. The check is made on every address the name resolves to, at
 * connection time (the socket connects to the checked address), so a name that resolves to a private
 * address, or changes its answer between a check and the connection (DNS rebinding), is refused too.
 */
import { BlockList, isIP } from "node:net";

function internalAddresses(): BlockList {
  const list = new BlockList();
  for (const [net, prefix] of [
    ["0.0.0.0", 8],
    ["10.0.0.0", 8],
    ["100.64.0.0", 10],
    ["127.0.0.0", 8],
    ["169.254.0.0", 16],
    ["172.16.0.0", 12],
    ["192.0.0.0", 24],
    ["192.168.0.0", 16],
    ["198.18.0.0", 15],
    ["224.0.0.0", 4],
    ["240.0.0.0", 4],
  ] as const) {
    list.addSubnet(net, prefix, "ipv4");
  }
  for (const [net, prefix] of [
    ["::", 128],
    ["::1", 128],
    ["fc00::", 7],
    ["fe80::", 10],
    ["ff00::", 8],
    ["64:ff9b::", 96],
  ] as const) {
    list.addSubnet(net, prefix, "ipv6");
  }
  return list;
}

export interface AddressGuard {
  /** True when a delivery may connect to this IP address. */
  allows(address: string): boolean;
}

/** Allows public addresses only; `allowPrivate` (outside production) allows every address. */
export function createAddressGuard({ allowPrivate }: { allowPrivate: boolean }): AddressGuard {
  if (allowPrivate) return { allows: (address) => isIP(address) !== 0 };
  const internal = internalAddresses();
  return {
    allows(address) {
      const family = isIP(address);
      if (family === 0) return false;
      return !internal.check(address, family === 4 ? "ipv4" : "ipv6");
    },
  };
}
