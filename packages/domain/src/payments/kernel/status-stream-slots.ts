/**
 * How many payments.onStatus subscriptions each user has open, so that one customer cannot hold an
 * unbounded number of streams (each one a connection and a database re-check every few seconds).
 * Counted in this instance: a user's subscriptions are spread over instances only if their requests
 * are, so the bound per user is this limit times the number of instances.
 */
export const MAX_OPEN_STATUS_STREAMS_PER_USER = 5;

export interface StatusStreamSlot {
  /** Gives the slot back; calling it again does nothing. */
  release(): void;
}

export interface StatusStreamSlots {
  /** A slot for the user's new subscription, or undefined when all of theirs are in use. */
  take(userKey: string): StatusStreamSlot | undefined;
}

export function createStatusStreamSlots(limit = MAX_OPEN_STATUS_STREAMS_PER_USER): StatusStreamSlots {
  const open = new Map<string, number>();
  return {
    take(userKey) {
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
