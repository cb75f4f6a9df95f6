/**
 * Notifications of payment status changes, emitted after the change committed: by this instance's own
 * settlements at once, and, on PostgreSQL, by the notices of every instance's
 * (docs/deployment.md#status-across-instances). They only shorten the wait of `payments.onStatus`
 * subscribers, which then read the payment; the subscribers' periodic database re-check still finds a
 * change no notification told.
 */
import { EventEmitter } from "node:events";

export interface PaymentStatusEvent {
  paymentId: string;
  tenantId: string;
  checkoutRequestId: string | null;
  status: string;
}

export interface PaymentEvents {
  emit(event: PaymentStatusEvent): void;
  /** Calls `listener` when this payment may have changed, until the returned function is called. */
  subscribe(paymentId: string, listener: () => void): () => void;
  /** Every subscriber re-reads its payment: notifications may have been missed (a listener reconnected). */
  recheckAll(): void;
}

export function createPaymentEvents(): PaymentEvents {
  const emitter = new EventEmitter();
  // One listener per open subscription; the count is bounded by open connections, not a leak.
  emitter.setMaxListeners(0);
  return {
    emit(event) {
      emitter.emit(event.paymentId);
    },
    subscribe(paymentId, listener) {
      emitter.on(paymentId, listener);
      return () => void emitter.off(paymentId, listener);
    },
    recheckAll() {
      for (const paymentId of emitter.eventNames()) emitter.emit(paymentId);
    },
  };
}
