/**
 * In-process notifications of payment status changes, emitted after the change committed. They only
 * shorten the wait of `payments.onStatus` subscribers in this instance; a change committed by another
 * instance is seen by the subscribers' periodic database re-check.
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
  /** Calls `listener` for changes of this payment until the returned function is called. */
  subscribe(paymentId: string, listener: (event: PaymentStatusEvent) => void): () => void;
}

export function createPaymentEvents(): PaymentEvents {
  const emitter = new EventEmitter();
  // One listener per open subscription; the count is bounded by open connections, not a leak.
  emitter.setMaxListeners(0);
  return {
    emit(event) {
      emitter.emit(event.paymentId, event);
    },
    subscribe(paymentId, listener) {
      emitter.on(paymentId, listener);
      return () => void emitter.off(paymentId, listener);
    },
  };
}
