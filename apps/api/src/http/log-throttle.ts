/**
 * At most one log line per interval for an event anyone can cause at will (a flood of forged callbacks
 * must not become a flood of log lines). The line that gets through says how many were held back since
 * the previous one; exact counts are the metrics' job.
 */
export interface LogThrottle {
  /** Whether to write a line now, and how many events since the last line were not logged. */
  take(): { log: true; heldBack: number } | { log: false };
}

export function createLogThrottle(intervalMs: number, now: () => Date): LogThrottle {
  let nextLineAt = Number.NEGATIVE_INFINITY;
  let heldBack = 0;
  return {
    take() {
      const at = now().getTime();
      if (at < nextLineAt) {
        heldBack += 1;
        return { log: false };
      }
      const answer = { log: true as const, heldBack };
      nextLineAt = at + intervalMs;
      heldBack = 0;
      return answer;
    },
  };
}
