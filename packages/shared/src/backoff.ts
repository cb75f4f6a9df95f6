import type { Random } from "./ports.js";

/** In any one unit (seconds, milliseconds): the delay comes back in the same. */
export interface BackoffPolicy {
  /** The delay after the first failed attempt; it doubles with each further one. */
  base: number;
  /** The longest delay. */
  max: number;
}

/** Takes up to `share` of the delay off at random, so retries that failed together do not all come back at once. */
export interface Jitter {
  share: number;
  random: Pick<Random, "int">;
}

export interface Backoff {
  delay: number;
  /** True once the exponential delay has reached the cap: the work has been failing for a long time. */
  capped: boolean;
}

// 2^1024 is Infinity, and 0 · Infinity is NaN: past this the cap has long been reached anyway.
const MAX_DOUBLINGS = 1023;

/**
 * The delay before the next attempt after `attempts` failed attempts (0 counts as 1):
 * base · 2^(attempts−1), capped at max, then jittered down (never up) when a jitter is given.
 */
export function backoffAfter(attempts: number, policy: BackoffPolicy, jitter?: Jitter): Backoff {
  const doublings = Math.min(Math.max(attempts - 1, 0), MAX_DOUBLINGS);
  const exponential = policy.base * 2 ** doublings;
  const ceiling = Math.min(exponential, policy.max);
  const spread = jitter ? Math.floor(ceiling * jitter.share) : 0;
  const takenOff = spread > 0 ? jitter!.random.int(spread + 1) : 0;
  return { delay: ceiling - takenOff, capped: exponential >= policy.max };
}
