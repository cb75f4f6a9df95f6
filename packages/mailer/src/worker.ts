// The mail outbox runs on the one leased outbox worker of @mteja/shared; this fixes what is mail's.
import { createLeasedOutboxWorker, type LeasedOutboxWorker, type LeasedOutboxWorkerOptions, type OutboxRunResult } from "@mteja/shared";
import { describeError, MailDeliveryError } from "./delivery-error.js";
import type { MailLogger } from "./logger.js";
import type { OutboxMail, OutboxStore } from "./outbox.js";
import type { MailTransport } from "./transport.js";

export type { OutboxRunResult };

/** The shared outbox worker's pacing options (interval, batch, lease, backoff, concurrency, jitter source), plus what is mail's. */
export type OutboxWorkerOptions = Omit<LeasedOutboxWorkerOptions<OutboxMail, void>, "store" | "deliver" | "describeFailure" | "logFields" | "noun" | "logger"> & {
  store: OutboxStore;
  transport: MailTransport;
  logger: MailLogger;
};

export type OutboxWorker = LeasedOutboxWorker;

export function createOutboxWorker(options: OutboxWorkerOptions): OutboxWorker {
  const { store, transport, ...rest } = options;
  return createLeasedOutboxWorker<OutboxMail, void>({
    ...rest,
    store: {
      claimDue: (opts) => store.claimDue(opts),
      markSent: (id, sentAt) => store.markSent(id, sentAt),
      markFailed: (id, opts) => store.markFailed(id, opts),
      ...(store.renewLeases ? { renewLeases: (held, until) => store.renewLeases!(held, until) } : {}),
    },
    deliver: (mail, opts) => transport.send(mail, opts),
    describeFailure: (error) => ({
      description: describeError(error),
      serverUnavailable: error instanceof MailDeliveryError && error.serverUnavailable,
    }),
    logFields: (mail) => ({ mailId: mail.id, tenantId: mail.tenantId, kind: mail.kind }),
    noun: "Mail",
  });
}
