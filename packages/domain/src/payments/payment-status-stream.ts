/**
 * payments.onStatus (tRPC subscription over SSE): the payment's status now, then every change until
 * it is terminal. Changes applied in this instance arrive through the in-process events at once; the
 * database is re-checked every few seconds so a change applied by another instance is seen too.
 */
import type { PaymentModel } from "@mteja/db";
import type { MomoCtx } from "./momo-context.js";
import { isTerminalPayment } from "./payment-records.js";
import type { PaymentStatus, PaymentStatusUpdate } from "./schemas.js";
import { findVisiblePayment } from "./stk-query.js";

export const STATUS_RECHECK_MS = 2_000;
/** A subscription ends after this long even if the payment is still pending (the client may resubscribe). */
export const STATUS_STREAM_MAX_MS = 30 * 60_000;

function update(payment: PaymentModel): PaymentStatusUpdate {
  return {
    checkoutRequestId: payment.checkoutRequestId ?? "",
    status: payment.status as PaymentStatus,
    resultCode: payment.resultCode,
    resultDesc: payment.resultDesc ?? payment.lastError,
  };
}

/** Checks access first (so NOT_FOUND is an ordinary error), then streams. */
export async function openPaymentStatusStream(ctx: MomoCtx, checkoutRequestId: string, signal: AbortSignal | undefined): Promise<AsyncGenerator<PaymentStatusUpdate>> {
  const payment = await findVisiblePayment(ctx, checkoutRequestId);
  return paymentStatusStream(ctx, payment, signal);
}

async function* paymentStatusStream(ctx: MomoCtx, initial: PaymentModel, signal: AbortSignal | undefined): AsyncGenerator<PaymentStatusUpdate> {
  let payment = initial;
  yield update(payment);
  if (isTerminalPayment(payment.status)) return;

  let wake: (() => void) | undefined;
  // An event between two waits is not lost: the next wait returns at once.
  let changed = false;
  const notify = () => {
    changed = true;
    wake?.();
  };
  const unsubscribe = ctx.deps.momo.events.subscribe(payment.id, notify);
  const onAbort = () => wake?.();
  signal?.addEventListener("abort", onAbort);
  const endAt = Date.now() + STATUS_STREAM_MAX_MS;
  try {
    while (!signal?.aborted && Date.now() < endAt) {
      await new Promise<void>((resolve) => {
        if (changed) return resolve();
        const timer = setTimeout(resolve, STATUS_RECHECK_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
      changed = false;
      if (signal?.aborted) return;
      const current = await ctx.deps.db.prisma.payment.findUnique({ where: { id: payment.id } });
      if (!current) return;
      if (current.status !== payment.status) {
        payment = current;
        yield update(payment);
      }
      if (isTerminalPayment(payment.status)) return;
    }
  } finally {
    unsubscribe();
    signal?.removeEventListener("abort", onAbort);
  }
}
