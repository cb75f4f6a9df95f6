/**
 * The one outbox worker: claims due rows with a lease, delivers them a few at a time, records each
 * success or failure, and retries failures after the one backoff (backoff.ts). The mail outbox and the
 * SMS outbox both run on it; what differs (the store, how one item is delivered, the log wording) is
 * passed in.
 */
import { backoffAfter } from "./backoff.js";
import { quarterShare } from "./fair-share.js";
import { createLeaseKeeper, type HeldLease } from "./lease-keeper.js";
import type { Random } from "./ports.js";

/** An outbox row as claimed: its id and its failed attempts so far (0 for one never tried). */
export interface OutboxItem {
  id: string;
  attempts: number;
}

/**
 * Storage of an outbox. `claimDue` returns up to `limit` unsent rows whose next attempt is due and
 * leases them (moves their next attempt to `now + leaseMs`, FOR UPDATE SKIP LOCKED), so no other
 * worker claims them while this one delivers; a worker that dies mid-send lets the lease run out.
 * It is fair between tenants (fair-share.ts): at most `perTenant` rows of one tenant, taken in turns.
 */
export interface LeasedOutboxStore<T extends OutboxItem, R> {
  claimDue(opts: { limit: number; now: Date; leaseMs: number; perTenant: number }): Promise<T[]>;
  /**
   * Renews the leases of claimed rows still leased as held (lease-keeper.ts); answers the ids renewed.
   * Without it, the worker gives each item up a third of a lease before its lease ends.
   */
  renewLeases?(held: readonly HeldLease[], until: Date): Promise<readonly string[]>;
  /** Records delivery (with what the delivery answered); the row is never claimed again. Idempotent. */
  markSent(id: string, sentAt: Date, delivered: R): Promise<void>;
  /** Records a failed attempt and when to try again. Must not touch a row already marked sent. */
  markFailed(id: string, opts: { error: string; nextAttemptAt: Date; attempts: number }): Promise<void>;
}

/** Structured fields first, then a message: any pino logger fits. */
export interface OutboxLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** A failed delivery, described so it can be stored and logged (no body, no token). */
export interface DeliveryFailure {
  description: string;
  /** The provider is down for every item, not just this one: the rest of the batch is not tried. */
  serverUnavailable: boolean;
}

export interface LeasedOutboxWorkerOptions<T extends OutboxItem, R> {
  store: LeasedOutboxStore<T, R>;
  /** Delivers one item; rejects when it was not delivered. */
  deliver(item: T, opts: { signal: AbortSignal }): Promise<R>;
  /** Turns a rejection of `deliver` (or of the store) into what is stored and logged. */
  describeFailure(error: unknown): DeliveryFailure;
  logger: OutboxLogger;
  /** Fields that name an item in the log lines (never its body). */
  logFields(item: T): Record<string, unknown>;
  /** How the log lines name an item: "Mail", "Text". */
  noun: string;
  now?: () => Date;
  /** Pause between runs when there is nothing more to send (default 1 s). */
  intervalMs?: number;
  /** Items claimed per run (default 20): the instance's sends in flight, of which one tenant's at most a quarter. */
  batchSize?: number;
  /**
   * How long claimed items stay reserved for this worker (default 60 s); renewed every third of it while
   * they are being sent when the store can renew (docs/deployment.md#leases-and-crashed-instances).
   */
  leaseMs?: number;
  /** A send still running this long is aborted (default 45 s). */
  sendTimeoutMs?: number;
  /** Delay after the first failure (default 2 s); doubles with each failure. */
  baseBackoffMs?: number;
  /** Longest delay between attempts (default 15 min); a failing item keeps being retried at this pace. */
  maxBackoffMs?: number;
  /** Items of one batch delivered at the same time (default 4). */
  concurrency?: number;
  /** Source of the backoff's jitter. */
  random: Pick<Random, "int">;
}

export interface OutboxRunResult {
  sent: number;
  failed: number;
}

export interface LeasedOutboxWorker {
  /** Starts sending in the background; runs right away, then every `intervalMs`. */
  start(): void;
  /** Stops the background runs and resolves once the run in flight (if any) has finished. */
  stop(): Promise<void>;
  /** Claims and sends one batch now (after any run in flight). Rejects only if the store fails to claim. */
  runOnce(): Promise<OutboxRunResult>;
  /** Asks a started worker for a run as soon as possible; several nudges coalesce into one run. */
  nudge(): void;
}

interface BatchResult extends OutboxRunResult {
  claimed: number;
}

const EMPTY_RUN: BatchResult = { claimed: 0, sent: 0, failed: 0 };

export function createLeasedOutboxWorker<T extends OutboxItem, R>(options: LeasedOutboxWorkerOptions<T, R>): LeasedOutboxWorker {
  const { store, logger, noun } = options;
  const now = options.now ?? (() => new Date());
  const intervalMs = options.intervalMs ?? 1_000;
  const batchSize = options.batchSize ?? 20;
  // A tenant at most a quarter of the claimed batch: a backlog of one shop's mails or texts delays
  // another shop's by one batch at most.
  const perTenant = quarterShare(batchSize);
  const leaseMs = options.leaseMs ?? 60_000;
  const sendTimeoutMs = options.sendTimeoutMs ?? 45_000;
  // The items being sent keep their leases; an item whose lease is lost is not sent, or its send aborted.
  const renew = store.renewLeases?.bind(store);
  const leases = createLeaseKeeper({
    leaseMs,
    now,
    ...(renew ? { renew } : {}),
    onError: (error) => {
      logger.warn({ error: options.describeFailure(error).description }, `${noun} leases not renewed`);
    },
  });
  const backoffPolicy = { base: options.baseBackoffMs ?? 2_000, max: options.maxBackoffMs ?? 15 * 60_000 };
  const concurrency = Math.max(1, options.concurrency ?? 4);
  // Up to a quarter off, so items that failed together (an outage) do not all retry at once.
  const jitter = { share: 0.25, random: options.random };

  let started = false;
  let ticking = false;
  let nudged = false;
  let timer: NodeJS.Timeout | undefined;
  // Tail of the chain of runs; never rejects, so stop() can always await it.
  let lastRun: Promise<unknown> = Promise.resolve();

  function runSerialized(): Promise<BatchResult> {
    const run = lastRun.then(runBatch);
    lastRun = run.catch(() => EMPTY_RUN);
    return run;
  }

  async function runBatch(): Promise<BatchResult> {
    const claimedAt = now();
    const items = await store.claimDue({ limit: batchSize, now: claimedAt, leaseMs, perTenant });
    // A send must never outlive its lease: once it runs out another instance may claim the same item,
    // and the two must never be sending it at the same time. The keeper renews the leases while the
    // batch is sent, and aborts a send whose lease it could not keep.
    const lost = new Map(items.map((item) => [item.id, new AbortController()]));
    const leaseEnd = new Date(claimedAt.getTime() + leaseMs);
    for (const item of items) leases.hold(item.id, leaseEnd, () => lost.get(item.id)!.abort());
    const queue = [...items];
    const result: BatchResult = { claimed: items.length, sent: 0, failed: 0 };
    let serverUnavailable: string | undefined;

    async function sendOne(item: T): Promise<void> {
      if (serverUnavailable !== undefined) {
        // The server is down for every item; trying each one would only wait out more timeouts.
        await recordFailure(item, `Not tried, server unavailable: ${serverUnavailable}`);
        result.failed++;
        return;
      }
      const failure = await deliver(item, lost.get(item.id)!);
      if (failure === undefined) {
        result.sent++;
        return;
      }
      if (failure.serverUnavailable) serverUnavailable ??= failure.description;
      await recordFailure(item, failure.description);
      result.failed++;
    }

    async function sendQueued(): Promise<void> {
      for (let item = queue.shift(); item; item = queue.shift()) {
        // Its lease was lost: left for whichever worker claims it next.
        if (!leases.holds(item.id)) continue;
        try {
          await sendOne(item);
        } finally {
          leases.release(item.id);
        }
      }
    }

    try {
      await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, sendQueued));
    } finally {
      for (const item of items) leases.release(item.id);
    }
    return result;
  }

  async function deliver(item: T, abort: AbortController): Promise<DeliveryFailure | undefined> {
    const abortTimer = setTimeout(() => abort.abort(), sendTimeoutMs);
    let delivered: R;
    try {
      delivered = await options.deliver(item, { signal: abort.signal });
    } catch (error) {
      return options.describeFailure(error);
    } finally {
      clearTimeout(abortTimer);
    }
    const fields = { ...options.logFields(item), attempt: item.attempts + 1 };
    try {
      await store.markSent(item.id, now(), delivered);
      logger.info(fields, `${noun} sent`);
    } catch (error) {
      logger.error(
        { ...fields, error: options.describeFailure(error).description },
        `${noun} sent but not marked as sent; it will be sent again once its lease runs out`,
      );
    }
    return undefined;
  }

  async function recordFailure(item: T, error: string): Promise<void> {
    const attempts = item.attempts + 1;
    const backoff = backoffAfter(attempts, backoffPolicy, jitter);
    const nextAttemptAt = new Date(now().getTime() + backoff.delay);
    const fields = { ...options.logFields(item), attempts, nextAttemptAt: nextAttemptAt.toISOString(), error };
    try {
      await store.markFailed(item.id, { error, nextAttemptAt, attempts });
    } catch (storeError) {
      logger.error(
        { ...fields, storeError: options.describeFailure(storeError).description },
        `${noun} not sent and the failure not recorded; it will be retried once its lease runs out`,
      );
      return;
    }
    if (backoff.capped) logger.error(fields, `${noun} still not delivered after many attempts; retrying at the longest interval`);
    else logger.warn(fields, `${noun} not delivered; will retry`);
  }

  function schedule(delayMs: number): void {
    clearTimeout(timer);
    timer = setTimeout(() => void tick(), delayMs);
    // The worker alone must not keep the process alive.
    timer.unref();
  }

  async function tick(): Promise<void> {
    timer = undefined;
    ticking = true;
    let again = false;
    let failedToRun = false;
    try {
      const result = await runSerialized();
      // A claim that may have been held back by a tenant's share (or came back full), and sent: look again at once.
      again = result.sent > 0 && result.claimed >= perTenant;
    } catch (error) {
      failedToRun = true;
      logger.error({ error: options.describeFailure(error).description }, `${noun} outbox could not be read; will try again`);
    } finally {
      ticking = false;
    }
    if (!started) return;
    if (nudged) again = true;
    nudged = false;
    schedule(again ? 0 : failedToRun ? Math.max(intervalMs, 5_000) : intervalMs);
  }

  return {
    start() {
      if (started) return;
      started = true;
      schedule(0);
    },
    async stop() {
      started = false;
      clearTimeout(timer);
      timer = undefined;
      await lastRun;
    },
    async runOnce() {
      const { sent, failed } = await runSerialized();
      return { sent, failed };
    },
    nudge() {
      if (!started) return;
      if (ticking) nudged = true;
      else schedule(0);
    },
  };
}
