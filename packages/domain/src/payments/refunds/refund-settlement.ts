/**
 * The refund state machine (docs/mpesa.md#refunds), the same for a refund by reversal and one sent by
 * B2C: shared/request-settlement.ts's, with the refunds table and refund.succeeded / refund.failed. A
 * reversal whose reversed receipt differs from the refund's is flagged as an amount is; a success records
 * the refund's receipt, and a reversal's SUCCESS also writes payment.reversed, in the same transaction.
 */
import { refunds, type RefundModel, type RowChanges } from "@mteja/db";
import { recordPaymentReversed } from "../shared/settled-events.js";
import {
  decideRequestOutcome,
  type RequestOutcome,
  type RequestSettlement,
} from "../shared/request-settlement.js";
import type { SettlementDecision } from "../shared/stored-callback.js";
import { refundSettledEvent } from "./refund-events.js";

export interface RefundOutcome extends RequestOutcome {
  originatorConversationId?: string | undefined;
  /** The refund's own receipt. */
  receipt?: string | undefined;
  /** A reversal's: the receipt Daraja says was reversed. */
  originalReceipt?: string | undefined;
}

export type RefundDecision = SettlementDecision<RowChanges<RefundModel>>;

/**
 * Daraja's ids, kept when the request's own answer never brought them (a B2C refund's
 * OriginatorConversationID is ours).
 */
function ids(refund: RefundModel, outcome: RefundOutcome): RowChanges<RefundModel> {
  if (refund.conversationId !== null || !outcome.conversationId) return {};
  if (refund.originatorConversationId !== null) return { conversationId: outcome.conversationId };
  const { conversationId, originatorConversationId } = outcome;
  return originatorConversationId ? { conversationId, originatorConversationId } : {};
}

/** Its rules, table and event, for shared/request-settlement.ts's settleRequest. */
export const refundSettlement: RequestSettlement<RefundModel, RefundOutcome> = {
  rules: {
    amountIs: "the refund is of",
    mismatch(refund, outcome) {
      if (outcome.originalReceipt === undefined || outcome.originalReceipt === refund.originalReceipt) return undefined;
      const reversed = refund.originalReceipt ?? "nothing (a B2C refund)";
      const flagReason = `receipt mismatch: the refund reverses ${reversed}, Daraja says ${outcome.originalReceipt}`;
      return { outcome: "flagged", flagReason, statusChanged: false };
    },
    ids,
    settled: (outcome) => (outcome.status === "SUCCESS" && outcome.receipt ? { receipt: outcome.receipt } : {}),
    unknownAgain: "duplicate",
    lastErrorMax: 500,
  },
  settle: refunds.settle,
  event: refundSettledEvent,
  async afterChange(tx, refund, now, eventIds) {
    if (refund.status === "SUCCESS" && refund.method === "reversal") {
      await recordPaymentReversed(tx, refund.paymentId, now, eventIds);
    }
  },
};

export function decideRefundOutcome(refund: RefundModel, outcome: RefundOutcome, now: Date): RefundDecision {
  return decideRequestOutcome(refund, outcome, now, refundSettlement.rules);
}
