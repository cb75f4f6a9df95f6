/**
 * The refund state machine (docs/mpesa.md#refunds), the same for a refund by reversal and one sent by
 * B2C: shared/request-settlement.ts's, with the refunds table and refund.succeeded / refund.failed. A
 * reversal whose reversed receipt differs from the refund's is flagged as an amount is; a success records
 * the refund's receipt, and a reversal's SUCCESS also writes payment.reversed, in the same transaction.
 */
import { refunds, type RefundModel, type RowChanges } from "@mteja/db";
import type { EventIds } from "../../webhooks/events.js";
import { recordPaymentReversed } from "../shared/settled-events.js";
import {
  decideRequestOutcome,
  settleRequest,
  type RequestOutcome,
  type SettlementRules,
} from "../shared/request-settlement.js";
import type { RecordOutcome, SettlementDecision, SettlementTx } from "../shared/stored-callback.js";
import { refundSettledEvent } from "./refund-events.js";

export interface RefundOutcome extends RequestOutcome {
  originatorConversationId?: string | undefined;
  /** The refund's own receipt. */
  receipt?: string | undefined;
  /** A reversal's: the receipt Daraja says was reversed. */
  originalReceipt?: string | undefined;
}

export type RefundDecision = SettlementDecision<RowChanges<RefundModel>>;

const refundRules: SettlementRules<RefundModel, RefundOutcome> = {
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
};

export function decideRefundOutcome(refund: RefundModel, outcome: RefundOutcome, now: Date): RefundDecision {
  return decideRequestOutcome(refund, outcome, now, refundRules);
}

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

/**
 * Applies an outcome to a refund whose row lock the transaction holds. `eventIds`: the id of the event a
 * change of status writes, in the update's own statement.
 */
export async function settleRefund(
  tx: SettlementTx,
  refund: RefundModel,
  outcome: RefundOutcome,
  now: Date,
  writes: { eventIds: EventIds; recordOutcome?: RecordOutcome },
): Promise<{ decision: RefundDecision; refund: RefundModel }> {
  const decision = decideRefundOutcome(refund, outcome, now);
  const table = { settle: refunds.settle, event: refundSettledEvent };
  const updated = await settleRequest(tx, refund, decision, now, table, writes);
  if (decision.statusChanged && updated.status === "SUCCESS" && updated.method === "reversal") {
    await recordPaymentReversed(tx, updated.paymentId, now, writes.eventIds);
  }
  return { decision, refund: updated };
}
