/**
 * The intent follows its payment (docs/payment-intents.md#statuses). Every path that settles a payment
 * (callbacks, STK queries, the reconciler's time-out and give-up, a refused push) calls
 * `settleIntentOf` in the transaction that writes the payment's new status, before that write: the
 * intent's row is locked, moved by the state machine, and a success that finds the intent already paid
 * comes back as `{ duplicate: true }` for the payment's own update (the partial unique index
 * payments_one_success_per_intent allows one success that counts).
 */
import { Prisma, type PaymentModel, type RawSql } from "@mteja/db";
import { isIntentStatus, settleIntentWithPayment, statusesAllowing, type SettledPaymentStatus } from "./intent-transitions.js";

const settledStatuses: ReadonlySet<string> = new Set(["SUCCESS", "CANCELLED", "FAILED", "TIMEOUT"]);

/** Payment columns the intent adds to the payment's own update. */
export type IntentPaymentColumns = { duplicate?: true };

export async function settleIntentOf(
  tx: RawSql,
  payment: Pick<PaymentModel, "tenantId" | "intentId">,
  paymentStatus: unknown,
  now: Date,
): Promise<IntentPaymentColumns> {
  if (!payment.intentId || typeof paymentStatus !== "string" || !settledStatuses.has(paymentStatus)) return {};
  const rows = await tx.$queryRaw<{ status: string }[]>`
    SELECT status FROM payment_intents WHERE id = ${payment.intentId} AND tenant_id = ${payment.tenantId} FOR UPDATE`;
  const status = rows[0]?.status;
  if (status === undefined || !isIntentStatus(status)) return {};
  const settlement = settleIntentWithPayment(status, paymentStatus as SettledPaymentStatus);
  if (settlement.next) {
    await tx.$executeRaw`
      UPDATE payment_intents SET status = ${settlement.next}, updated_at = ${now}
       WHERE id = ${payment.intentId} AND tenant_id = ${payment.tenantId} AND status IN (${Prisma.join(statusesAllowing(settlement.event))})`;
  }
  return settlement.duplicate ? { duplicate: true } : {};
}
