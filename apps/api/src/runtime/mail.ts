/**
 * The mail side of the composition root: the outbox store on the database, the transport (SMTP
 * when SMTP_URL is set, else the log transport) and the worker that sends what the domain wrote
 * to the outbox. See docs/mail.md.
 */
import { leases, outboxes, type Database } from "@mteja/db";
import type { Logger, Random } from "@mteja/domain";
import { createMailTransport, createOutboxWorker, isMailKind, type OutboxRunResult } from "@mteja/mailer";
import type { Settings } from "../settings.js";

export interface MailRuntime {
  /** Asks the worker to look at the outbox now (after a commit that wrote mail). */
  nudge(): void;
  /** Claims and sends one batch now; for tests and tools. */
  runOnce(): Promise<OutboxRunResult>;
  /** Stops the worker (waiting for the batch in flight) and closes the transport. */
  close(): Promise<void>;
}

export function createMailRuntime(settings: Settings, db: Database, logger: Logger, now: () => Date, random: Random, startWorker = true): MailRuntime {
  const production = settings.NODE_ENV === "production";
  const transport = createMailTransport({
    smtpUrl: settings.SMTP_URL,
    from: settings.MAIL_FROM,
    logger,
    // Bodies carry live reset and verification links.
    logMailBodies: !production,
    now,
  });
  // Outside production the bodies stay, so the dev outbox (GET /dev/outbox) can show the links.
  const store = {
    ...outboxes.createMailStore(db.unscoped("worker"), { isKind: isMailKind, scrubBodiesOnSend: production }),
    renewLeases: (held: readonly leases.HeldLease[], until: Date) =>
      leases.renew(db.unscoped("worker"), "mail_outbox", held, until),
  };
  const leaseMs = settings.OUTBOX_LEASE_SECONDS * 1000;
  const worker = createOutboxWorker({ store, transport, logger, now, random, leaseMs });
  if (startWorker) worker.start();
  return {
    nudge: () => worker.nudge(),
    runOnce: () => worker.runOnce(),
    close: async () => {
      await worker.stop();
      await transport.close();
    },
  };
}
