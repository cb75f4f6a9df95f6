import type { PaymentModel } from "@mteja/db";
import type { PaymentPorts } from "./ports.js";

/**
 * Tells this instance's payments.onStatus subscribers that a payment's status changed (other instances'
 * hear of it from the database's notice, docs/deployment.md#status-across-instances); called after
 * the change committed, whichever path settled it (callback, query, reconciler); and nudges the webhook
 * worker, since the change wrote its event in the same transaction.
 */
export function publishPaymentStatus(deps: PaymentPorts, payment: Pick<PaymentModel, "id" | "tenantId" | "checkoutRequestId" | "status">): void {
  deps.webhooks.nudge();
  deps.daraja.events.emit({ paymentId: payment.id, tenantId: payment.tenantId, checkoutRequestId: payment.checkoutRequestId, status: payment.status });
}
