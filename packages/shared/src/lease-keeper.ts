/**
 * Keeps the leases of the rows a worker is working on (docs/deployment.md#leases-and-crashed-instances).
 * A claimed row is leased until a time; another instance may claim it once that time has passed. A
 * short lease brings a crashed instance's rows back soon, so the keeper renews the leases of the rows it
 * holds every third of the lease: under a live worker they never run out, however long the work takes.
 *
 * A lease is lost when a renewal answers without it (its row was finished, or changed hands), or when
 * the keeper cannot renew it (the database is away, or the worker has nothing to renew with) and less
 * than a third of it is left: the worker is told then, while another instance still cannot claim the
 * row, and stops working on it, so two live instances never work on one row at once.
 */

/** A lease as the holder last set it: the row's id and the time it ends. */
export interface HeldLease {
  id: string;
  until: Date;
}

export interface LeaseKeeperOptions {
  leaseMs: number;
  /** The service clock, which the claims' lease times were taken from. */
  now(): Date;
  /**
   * Renews, in one go, each lease still ending at the time given, so that it ends at `until`; answers
   * the ids it renewed. Absent: leases are not renewed, only given up before they run out.
   */
  renew?(held: readonly HeldLease[], until: Date): Promise<readonly string[]>;
  /** A renewal failed (reported; the leases are kept while time remains). */
  onError(error: unknown): void;
}

export interface LeaseKeeper {
  /** Keeps the lease on a row ending at `until`; `onLost` is called once if it is lost. */
  hold(id: string, until: Date, onLost?: () => void): void;
  /** Whether the lease on this row is still held. */
  holds(id: string): boolean;
  /** The row's work is over (its result recorded): its lease is no longer kept. */
  release(id: string): void;
  /** Renews the leases held now, as the timer does every third of the lease. */
  renewNow(): Promise<void>;
  /** Stops renewing; the leases held run out by themselves. */
  close(): void;
}

interface Held {
  until: Date;
  onLost: (() => void) | undefined;
}

export function createLeaseKeeper(options: LeaseKeeperOptions): LeaseKeeper {
  const { leaseMs } = options;
  const periodMs = Math.max(1, Math.floor(leaseMs / 3));
  const held = new Map<string, Held>();
  let timer: NodeJS.Timeout | undefined;
  let renewing: Promise<void> | undefined;
  let closed = false;

  function lose(id: string): void {
    const lease = held.get(id);
    if (!lease) return;
    held.delete(id);
    stopWhenIdle();
    lease.onLost?.();
  }

  function stopWhenIdle(): void {
    if (held.size > 0 || !timer) return;
    clearInterval(timer);
    timer = undefined;
  }

  /**
   * Gives up the leases that would have less than a third of the lease left by the next tick (half a
   * period spared for a late timer): another instance may claim them soon after.
   */
  function loseExpiring(): void {
    const now = options.now().getTime();
    for (const [id, lease] of held) if (lease.until.getTime() - now < periodMs * 1.5) lose(id);
  }

  async function renewHeld(): Promise<void> {
    if (!options.renew || held.size === 0) return loseExpiring();
    const asked = [...held].map(([id, lease]) => ({ id, until: lease.until }));
    const until = new Date(options.now().getTime() + leaseMs);
    let renewed: ReadonlySet<string>;
    try {
      renewed = new Set(await options.renew(asked, until));
    } catch (error) {
      options.onError(error);
      return loseExpiring();
    }
    for (const { id, until: was } of asked) {
      const lease = held.get(id);
      // Released meanwhile, or held anew by a later claim: this answer is not about it.
      if (!lease || lease.until !== was) continue;
      if (renewed.has(id)) lease.until = until;
      else lose(id);
    }
  }

  function renewNow(): Promise<void> {
    renewing ??= renewHeld().finally(() => (renewing = undefined));
    return renewing;
  }

  return {
    hold(id, until, onLost) {
      if (closed) return;
      held.set(id, { until, onLost });
      if (!timer) {
        timer = setInterval(() => void renewNow(), periodMs);
        timer.unref();
      }
    },
    holds: (id) => held.has(id),
    release(id) {
      held.delete(id);
      stopWhenIdle();
    },
    renewNow,
    close() {
      closed = true;
      held.clear();
      stopWhenIdle();
    },
  };
}
