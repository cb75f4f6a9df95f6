/**
 * When a failed delivery is tried again (docs/webhooks.md#delivery-and-retries): the n-th retry waits the n-th
 * delay of the schedule; once the schedule is used up the delivery has failed for good. The default
 * is about 30 s, 2 min, 10 min, 1 h, then hourly, for 3 days (WEBHOOK_RETRY_SCHEDULE replaces it).
 *
 * A fixed list rather than @mteja/shared's doubling backoff: the contract names these delays and a
 * total of 3 days, which a doubling policy cannot express, and tests set the list to `0,0,0`.
 */
export const defaultWebhookRetrySchedule: readonly number[] = [30, 120, 600, ...Array.from({ length: 72 }, () => 3600)];

/** The delay in seconds before the next attempt after `failedAttempts` failures; undefined: give up. */
export function retryDelaySeconds(schedule: readonly number[], failedAttempts: number): number | undefined {
  return schedule[failedAttempts - 1];
}
