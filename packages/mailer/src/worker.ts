import { backoffAfter, type Random } from "@mteja/kernel";
import { describeError, MailDeliveryError } from "./delivery-error.js";
import type { MailLogger } from "./logger.js";
import type { OutboxMail, OutboxStore } from "./outbox.js";
import type { MailTransport } from "./transport.js";

export interface OutboxWorkerOptions {
  store: OutboxStore;
  transport: MailTransport;
  logger: MailLogger;
  now?: () => Date;
  /** Pause between runs when there is nothing more to send (default 1 s). */
  intervalMs?: number;
  /** Mails claimed per run (default 20). */
  batchSize?: number;
  /** How long claimed mails stay reserved for this worker (default 60 s). */
  leaseMs?: number;
  /** Delay after the first failure (default 2 s); doubles with each failure. */
  baseBackoffMs?: number;
  /** Longest delay between attempts (default 15 min); a failing mail keeps being retried at this pace. */
  maxBackoffMs?: number;
  /** Mails of one batch sent at the same time (default 4). */
  concurrency?: number;
  /** Source of the backoff's jitter (the composition root passes the service's). */
  random: Pick<Random, "int">;
}

export interface OutboxRunResult {
  sent: number;
  failed: number;
}

export interface OutboxWorker {
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

export function createOutboxWorker(options: OutboxWorkerOptions): OutboxWorker {
  const { store, transport, logger } = options;
  const now = options.now ?? (() => new Date());
  const intervalMs = options.intervalMs ?? 1_000;
  const batchSize = options.batchSize ?? 20;
  const leaseMs = options.leaseMs ?? 60_000;
  const backoffPolicy = { base: options.baseBackoffMs ?? 2_000, max: options.maxBackoffMs ?? 15 * 60_000 };
  const concurrency = Math.max(1, options.concurrency ?? 4);
  // Up to a quarter off, so mails that failed together (an outage) do not all retry at once.
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
    const mails = await store.claimDue({ limit: batchSize, now: claimedAt, leaseMs });
    // Sends must end well before the lease does: once it runs out another instance may claim the
    // same mail, and the two must never be sending it at the same time.
    const sendDeadline = claimedAt.getTime() + leaseMs * 0.75;
    const queue = [...mails];
    const result: BatchResult = { claimed: mails.length, sent: 0, failed: 0 };
    let serverUnavailable: string | undefined;

    async function sendQueued(): Promise<void> {
      for (let mail = queue.shift(); mail; mail = queue.shift()) {
        if (serverUnavailable !== undefined) {
          // The server is down for every mail; trying each one would only wait out more timeouts.
          await recordFailure(mail, `Not tried, server unavailable: ${serverUnavailable}`);
          result.failed++;
          continue;
        }
        const remainingMs = sendDeadline - now().getTime();
        // Left leased: claimed again once the lease runs out.
        if (remainingMs <= 0) continue;
        const failure = await deliver(mail, remainingMs);
        if (failure === undefined) {
          result.sent++;
          continue;
        }
        if (failure.serverUnavailable) serverUnavailable ??= failure.description;
        await recordFailure(mail, failure.description);
        result.failed++;
      }
    }

    await Promise.all(Array.from({ length: Math.min(concurrency, mails.length) }, sendQueued));
    return result;
  }

  async function deliver(
    mail: OutboxMail,
    remainingMs: number,
  ): Promise<{ description: string; serverUnavailable: boolean } | undefined> {
    const abort = new AbortController();
    const abortTimer = setTimeout(() => abort.abort(), remainingMs);
    try {
      await transport.send(mail, { signal: abort.signal });
    } catch (error) {
      return {
        description: describeError(error),
        serverUnavailable: error instanceof MailDeliveryError && error.serverUnavailable,
      };
    } finally {
      clearTimeout(abortTimer);
    }
    const fields = { mailId: mail.id, tenantId: mail.tenantId, kind: mail.kind, attempt: mail.attempts + 1 };
    try {
      await store.markSent(mail.id, now());
      logger.info(fields, "Mail sent");
    } catch (error) {
      logger.error(
        { ...fields, error: describeError(error) },
        "Mail sent but not marked as sent; it will be sent again once its lease runs out",
      );
    }
    return undefined;
  }

  async function recordFailure(mail: OutboxMail, error: string): Promise<void> {
    const attempts = mail.attempts + 1;
    const backoff = backoffAfter(attempts, backoffPolicy, jitter);
    const nextAttemptAt = new Date(now().getTime() + backoff.delay);
    const fields = {
      mailId: mail.id,
      tenantId: mail.tenantId,
      kind: mail.kind,
      attempts,
      nextAttemptAt: nextAttemptAt.toISOString(),
      error,
    };
    try {
      await store.markFailed(mail.id, { error, nextAttemptAt, attempts });
    } catch (storeError) {
      logger.error(
        { ...fields, storeError: describeError(storeError) },
        "Mail not sent and the failure not recorded; it will be retried once its lease runs out",
      );
      return;
    }
    if (backoff.capped) logger.error(fields, "Mail still not delivered after many attempts; retrying at the longest interval");
    else logger.warn(fields, "Mail not delivered; will retry");
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
      again = result.sent === batchSize;
    } catch (error) {
      failedToRun = true;
      logger.error({ error: describeError(error) }, "Mail outbox could not be read; will try again");
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
