import { describe, expect, it } from "vitest";
import { accountKey, ipLimitKey } from "../../src/shared/abuse-limits.js";

describe("abuse-limit keys", () => {
  it("counts an IPv4 address as itself, and an IPv4-mapped IPv6 address as the IPv4 one", () => {
    expect(ipLimitKey("196.201.214.200")).toBe("196.201.214.200");
    expect(ipLimitKey("::ffff:196.201.214.200")).toBe("196.201.214.200");
    expect(ipLimitKey("::FFFF:10.0.0.1")).toBe("10.0.0.1");
  });

  it("counts every IPv6 address of one /64 under one key, however it is written", () => {
    const key = "2001:db8:85a3:0::/64";
    expect(ipLimitKey("2001:db8:85a3::1")).toBe(key);
    expect(ipLimitKey("2001:0db8:85a3:0000:ffff:ffff:ffff:ffff")).toBe(key);
    expect(ipLimitKey("2001:db8:85a3:0:abcd::7%eth0")).toBe(key);
    expect(ipLimitKey("2001:db8:85a3:1::1")).not.toBe(key);
    expect(ipLimitKey("::1")).toBe("0:0:0:0::/64");
  });

  it("keys sign-in failures by tenant and lower-cased email", () => {
    expect(accountKey("default", "Wanjiku@Example.COM")).toBe("default:wanjiku@example.com");
    expect(accountKey("shop-a", "a@b.ke")).not.toBe(accountKey("shop-b", "a@b.ke"));
  });
});
