/**
 * POST /api/momo/stkquery: a payment's status. A settled payment is answered from the store; a
 * pending one is asked of Daraja and settled from its answer through the same apply-once path as
 * callbacks. A customer sees only their own payments (an admin: every payment of the tenant).
 */
import { DarajaError, type StkQueryResult } from "@mteja/daraja";
import { payments, type PaymentModel, type TenantDb } from "@mteja/db";
import type { AuthedCtx, PaymentPorts } from "../shared/ports.js";
import { DomainError } from "../../shared/errors.js";
import { countStkQuery } from "./stk-limits.js";
import { publishPaymentStatus } from "../shared/status-publisher.js";
import { isAdmin } from "../shared/visibility.js";
import { isTerminalPayment } from "../shared/payment-views.js";
import { providerUnavailable, toProviderError } from "../shared/provider-errors.js";
import type { PaymentStatus } from "../shared/schemas.js";
import { settleStkPayment, type StkOutcome } from "./stk-settlement.js";
import { eventIdsFrom } from "../../webhooks/events.js";

export interface StkQueryAnswer {
  checkoutRequestId: string;
  resultCode: string | null;
  resultDesc: string;
  status: PaymentStatus;
}

export function notFound(): DomainError {
  return new DomainError("NOT_FOUND", "not_found.checkout");
}

/** The payment with this CheckoutRequestID that the caller may see, or NOT_FOUND. */
export async function findVisiblePayment(ctx: AuthedCtx, checkoutRequestId: string): Promise<PaymentModel> {
  const userId = isAdmin(ctx) ? undefined : ctx.auth.sub;
  const payment = await payments.findByCheckoutId(ctx.db, { checkoutRequestId, tenantId: ctx.tenant.id, userId });
  if (!payment) throw notFound();
  return payment;
}

function storedAnswer(payment: PaymentModel): StkQueryAnswer {
  return {
    checkoutRequestId: payment.checkoutRequestId ?? "",
    resultCode: payment.resultCode,
    resultDesc: payment.resultDesc ?? payment.lastError ?? (payment.status === "PENDING" ? "The payment is being processed." : ""),
    status: payment.status as PaymentStatus,
  };
}

export async function stkQuery(ctx: AuthedCtx, checkoutRequestId: string): Promise<StkQueryAnswer> {
  await countStkQuery(ctx, { tenantId: ctx.tenant.id, userId: ctx.auth.sub });
  const payment = await findVisiblePayment(ctx, checkoutRequestId);
  if (isTerminalPayment(payment.status)) return storedAnswer(payment);

  const daraja = ctx.deps.daraja.darajaFor(ctx.tenant, payment);
  if (!daraja) throw providerUnavailable("payments.not_configured");
  let result: StkQueryResult;
  try {
    result = await daraja.stkQuery({ checkoutRequestId });
  } catch (error) {
    if (error instanceof DarajaError) throw toProviderError(error);
    throw error;
  }
  const settled = await settleFromQuery(ctx.deps, ctx.db, payment, result);
  if (settled && isTerminalPayment(settled.status)) return storedAnswer(settled);
  // Still pending (or a code this service does not know): Daraja's own words, the payment unchanged.
  return { checkoutRequestId, resultCode: result.resultCode, resultDesc: result.resultDesc, status: "PENDING" };
}

export function queryOutcome(result: StkQueryResult): StkOutcome {
  return { source: "query", status: result.status, resultCode: result.resultCode, resultDesc: result.resultDesc };
}

/** Settles a payment from an STK query answer (apply-once, under the row lock) through its tenant's client; returns the stored row. */
export async function settleFromQuery(
  deps: PaymentPorts,
  db: TenantDb,
  { id: paymentId, tenantId }: payments.PaymentKey,
  result: StkQueryResult,
): Promise<PaymentModel | undefined> {
  const now = deps.clock.now();
  const settlement = await deps.db.transaction(db, async (tx) => {
    const payment = await payments.lockOfTenant(tx, { id: paymentId, tenantId });
    if (!payment) return undefined;
    return settleStkPayment(tx, payment, queryOutcome(result), now, { eventIds: eventIdsFrom(deps.random) });
  });
  if (settlement?.decision.outcome === "flagged") {
    deps.logger.warn({ paymentId, flagReason: settlement.decision.flagReason }, "STK query answer contradicts the stored payment; not applied");
  }
  if (settlement?.decision.statusChanged) publishPaymentStatus(deps, settlement.payment);
  return settlement?.payment;
}
