/**
 * Abuse limits (docs/limits.md). The domain names what it counts; the composition root
 * supplies the store (in memory, or Redis shared by every instance).
 */
export type LimitRule =
  | "login_failures_per_account"
  | "login_failures_per_ip"
  | "auth_requests_per_ip"
  | "mails_per_account"
  | "stkpush_per_user"
  | "stkquery_per_user"
  | "stk_prompts_per_phone_minute"
  | "stk_prompts_per_phone_hour"
  | "unauthenticated_callbacks_stored"
  | "unmatched_callbacks_stored_per_tenant"
  | "phone_codes_per_tenant"
  | "sms_texts_per_ip"
  | "sms_texts_per_account"
  | "sms_texts_signed_in_per_tenant"
  | "sms_texts_signed_in_per_ip"
  | "sms_texts_platform"
  | "email_changes_per_account"
  | "email_change_mails_per_address"
  | "webhook_redeliveries_per_event"
  | "security_notices_per_account"
  | "two_factor_enables_per_account"
  | "guests_per_ip";

export interface LimitDecision {
  allowed: boolean;
  /** Seconds until the caller may try again, when not allowed. */
  retryAfter: number;
  /**
   * The key's count in its window, this event included, where the store knows it: `limit + 1` marks
   * the first event refused in a window (said once in the log, not at every refusal).
   */
  count?: number;
}

/**
 * Counts under one rule in a window aligned to the clock, the same window for every key of the rule, so
 * that the counts of different keys are of one period and can be compared (a shop's share of the
 * platform's texts).
 */
export interface Tally {
  /** Each key's count in the current window, after the change. */
  counts: number[];
  /** The rule's number for the window. */
  limit: number;
  /** Seconds until the window ends. */
  retryAfter: number;
}

export interface Limiter {
  /**
   * Counts one event and says whether it was within the limit: the rule's number, or `limit` where a
   * shop has its own (docs/tenants.md#settings; the count is the same, only the number differs).
   */
  consume(rule: LimitRule, key: string, limit?: number): Promise<LimitDecision>;
  /** Says whether the key is currently blocked (under the rule's number or `limit`), without counting. */
  peek(rule: LimitRule, key: string, limit?: number): Promise<LimitDecision>;
  /** Forgets the key's count (e.g. failed logins after a successful one). */
  reset(rule: LimitRule, key: string): Promise<void>;
  /** Gives back one point consumed earlier (an attempt counted up front that turned out to succeed). */
  refund(rule: LimitRule, key: string): Promise<void>;
  /** Adds `by` to each key's count in the rule's current aligned window (0: reads; -1: gives one back). */
  tally(rule: LimitRule, keys: readonly string[], by: -1 | 0 | 1): Promise<Tally>;
  /** The rule's number in this process (RATE_LIMIT_RULES or the default), for a rule compared with another's count. */
  numberOf(rule: LimitRule): number;
}

export const unlimited: Limiter = {
  consume: async () => ({ allowed: true, retryAfter: 0 }),
  peek: async () => ({ allowed: true, retryAfter: 0 }),
  reset: async () => undefined,
  refund: async () => undefined,
  tally: async (_rule, keys) => ({ counts: keys.map(() => 0), limit: Number.POSITIVE_INFINITY, retryAfter: 0 }),
  numberOf: () => Number.POSITIVE_INFINITY,
};
