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
  | "phone_codes_per_tenant"
  | "webhook_redeliveries_per_event";

export interface LimitDecision {
  allowed: boolean;
  /** Seconds until the caller may try again, when not allowed. */
  retryAfter: number;
}

export interface Limiter {
  /** Counts one event and says whether it was within the limit. */
  consume(rule: LimitRule, key: string): Promise<LimitDecision>;
  /** Says whether the key is currently blocked, without counting. */
  peek(rule: LimitRule, key: string): Promise<LimitDecision>;
  /** Forgets the key's count (e.g. failed logins after a successful one). */
  reset(rule: LimitRule, key: string): Promise<void>;
  /** Gives back one point consumed earlier (an attempt counted up front that turned out to succeed). */
  refund(rule: LimitRule, key: string): Promise<void>;
}

export const unlimited: Limiter = {
  consume: async () => ({ allowed: true, retryAfter: 0 }),
  peek: async () => ({ allowed: true, retryAfter: 0 }),
  reset: async () => undefined,
  refund: async () => undefined,
};
