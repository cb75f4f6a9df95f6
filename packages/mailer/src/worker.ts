// The mail outbox runs on the one leased outbox worker of @mteja/kernel; this fixes what is mail's.
import { createLeasedOutboxWorker, type LeasedOutboxWorker, type OutboxRunResult, type Random } from "@mteja/kernel";
import { describeError, MailDeliveryError } from "./delivery-error.js";
import type { MailLogger } from "./logger.js";
import type { OutboxMail, OutboxStore } from "./outbox.js";
import type { MailTransport } from "./transport.js";

export type { OutboxRunResult };

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

export type OutboxWorker = LeasedOutboxWorker;

export function createOutboxWorker(options: OutboxWorkerOptions): OutboxWorker {
  const { store, transport, ...rest } = options;
  return createLeasedOutboxWorker<OutboxMail, void>({
    ...rest,
    store: { claimDue: (opts) => store.claimDue(opts), markSent: (id, sentAt) => store.markSent(id, sentAt), markFailed: (id, opts) => store.markFailed(id, opts) },
    deliver: (mail, opts) => transport.send(mail, opts),
    describeFailure: (error) => ({
      description: describeError(error),
      serverUnavailable: error instanceof MailDeliveryError && error.serverUnavailable,
    }),
    logFields: (mail) => ({ mailId: mail.id, tenantId: mail.tenantId, kind: mail.kind }),
    noun: "Mail",
  });
}
