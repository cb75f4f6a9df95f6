/**
 * payments.onStatus (tRPC subscription over SSE): the payment's status now, then every change until
 * it is terminal. A change wakes the stream at once: one applied in this instance through the in-process
 * events, one applied by another instance through its PostgreSQL notice
 * (docs/deployment.md#status-across-instances); the database is also re-checked every few seconds, for
 * a change no notice told.
 *
 * A user has at most MAX_OPEN_STATUS_STREAMS_PER_USER open at once (a further one: 429 RATE_LIMITED),
 * and each re-check also checks the subscriber's session: a logout, revocation, password or role
 * change ends the stream with INVALID_TOKEN within one re-check.
 */
import { payments, type PaymentModel } from "@mteja/db";
import { DomainError, toTrpcError } from "../shared/errors.js";
import { assertLiveSession } from "../auth/sessions/sessions.js";
import type { AuthedCtx } from "./shared/ports.js";
import { isTerminalPayment } from "./shared/payment-views.js";
import type { PaymentStatus, PaymentStatusUpdate } from "./shared/schemas.js";
import { MAX_OPEN_STATUS_STREAMS_PER_USER, type StatusStreamSlot } from "./shared/status-stream-slots.js";
import { findVisiblePayment } from "./stk/stk-query.js";

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

function tooManyStreams(): DomainError {
  return new DomainError("RATE_LIMITED", { key: "limits.status_streams", params: { max: MAX_OPEN_STATUS_STREAMS_PER_USER } }, {
    retryAfter: STATUS_RECHECK_MS / 1000,
  });
}

/** Checks access and takes one of the user's slots first (so NOT_FOUND and RATE_LIMITED are ordinary errors), then streams. */
export async function openPaymentStatusStream(ctx: AuthedCtx, checkoutRequestId: string, signal: AbortSignal | undefined): Promise<AsyncGenerator<PaymentStatusUpdate>> {
  const payment = await findVisiblePayment(ctx, checkoutRequestId);
  const slot = await ctx.deps.daraja.statusStreams.take(`${ctx.tenant.id}:${ctx.auth.sub}`);
  if (!slot) throw tooManyStreams();
  // The stream gives the slot back when it ends; a connection closed before the stream ever started does here.
  if (signal?.aborted) slot.release();
  signal?.addEventListener("abort", () => slot.release(), { once: true });
  return paymentStatusStream(ctx, payment, signal, slot);
}

async function* paymentStatusStream(ctx: AuthedCtx, initial: PaymentModel, signal: AbortSignal | undefined, slot: StatusStreamSlot): AsyncGenerator<PaymentStatusUpdate> {
  try {
    yield* followPayment(ctx, initial, signal);
  } catch (error) {
    // Thrown while streaming, past the procedure's middleware: given its tRPC code here, or clients
    // would take it for a server error and reconnect.
    throw error instanceof DomainError ? toTrpcError(error) : error;
  } finally {
    slot.release();
  }
}

async function* followPayment(ctx: AuthedCtx, initial: PaymentModel, signal: AbortSignal | undefined): AsyncGenerator<PaymentStatusUpdate> {
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
  const unsubscribe = ctx.deps.daraja.events.subscribe(payment.id, notify);
  const onAbort = () => wake?.();
  signal?.addEventListener("abort", onAbort);
  const { clock } = ctx.deps;
  const endAt = clock.monotonicMs() + STATUS_STREAM_MAX_MS;
  try {
    while (!signal?.aborted && clock.monotonicMs() < endAt) {
      if (!changed) {
        const recheck = new AbortController();
        wake = () => recheck.abort();
        await clock.sleep(STATUS_RECHECK_MS, recheck.signal);
      }
      wake = undefined;
      changed = false;
      if (signal?.aborted) return;
      // The stream lives no longer than the session it was opened in.
      await assertLiveSession(ctx.deps, ctx.db, ctx.auth);
      const current = await payments.find(ctx.db, payment.id);
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
