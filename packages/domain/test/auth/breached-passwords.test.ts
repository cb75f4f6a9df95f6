/** The k-anonymity rule of the breached-password check (docs/sign-in.md#breached-passwords), pure. */
import { describe, expect, it } from "vitest";
import { rangeListsSuffix, rangeQueryOf } from "../../src/auth/breached-passwords/k-anonymity.js";

describe("breached passwords: k-anonymity", () => {
  it("sends the first 5 hex characters of the SHA-1, upper case, and keeps the other 35", () => {
    // SHA-1("password") = 5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8, Pwned Passwords' own example.
    expect(rangeQueryOf("password")).toEqual({ prefix: "5BAA6", suffix: "1E4C9B93F3F0682250B6CF8331B7EE68FD8" });
  });

  it("a suffix listed with a count above 0 is a breach; padding (count 0), other suffixes and case do not fool it", () => {
    const suffix = "1E4C9B93F3F0682250B6CF8331B7EE68FD8";
    expect(rangeListsSuffix(`0018A45C4D1DEF81644B54AB7F969B88D65:3\r\n${suffix}:10434004\r\n`, suffix)).toBe(true);
    expect(rangeListsSuffix(`${suffix.toLowerCase()}:2`, suffix)).toBe(true);
    expect(rangeListsSuffix(`${suffix}:0\r\n0018A45C4D1DEF81644B54AB7F969B88D65:3`, suffix)).toBe(false);
    expect(rangeListsSuffix("0018A45C4D1DEF81644B54AB7F969B88D65:3", suffix)).toBe(false);
    expect(rangeListsSuffix("", suffix)).toBe(false);
  });
});
