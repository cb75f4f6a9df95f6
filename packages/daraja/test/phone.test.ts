import { describe, expect, it } from "vitest";
import { normaliseKenyanPhone } from "../src/index.js";

describe("normaliseKenyanPhone", () => {
  it.each([
    ["0712345678", "254712345678"],
    ["0112345678", "254112345678"],
    ["254712345678", "254712345678"],
    ["254112345678", "254112345678"],
    ["+254712345678", "254712345678"],
    ["+254 712 345 678", "254712345678"],
    ["0712-345-678", "254712345678"],
    ["  0712 345678 ", "254712345678"],
  ])("%s → %s", (input, expected) => {
    expect(normaliseKenyanPhone(input)).toBe(expected);
  });

  it.each([
    "",
    "712345678", // no prefix: ambiguous
    "071234567", // too short
    "07123456789", // too long
    "0212345678", // landline
    "255712345678", // Tanzania
    "+2540712345678",
    "2547123456789",
    "07l2345678",
    "+1 712 345 678",
  ])("rejects %j", (input) => {
    expect(normaliseKenyanPhone(input)).toBeNull();
  });
});
