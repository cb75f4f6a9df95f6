import { describe, expect, it } from "vitest";
import { backoffAfter } from "../src/backoff.js";

describe("the mail retry backoff", () => {
  const policy = { baseMs: 1_000, maxMs: 60_000 };

  it("doubles from the base after each failure, without jitter when the random draw is 0", () => {
    expect([1, 2, 3, 4, 5, 6].map((attempts) => backoffAfter(attempts, policy, () => 0).delayMs)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000]);
    expect(backoffAfter(0, policy, () => 0).delayMs).toBe(1_000);
  });

  it("takes off up to a quarter at random", () => {
    expect(backoffAfter(3, policy, () => 0.5).delayMs).toBe(3_500);
    expect(backoffAfter(3, policy, () => 0.999_999).delayMs).toBe(3_000);
  });

  it("stops growing at the cap and says so", () => {
    expect(backoffAfter(6, policy, () => 0)).toEqual({ delayMs: 32_000, capped: false });
    expect(backoffAfter(7, policy, () => 0)).toEqual({ delayMs: 60_000, capped: true });
    expect(backoffAfter(40, policy, () => 0)).toEqual({ delayMs: 60_000, capped: true });
  });
});
