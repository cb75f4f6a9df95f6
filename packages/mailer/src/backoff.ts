export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
}

export interface Backoff {
  delayMs: number;
  /** True once the exponential delay has reached the cap: the mail has been failing for a long time. */
  capped: boolean;
}

/**
 * Delay before the next attempt after `attempts` failed attempts: base · 2^(attempts−1), capped,
 * minus up to a quarter at random so mails that failed together (an outage) do not all retry at once.
 */
export function backoffAfter(attempts: number, policy: BackoffPolicy, random: () => number): Backoff {
  const exponential = policy.baseMs * 2 ** (Math.max(attempts, 1) - 1);
  const ceiling = Math.min(policy.maxMs, exponential);
  return { delayMs: Math.round(ceiling * (1 - 0.25 * random())), capped: exponential >= policy.maxMs };
}
