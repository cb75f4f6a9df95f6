/** What several packages share and none owns: the one retry backoff and the time and chance ports. */
export { backoffAfter, type Backoff, type BackoffPolicy, type Jitter } from "./backoff.js";
export type { Clock, Random } from "./ports.js";
