import { describe, expect, it } from "vitest";
import { endpointUrlProblem } from "../src/url-check.js";

const resolvingTo = (...addresses: string[]) => async () => addresses;

describe("endpointUrlProblem", () => {
  it("accepts http and private addresses outside production", async () => {
    expect(await endpointUrlProblem("http://127.0.0.1:8080/hooks", { publicHttpsOnly: false })).toBeNull();
    expect(await endpointUrlProblem("http://localhost/hooks", { publicHttpsOnly: false, resolve: resolvingTo("127.0.0.1") })).toBeNull();
  });

  it("in production, wants https and a name whose every address is public", async () => {
    const rules = (addresses: string[]) => ({ publicHttpsOnly: true, resolve: resolvingTo(...addresses) });
    expect(await endpointUrlProblem("http://shop.example.com/hooks", rules(["93.184.215.14"]))).toBe("url must be https");
    expect(await endpointUrlProblem("https://shop.example.com/hooks", rules(["93.184.215.14"]))).toBeNull();
    expect(await endpointUrlProblem("https://shop.example.com/hooks", rules(["93.184.215.14", "10.0.0.7"]))).toBe(
      "url resolves to a non-public address (rule: private network 10.0.0.0/8)",
    );
    expect(await endpointUrlProblem("https://shop.example.com/hooks", rules(["fe80::1"]))).toBe("url resolves to a non-public address (rule: link-local fe80::/10)");
    expect(await endpointUrlProblem("https://[::1]/hooks", rules([]))).toBe("url resolves to a non-public address (rule: loopback ::1/128)");
    expect(await endpointUrlProblem("https://shop.example.com/hooks", rules([]))).toBe("url's host name does not resolve");
    const failing = { publicHttpsOnly: true, resolve: async () => Promise.reject(new Error("ENOTFOUND")) };
    expect(await endpointUrlProblem("https://nowhere.invalid/hooks", failing)).toBe("url's host name does not resolve");
    expect(await endpointUrlProblem("ftp://shop.example.com/x", rules(["93.184.215.14"]))).toBe("url must be an http or https URL");
  });

  it("names the rule that refused a resolved address, never the address (an internal name's address stays private)", async () => {
    const rules = (addresses: string[]) => ({ publicHttpsOnly: true, resolve: resolvingTo(...addresses) });
    for (const [address, rule] of [
      ["100.100.1.2", "carrier-grade NAT 100.64.0.0/10"],
      ["198.18.7.7", "benchmarking 198.18.0.0/15"],
      ["::a00:7", "IPv4-compatible IPv6 ::/96"],
      ["::ffff:a00:7", "IPv4-mapped IPv6 ::ffff:0:0/96"],
      ["2002:a00:7::1", "6to4 2002::/16"],
      ["64:ff9b::a00:7", "NAT64 64:ff9b::/96"],
      ["64:ff9b:1::a00:7", "local-use NAT64 64:ff9b:1::/48"],
      ["fec0::7", "site-local fec0::/10"],
    ] as const) {
      const problem = await endpointUrlProblem("https://billing.internal.example/hooks", rules(["93.184.215.14", address]));
      expect(problem, address).toBe(`url resolves to a non-public address (rule: ${rule})`);
      expect(problem, address).not.toContain(address);
    }
  });
});
