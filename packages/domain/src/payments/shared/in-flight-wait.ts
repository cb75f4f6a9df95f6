import type { Clock } from "../../shared/ports.js";

/** How often a retry re-reads the first request's row while it waits. */
export const inFlightPollMs = 100;

export interface InFlightWait<Row extends { createdAt: Date }> {
  /** Still waiting for Daraja's answer to the first request. */
  inFlight(row: Row): boolean;
  reload(): Promise<Row>;
  /** now() places the first request in its window; the wait itself is real time (tests move now() by hand). */
  clock: Clock;
  /** How long the first request can be waiting for Daraja at worst (momo settings, derived from the client's timing). */
  inFlightSeconds: number;
}

/**
 * A retry with a used Idempotency-Key (STK push and B2C alike) waits for the first request's answer,
 * but never past the first request's in-flight window: a row still unanswered then is not in flight
 * any more (its outcome is unknown). Returns the last row read.
 */
export async function waitWhileInFlight<Row extends { createdAt: Date }>(row: Row, wait: InFlightWait<Row>): Promise<Row> {
  let current = row;
  const remainingMs = current.createdAt.getTime() + wait.inFlightSeconds * 1000 - wait.clock.now().getTime();
  const deadline = wait.clock.monotonicMs() + Math.max(remainingMs, 0);
  while (wait.inFlight(current) && wait.clock.monotonicMs() < deadline) {
    await wait.clock.sleep(inFlightPollMs);
    current = await wait.reload();
  }
  return current;
}
