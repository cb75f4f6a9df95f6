/**
 * The abuse limits of docs/limits.md, on rate-limiter-flexible: in memory for one instance, or in
 * Redis so that several instances share one count. Each rule is a fixed window: `points` events per
 * `durationSeconds`, counted from the key's first event. A tally (the platform's texts and each shop's
 * share of them) counts in windows aligned to the service clock instead, one window for every key.
 */
import type { Limiter, LimitRule } from "@mteja/domain";
import type { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";

export interface LimitRuleSetting {
  points: number;
  durationSeconds: number;
}

export type LimitRules = Record<LimitRule, LimitRuleSetting>;

/** docs/limits.md: generous on purpose, so a shop's own test suite never trips them. */
export const limitRules: LimitRules = {
  login_failures_per_account: { points: 10, durationSeconds: 15 * 60 },
  login_failures_per_ip: { points: 100, durationSeconds: 60 },
  auth_requests_per_ip: { points: 1200, durationSeconds: 60 },
  mails_per_account: { points: 5, durationSeconds: 60 * 60 },
  stkpush_per_user: { points: 10, durationSeconds: 60 },
  stkquery_per_user: { points: 30, durationSeconds: 60 },
  stk_prompts_per_phone_minute: { points: 3, durationSeconds: 60 },
  stk_prompts_per_phone_hour: { points: 10, durationSeconds: 60 * 60 },
  unauthenticated_callbacks_stored: { points: 60, durationSeconds: 60 },
  unmatched_callbacks_stored_per_tenant: { points: 600, durationSeconds: 60 },
  phone_codes_per_tenant: { points: 600, durationSeconds: 60 * 60 },
  sms_texts_per_ip: { points: 60, durationSeconds: 60 * 60 },
  sms_texts_per_account: { points: 10, durationSeconds: 60 * 60 },
  // Not a count of its own: the number the budget's count (phone_codes_per_tenant) is compared with for
  // texts to signed-in customers, in the budget's window. Half the budget unless RATE_LIMIT_RULES says.
  sms_texts_signed_in_per_tenant: { points: 300, durationSeconds: 60 * 60 },
  sms_texts_signed_in_per_ip: { points: 60, durationSeconds: 60 * 60 },
  sms_texts_platform: { points: 5000, durationSeconds: 60 * 60 },
  email_changes_per_account: { points: 5, durationSeconds: 60 * 60 },
  email_change_mails_per_address: { points: 5, durationSeconds: 60 * 60 },
  webhook_redeliveries_per_event: { points: 10, durationSeconds: 60 * 60 },
  security_notices_per_account: { points: 5, durationSeconds: 60 * 60 },
  two_factor_enables_per_account: { points: 3, durationSeconds: 60 * 60 },
  guests_per_ip: { points: 300, durationSeconds: 60 * 60 },
};

export const limitRuleNames = Object.keys(limitRules) as LimitRule[];

/**
 * RATE_LIMIT_RULES: overrides of some rules as `rule=points/seconds`, comma-separated, e.g.
 * `auth_requests_per_ip=3000/60,login_failures_per_account=5/900`. Returns an error message or the overrides.
 */
export function parseLimitRules(text: string): Partial<LimitRules> | string {
  const overrides: Partial<LimitRules> = {};
  for (const part of text.split(",").map((s) => s.trim()).filter(Boolean)) {
    const match = /^([a-z_]+)\s*=\s*(\d{1,9})\s*\/\s*(\d{1,9})$/.exec(part);
    if (!match) return `"${part}" is not rule=points/seconds`;
    const [, name = "", points, seconds] = match;
    if (!(limitRuleNames as string[]).includes(name)) return `unknown rule "${name}" (known: ${limitRuleNames.join(", ")})`;
    const setting = { points: Number(points), durationSeconds: Number(seconds) };
    if (setting.points < 1 || setting.durationSeconds < 1) return `"${part}": points and seconds must be at least 1`;
    overrides[name as LimitRule] = setting;
  }
  const budgetSeconds = (overrides.phone_codes_per_tenant ?? limitRules.phone_codes_per_tenant).durationSeconds;
  const share = overrides.sms_texts_signed_in_per_tenant;
  if (share && share.durationSeconds !== budgetSeconds) {
    return `sms_texts_signed_in_per_tenant is a number of phone_codes_per_tenant's count: give it the same seconds (${budgetSeconds})`;
  }
  return overrides;
}

/**
 * The rules with RATE_LIMIT_RULES applied. The signed-in share of the text budget follows the budget:
 * half of it, in its window, unless it is given a number of its own.
 */
export function resolveLimitRules(overrides: Partial<LimitRules> = {}): LimitRules {
  const rules: LimitRules = { ...limitRules, ...overrides };
  if (!overrides.sms_texts_signed_in_per_tenant) {
    const budget = rules.phone_codes_per_tenant;
    rules.sms_texts_signed_in_per_tenant = { points: Math.floor(budget.points / 2), durationSeconds: budget.durationSeconds };
  }
  return rules;
}

export interface LimiterOptions {
  /** Shared store; without it every instance counts on its own, in memory. */
  redis?: Redis | undefined;
  /** Overrides of the default rules (RATE_LIMIT_RULES). */
  rules?: Partial<LimitRules> | undefined;
  /** Redis key prefix (REDIS_KEY_PREFIX), so deployments or test runs sharing one Redis do not share counts. */
  keyPrefix?: string | undefined;
  /** The service clock in milliseconds, which places the aligned windows of `tally` (default: the system's). */
  nowMs?: (() => number) | undefined;
}

export function createLimiter(options: LimiterOptions = {}): Limiter {
  const rules = resolveLimitRules(options.rules);
  const prefix = options.keyPrefix ?? "mteja";
  const nowMs = options.nowMs ?? Date.now;
  const counter = (base: { points: number; duration: number; keyPrefix: string }): RateLimiterAbstract =>
    options.redis
      ? new RateLimiterRedis({
          ...base,
          storeClient: options.redis,
          // If Redis is unreachable, count in this instance's memory rather than fail every auth request.
          rejectIfRedisNotReady: true,
          insuranceLimiter: new RateLimiterMemory(base),
        })
      : new RateLimiterMemory(base);
  const limiters = new Map<LimitRule, RateLimiterAbstract>();
  const tallies = new Map<LimitRule, RateLimiterAbstract>();
  for (const rule of limitRuleNames) {
    const { points, durationSeconds } = rules[rule];
    // At least a point: a number of 0 (half a budget of 1) is a number to compare with, never a counter's.
    limiters.set(rule, counter({ points: Math.max(1, points), duration: durationSeconds, keyPrefix: `${prefix}:limit:${rule}` }));
    // A tally never refuses by itself: the domain compares its counts.
    tallies.set(rule, counter({ points: Number.MAX_SAFE_INTEGER, duration: durationSeconds, keyPrefix: `${prefix}:tally:${rule}` }));
  }
  const get = (rule: LimitRule) => limiters.get(rule)!;
  const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

  return {
    async consume(rule, key, limit = rules[rule].points) {
      let state: RateLimiterRes;
      try {
        state = await get(rule).consume(key, 1);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        // Over the rule's number, but the event is counted all the same: a shop's own number may be higher.
        state = rejection;
      }
      if (state.consumedPoints <= limit) return { allowed: true, retryAfter: 0, count: state.consumedPoints };
      return { allowed: false, retryAfter: seconds(state.msBeforeNext), count: state.consumedPoints };
    },
    async peek(rule, key, limit = rules[rule].points) {
      const state = await get(rule).get(key);
      if (state && state.consumedPoints >= limit) return { allowed: false, retryAfter: seconds(state.msBeforeNext) };
      return { allowed: true, retryAfter: 0 };
    },
    async reset(rule, key) {
      await get(rule).delete(key);
    },
    async refund(rule, key) {
      await get(rule).reward(key, 1);
    },
    async tally(rule, keys, by) {
      const windowMs = rules[rule].durationSeconds * 1000;
      const now = nowMs();
      const window = Math.floor(now / windowMs);
      const tally = tallies.get(rule)!;
      const counts = await Promise.all(
        keys.map(async (key) => {
          const windowKey = `${window}:${key}`;
          const state = by === 1 ? await tally.consume(windowKey, 1) : by === -1 ? await tally.reward(windowKey, 1) : await tally.get(windowKey);
          return Math.max(0, state?.consumedPoints ?? 0);
        }),
      );
      return { counts, limit: rules[rule].points, retryAfter: seconds((window + 1) * windowMs - now) };
    },
    numberOf(rule) {
      return rules[rule].points;
    },
  };
}
