/** The client's timing defaults, and the longest one money request can take with them. */
export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [250, 750];

export interface DarajaTiming {
  timeoutMs?: number | undefined;
  retryDelaysMs?: readonly number[] | undefined;
  /** The processes share the token (an AccessTokenStore): one may first wait for another's token fetch. */
  sharedTokens?: boolean | undefined;
}

/** The longest one OAuth token fetch can take: every attempt timing out, with the pauses between them. */
export function tokenFetchMs(timing: DarajaTiming = {}): number {
  const timeoutMs = timing.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const delays = timing.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  return (delays.length + 1) * timeoutMs + delays.reduce((sum, delay) => sum + delay, 0);
}

/**
 * The longest an STK push or a B2C request can wait for its answer: the OAuth token (every attempt
 * timing out, with the pauses between them; with shared tokens, after waiting as long for another
 * process's fetch), the request, and once more both after Daraja rejects the token (404.001.03).
 * Anything still without an answer after this is not in flight any more.
 */
export function worstCaseRequestMs(timing: DarajaTiming = {}): number {
  const timeoutMs = timing.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const tokenMs = tokenFetchMs(timing) * (timing.sharedTokens ? 2 : 1);
  return 2 * (tokenMs + timeoutMs);
}
