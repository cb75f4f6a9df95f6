import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createAddressGuard, refusedAddressRanges } from "../src/address-guard.js";

/**
 * Every refused range, with an address inside it (refused, naming the range's rule) and one just
 * outside it (allowed, or refused by another rule: the neighbour of a range is sometimes a range too).
 */
const ranges: { rule: string; inside: string[]; outside: string[] }[] = [
  { rule: "this network 0.0.0.0/8", inside: ["0.0.0.0", "0.255.255.255"], outside: ["1.0.0.0"] },
  { rule: "private network 10.0.0.0/8", inside: ["10.0.0.0", "10.255.255.255"], outside: ["9.255.255.255", "11.0.0.0"] },
  { rule: "carrier-grade NAT 100.64.0.0/10", inside: ["100.64.0.0", "100.127.255.255"], outside: ["100.63.255.255", "100.128.0.0"] },
  { rule: "loopback 127.0.0.0/8", inside: ["127.0.0.1", "127.255.255.254"], outside: ["126.255.255.255", "128.0.0.0"] },
  { rule: "link-local 169.254.0.0/16", inside: ["169.254.169.254"], outside: ["169.253.255.255", "169.255.0.0"] },
  { rule: "private network 172.16.0.0/12", inside: ["172.16.0.0", "172.31.255.255"], outside: ["172.15.255.255", "172.32.0.0"] },
  { rule: "IETF protocol assignments 192.0.0.0/24", inside: ["192.0.0.8"], outside: ["191.255.255.255", "192.0.1.0"] },
  { rule: "documentation 192.0.2.0/24", inside: ["192.0.2.1"], outside: ["192.0.3.0"] },
  { rule: "6to4 relay anycast 192.88.99.0/24", inside: ["192.88.99.1"], outside: ["192.88.98.255", "192.88.100.0"] },
  { rule: "private network 192.168.0.0/16", inside: ["192.168.1.1"], outside: ["192.167.255.255", "192.169.0.0"] },
  { rule: "benchmarking 198.18.0.0/15", inside: ["198.18.0.0", "198.19.255.255"], outside: ["198.17.255.255", "198.20.0.0"] },
  { rule: "documentation 198.51.100.0/24", inside: ["198.51.100.7"], outside: ["198.51.99.255", "198.51.101.0"] },
  { rule: "documentation 203.0.113.0/24", inside: ["203.0.113.9"], outside: ["203.0.112.255", "203.0.114.0"] },
  { rule: "multicast 224.0.0.0/4", inside: ["224.0.0.1", "239.255.255.255"], outside: ["223.255.255.255"] },
  { rule: "broadcast 255.255.255.255/32", inside: ["255.255.255.255"], outside: ["255.255.255.254"] },
  { rule: "reserved 240.0.0.0/4", inside: ["240.0.0.0", "255.255.255.254"], outside: ["239.255.255.255"] },
  { rule: "unspecified ::/128", inside: ["::"], outside: ["::2"] },
  { rule: "loopback ::1/128", inside: ["::1", "0:0:0:0:0:0:0:1"], outside: ["::2"] },
  { rule: "IPv4-mapped IPv6 ::ffff:0:0/96", inside: ["::ffff:8.8.8.8", "::ffff:127.0.0.1", "::ffff:a00:1"], outside: ["::fffe:ffff:ffff", "::1:0:0:0"] },
  { rule: "IPv4-compatible IPv6 ::/96", inside: ["::8.8.8.8", "::7f00:1", "::2"], outside: ["::1:0:0", "::fffe:ffff:ffff"] },
  { rule: "IPv4-translated IPv6 (SIIT) ::ffff:0:0:0/96", inside: ["::ffff:0:8.8.8.8", "::ffff:0:a00:1", "0:0:0:0:ffff:0:ffff:ffff"], outside: ["::ffff:1:0:0", "::fffe:ffff:ffff:ffff"] },
  { rule: "Teredo 2001::/32", inside: ["2001::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001:0:ffff:ffff:ffff:ffff:ffff:ffff"], outside: ["2001:1::1", "2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff"] },
  { rule: "documentation 3fff::/20", inside: ["3fff::1", "3fff:fff:ffff::1"], outside: ["3fff:1000::1", "3ffe:ffff::1"] },
  { rule: "segment routing 5f00::/16", inside: ["5f00::1", "5f00:ffff::1"], outside: ["5eff:ffff::1", "5f01::1"] },
  { rule: "discard-only 100::/64", inside: ["100::1"], outside: ["100:0:0:1::1"] },
  { rule: "NAT64 64:ff9b::/96", inside: ["64:ff9b::8.8.8.8", "64:ff9b::a00:1"], outside: ["64:ff9b::1:0:0", "64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff"] },
  { rule: "local-use NAT64 64:ff9b:1::/48", inside: ["64:ff9b:1::a00:1", "64:ff9b:1:ffff::1"], outside: ["64:ff9b:2::1"] },
  { rule: "documentation 2001:db8::/32", inside: ["2001:db8::1"], outside: ["2001:db9::1"] },
  { rule: "6to4 2002::/16", inside: ["2002:7f00:1::", "2002:ffff::1"], outside: ["2001:ffff::1", "2003::1"] },
  { rule: "unique local fc00::/7", inside: ["fc00::1", "fd12:3456::1"], outside: ["fbff::1", "fe00::1"] },
  { rule: "link-local fe80::/10", inside: ["fe80::1", "febf::1"], outside: ["fe7f::1", "fec0::1"] },
  { rule: "site-local fec0::/10", inside: ["fec0::1", "feff::1"], outside: ["febf::1", "ff00::1"] },
  { rule: "multicast ff00::/8", inside: ["ff02::1", "ffff::1"], outside: ["feff::1"] },
];

describe("the address guard in production", () => {
  const guard = createAddressGuard({ allowPrivate: false });

  for (const { rule, inside, outside } of ranges) {
    it(`refuses ${rule}, and names it; not the addresses just outside it`, () => {
      for (const address of inside) {
        expect(guard.refusal(address), address).toBe(rule);
        expect(guard.allows(address), address).toBe(false);
      }
      for (const address of outside) expect(guard.refusal(address), address).not.toBe(rule);
    });
  }

  it("tests every range it refuses, and docs/webhooks.md lists each", () => {
    expect(refusedAddressRanges.map((range) => range.rule).sort()).toEqual(ranges.map((range) => range.rule).sort());
    const docs = readFileSync(new URL("../../../docs/webhooks.md", import.meta.url), "utf8");
    for (const { rule } of refusedAddressRanges) expect(docs, rule).toContain(`\`${rule}\``);
  });

  it("allows public addresses, IPv4 and IPv6, including the neighbours of refused ranges", () => {
    for (const address of ["8.8.8.8", "1.0.0.0", "11.0.0.0", "100.63.255.255", "100.128.0.0", "172.32.0.1", "196.201.214.200", "198.20.0.0", "223.255.255.255", "2001:4860:4860::8888", "2003::1", "2a00:1450:4001::200e", "::fffe:ffff:ffff", "3fff:1000::1", "5f01::1"]) {
      expect(guard.refusal(address), address).toBeNull();
      expect(guard.allows(address), address).toBe(true);
    }
  });

  it("never allows a name, only addresses", () => {
    expect(guard.refusal("example.com")).toBe("not an IP address");
    expect(guard.allows("localhost")).toBe(false);
  });
});

describe("the address guard outside production (WEBHOOK_ALLOW_PRIVATE_URLS)", () => {
  const guard = createAddressGuard({ allowPrivate: true });

  it("allows every address of every range, and still never a name", () => {
    for (const { inside } of ranges) for (const address of inside) expect(guard.refusal(address), address).toBeNull();
    expect(guard.allows("127.0.0.1")).toBe(true);
    expect(guard.refusal("localhost")).toBe("not an IP address");
  });
});
