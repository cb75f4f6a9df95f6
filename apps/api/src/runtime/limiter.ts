/**
 * The abuse limits of decisions.md, on rate-limiter-flexible: in memory for one instance, or in
 * Redis so that several instances share one count.
 */
import type { Limiter, LimitRule } from "@mteja/domain";
import type { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";

export const limitRules: Record<LimitRule, { points: number; durationSeconds: number }> = {
  login_failures_per_account: { points: 10, durationSeconds: 15 * 60 },
  login_failures_per_ip: { points: 100, durationSeconds: 60 },
  auth_requests_per_ip: { points: 1200, durationSeconds: 60 },
  otp_failures_per_token: { points: 5, durationSeconds: 5 * 60 },
  mails_per_account: { points: 5, durationSeconds: 60 * 60 },
  stkpush_per_user: { points: 10, durationSeconds: 60 },
};

export function createLimiter(options: { redis?: Redis | undefined; rules?: typeof limitRules }): Limiter {
  const rules = options.rules ?? limitRules;
  const limiters = new Map<LimitRule, RateLimiterAbstract>();
  for (const [rule, { points, durationSeconds }] of Object.entries(rules) as [LimitRule, (typeof limitRules)[LimitRule]][]) {
    const base = { points, duration: durationSeconds, keyPrefix: `mteja:limit:${rule}` };
    limiters.set(rule, options.redis ? new RateLimiterRedis({ ...base, storeClient: options.redis }) : new RateLimiterMemory(base));
  }
  const get = (rule: LimitRule) => limiters.get(rule)!;

  return {
    async consume(rule, key) {
      try {
        await get(rule).consume(key, 1);
        return { allowed: true, retryAfter: 0 };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return { allowed: false, retryAfter: Math.ceil(rejection.msBeforeNext / 1000) };
        throw rejection;
      }
    },
    async peek(rule, key) {
      const state = await get(rule).get(key);
      if (state && state.consumedPoints >= rules[rule].points) {
        return { allowed: false, retryAfter: Math.ceil(state.msBeforeNext / 1000) };
      }
      return { allowed: true, retryAfter: 0 };
    },
    async reset(rule, key) {
      await get(rule).delete(key);
    },
  };
}
