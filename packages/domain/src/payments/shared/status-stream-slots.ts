/**
 * How many payments.onStatus subscriptions each user has open, so that one customer cannot hold an
 * unbounded number of streams (each one a connection and a database re-check every few seconds).
 * This module counts in this instance's memory; with REDIS_URL set, the composition root counts in
 * Redis instead, so the bound holds across instances (docs/deployment.md#shared-caps), and falls back
 * to this count while Redis is unreachable.
 */
export const MAX_OPEN_STATUS_STREAMS_PER_USER = 5;

export interface StatusStreamSlot {
  /** Gives the slot back; calling it again does nothing. */
  release(): void;
}

export interface StatusStreamSlots {
  /** A slot for the user's new subscription, or undefined when all of theirs are in use. */
  take(userKey: string): Promise<StatusStreamSlot | undefined>;
}

export function createStatusStreamSlots(limit = MAX_OPEN_STATUS_STREAMS_PER_USER): StatusStreamSlots {
  const open = new Map<string, number>();
  return {
    async take(userKey) {
      const count = open.get(userKey) ?? 0;
      if (count >= limit) return undefined;
      open.set(userKey, count + 1);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          const left = (open.get(userKey) ?? 1) - 1;
          if (left > 0) open.set(userKey, left);
          else open.delete(userKey);
        },
      };
    },
  };
}
