import { describe, expect, it } from "vitest";
import { backoffAfter } from "../src/backoff.js";

/** A Random whose int(max) answers `pick(max)`, recording each max it was asked for. */
function fakeRandom(pick: (max: number) => number) {
  const asked: number[] = [];
  return {
    asked,
    int(max: number) {
      asked.push(max);
      return pick(max);
    },
  };
}

describe("the one retry backoff", () => {
  const policy = { base: 1_000, max: 60_000 };

  it("doubles from the base after each failed attempt, and counts 0 attempts as 1", () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((attempts) => backoffAfter(attempts, policy).delay)).toEqual([1_000, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000]);
  });

  it("stops at the cap and says so, for any number of attempts", () => {
    expect(backoffAfter(6, policy)).toEqual({ delay: 32_000, capped: false });
    expect(backoffAfter(7, policy)).toEqual({ delay: 60_000, capped: true });
    expect(backoffAfter(Number.MAX_SAFE_INTEGER, policy)).toEqual({ delay: 60_000, capped: true });
    expect(backoffAfter(Number.MAX_SAFE_INTEGER, { base: 0, max: 10 })).toEqual({ delay: 0, capped: false });
  });

  it("without a jitter draws nothing and is exactly the exponential delay", () => {
    expect(backoffAfter(3, { base: 30, max: 1_800 }).delay).toBe(120);
  });

  it("jitters down by at most the share, never above the exponential delay or the cap", () => {
    const lowest = fakeRandom((max) => max - 1);
    const highest = fakeRandom(() => 0);
    expect(backoffAfter(3, policy, { share: 0.25, random: lowest }).delay).toBe(3_000);
    expect(lowest.asked).toEqual([1_001]);
    expect(backoffAfter(3, policy, { share: 0.25, random: highest }).delay).toBe(4_000);
    expect(backoffAfter(40, policy, { share: 0.25, random: lowest })).toEqual({ delay: 45_000, capped: true });
    expect(backoffAfter(40, policy, { share: 0.25, random: highest })).toEqual({ delay: 60_000, capped: true });
  });

  it("asks the random source for nothing when there is nothing to take off", () => {
    const random = fakeRandom(() => {
      throw new Error("not expected");
    });
    expect(backoffAfter(1, { base: 3, max: 10 }, { share: 0.25, random }).delay).toBe(3);
    expect(backoffAfter(1, policy, { share: 0, random }).delay).toBe(1_000);
  });
});
