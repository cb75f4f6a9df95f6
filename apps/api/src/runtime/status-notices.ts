/**
 * Payment status across instances (docs/deployment.md#status-across-instances): on PostgreSQL, every
 * change of a payment's status committed by any instance is heard here through LISTEN and wakes this
 * instance's payments.onStatus subscribers of that payment. When the listening connection comes back
 * after an outage, every open subscription re-checks once: the notices sent meanwhile are lost. The
 * embedded database serves one process, whose own settlements already wake its subscribers.
 */
import { listenForPaymentStatus, type Database } from "@mteja/db";
import type { Logger, PaymentEvents } from "@mteja/domain";
import type { Settings } from "../settings.js";

/** The listening connection's state, as /readyz and /metrics report it. */
export type StatusListenerState = "connected" | "reconnecting";

export interface StatusNotices {
  state(): StatusListenerState;
  close(): Promise<void>;
}

export function startStatusNotices(
  settings: Settings,
  db: Database,
  events: PaymentEvents,
  logger: Logger,
): StatusNotices | undefined {
  const url = settings.DATABASE_LISTEN_URL ?? settings.DATABASE_URL;
  if (db.kind !== "postgres" || !url) return undefined;
  const listener = listenForPaymentStatus(url, {
    onNotice: (notice) => events.emit(notice),
    onListening(again) {
      if (again) logger.info({}, "listening for payment status notices again: open status subscriptions re-check once");
      events.recheckAll();
    },
    onLost: (error) =>
      logger.warn(
        { err: error },
        "not listening for payment status notices (DATABASE_LISTEN_URL, else DATABASE_URL): status subscriptions " +
          "hear of other instances' changes at their 2 s re-check until it is back",
      ),
  });
  return {
    // Before the first LISTEN too: it is being (re)tried, and subscribers rely on their re-check meanwhile.
    state: () => (listener.listening() ? "connected" : "reconnecting"),
    close: () => listener.close(),
  };
}
