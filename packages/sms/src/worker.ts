// The SMS outbox runs on the one leased outbox worker of @mteja/shared, as the mail outbox does.
import { createLeasedOutboxWorker, type LeasedOutboxStore, type LeasedOutboxWorker, type Random } from "@mteja/shared";
import { describeSmsError, SmsDeliveryError } from "./delivery-error.js";
import type { SmsLogger } from "./log-transport.js";
import type { OutboxText, SmsSendResult } from "./outbox.js";
import type { SmsTransport } from "./transport.js";

export type SmsOutboxStore = LeasedOutboxStore<OutboxText, SmsSendResult>;

export interface SmsOutboxWorkerOptions {
  store: SmsOutboxStore;
  transport: SmsTransport;
  logger: SmsLogger;
  random: Pick<Random, "int">;
  now?: () => Date;
  intervalMs?: number;
  /** How long claimed texts stay reserved for this worker, renewed while they are sent (the shared folder's default: 60 s). */
  leaseMs?: number;
  baseBackoffMs?: number;
  maxBackoffMs?: number;
}

export function createSmsOutboxWorker(options: SmsOutboxWorkerOptions): LeasedOutboxWorker {
  const { store, transport, ...rest } = options;
  return createLeasedOutboxWorker<OutboxText, SmsSendResult>({
    ...rest,
    store,
    deliver: (text, opts) => transport.send(text, opts),
    describeFailure: (error) => ({
      description: describeSmsError(error),
      serverUnavailable: error instanceof SmsDeliveryError && error.providerUnavailable,
    }),
    logFields: (text) => ({ textId: text.id, tenantId: text.tenantId, kind: text.kind }),
    noun: "Text",
  });
}
