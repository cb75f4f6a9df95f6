import { describe, expect, it } from "vitest";
import type { Context } from "../../src/context.js";
import { beginSignInAttempt } from "../../src/shared/abuse-limits.js";
import { unlimited, type Limiter, type LimitRule } from "../../src/shared/limiter.js";
import { DomainError } from "../../src/shared/errors.js";

/** Counts points per rule and key, allowing `limit` of them. */
function countingLimiter(limit: number) {
  const counts = new Map<string, number>();
  const id = (rule: LimitRule, key: string) => `${rule}|${key}`;
  const limiter: Limiter = {
    consume: async (rule, key) => {
      const next = (counts.get(id(rule, key)) ?? 0) + 1;
      counts.set(id(rule, key), next);
      return { allowed: next <= limit, retryAfter: next <= limit ? 0 : 60 };
    },
    peek: async (rule, key) => ({ allowed: (counts.get(id(rule, key)) ?? 0) < limit, retryAfter: 0 }),
    reset: async (rule, key) => void counts.delete(id(rule, key)),
    refund: async (rule, key) => void counts.set(id(rule, key), Math.max(0, (counts.get(id(rule, key)) ?? 0) - 1)),
    tally: unlimited.tally,
    numberOf: unlimited.numberOf,
  };
  return { limiter, count: (rule: LimitRule, key: string) => counts.get(id(rule, key)) ?? 0 };
}

const account = { tenantId: "default", email: "wanjiku@example.com" };

function contextWith(limiter: Limiter): Context {
  return { deps: { limiter }, request: { ip: "196.201.214.200" } } as unknown as Context;
}

describe("a sign-in attempt", () => {
  it("counts as a failure when the check says no", async () => {
    const { limiter, count } = countingLimiter(10);
    const attempt = await beginSignInAttempt(contextWith(limiter), account, { ip: true });
    expect(await attempt.check(async () => false)).toBe(false);
    expect(count("login_failures_per_account", "default:wanjiku@example.com")).toBe(1);
    expect(count("login_failures_per_ip", "196.201.214.200")).toBe(1);
  });

  it("is no failure when the check could not be made (hashing shed under load or failed): the points come back", async () => {
    const { limiter, count } = countingLimiter(10);
    const ctx = contextWith(limiter);
    const shed = new DomainError("RATE_LIMITED", "auth.hashing_busy", { retryAfter: 3 });
    for (let i = 0; i < 12; i++) {
      const attempt = await beginSignInAttempt(ctx, account, { ip: true });
      await expect(attempt.check(() => Promise.reject(shed))).rejects.toBe(shed);
    }
    expect(count("login_failures_per_account", "default:wanjiku@example.com")).toBe(0);
    expect(count("login_failures_per_ip", "196.201.214.200")).toBe(0);
    // The account is not locked by a storm it did not cause.
    const attempt = await beginSignInAttempt(ctx, account, { ip: true });
    expect(await attempt.check(async () => true)).toBe(true);
  });
});
