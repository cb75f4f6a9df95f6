import { describe, expect, it } from "vitest";
import { matchTotp, newTotpSecret, timeStepAt } from "../../../src/auth/otp/totp.js";
import { cryptoRandom } from "../../../src/shared/ports.js";

// RFC 6238 appendix B: the ASCII secret "12345678901234567890", SHA-1. At T = 59 s the 8-digit code
// is 94287082, so the 6-digit one is 287082; it belongs to time step 1 (30-second steps).
const secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";
const code = "287082";
const at = (seconds: number) => new Date(seconds * 1000);

describe("the TOTP window", () => {
  it("places moments in 30-second steps", () => {
    expect(timeStepAt(at(0))).toBe(0);
    expect(timeStepAt(at(29.999))).toBe(0);
    expect(timeStepAt(at(30))).toBe(1);
    expect(timeStepAt(at(59))).toBe(1);
  });

  it("accepts a code in its own step and one step of drift either way, and says which step it is", async () => {
    expect(await matchTotp(secret, code, at(59), null)).toBe(1);
    expect(await matchTotp(secret, code, at(29), null)).toBe(1);
    expect(await matchTotp(secret, code, at(60), null)).toBe(1);
    expect(await matchTotp(secret, code, at(89), null)).toBe(1);
  });

  it("refuses it two steps away, and a wrong code", async () => {
    expect(await matchTotp(secret, code, at(90), null)).toBeUndefined();
    expect(await matchTotp(secret, "287083", at(59), null)).toBeUndefined();
    expect(await matchTotp(secret, code, at(1111111109), null)).toBeUndefined();
  });

  it("never accepts a step again once it or a later one was used", async () => {
    expect(await matchTotp(secret, code, at(59), 0n)).toBe(1);
    expect(await matchTotp(secret, code, at(59), 1n)).toBeUndefined();
    expect(await matchTotp(secret, code, at(59), 2n)).toBeUndefined();
  });
});

describe("a new TOTP secret", () => {
  it("is the Random port's 20 bytes in base32: 32 characters", () => {
    const fixed = { bytes: (n: number) => Buffer.from("12345678901234567890").subarray(0, n), uuid: () => "", int: () => 0 };
    expect(newTotpSecret(fixed)).toBe(secret);
    expect(newTotpSecret(cryptoRandom)).toMatch(/^[A-Z2-7]{32}$/);
  });
});
