/**
 * The reversal state machine (docs/mpesa.md#reversals), applied exactly once under the reversal's row lock:
 *
 *   PENDING → SUCCESS | FAILED     (Result callback, or a Transaction Status result)
 *   PENDING → UNKNOWN              (time-out callback, an unrecognised ResultCode, or no answer to the request)
 *   UNKNOWN → SUCCESS | FAILED     (a late Result, or a Transaction Status result)
 *
 * SUCCESS and FAILED never change again; a reversal is never re-sent automatically. An outcome whose
 * amount or reversed receipt differs from the reversal's is never applied: the callback is flagged.
 * SUCCESS writes `payment.reversed` in the same transaction.
 */
import { reversals, type PaymentReversalModel, type RowChanges } from "@mteja/db";
import { recordPaymentReversed } from "../shared/settled-events.js";
import {
  amountMismatch,
  decideForSettled,
  settledRow,
  type RecordOutcome,
  type SettlementDecision,
  type SettlementTx,
} from "../shared/stored-callback.js";

export interface ReversalOutcome {
  source: "result" | "timeout" | "status";
  status: "SUCCESS" | "FAILED" | "UNKNOWN";
  resultCode: string | null;
  resultDesc: string;
  originatorConversationId?: string | undefined;
  conversationId?: string | undefined;
  /** The reversal's own receipt. */
  receipt?: string | undefined;
  /** The receipt Daraja says was reversed. */
  originalReceipt?: string | undefined;
  amount?: number | undefined;
}

export type ReversalDecision = SettlementDecision<RowChanges<PaymentReversalModel>>;

export function decideReversalOutcome(reversal: PaymentReversalModel, outcome: ReversalOutcome, now: Date): ReversalDecision {
  const mismatch = amountMismatch("the reversal is of", reversal.amount, outcome.amount);
  if (mismatch) return mismatch;
  if (outcome.originalReceipt !== undefined && outcome.originalReceipt !== reversal.originalReceipt) {
    return { outcome: "flagged", flagReason: `receipt mismatch: the reversal is of ${reversal.originalReceipt}, Daraja says ${outcome.originalReceipt}`, statusChanged: false };
  }

  const terminal = reversal.status === "SUCCESS" || reversal.status === "FAILED";
  if (terminal) return decideForSettled(reversal.status, outcome);

  if (outcome.source === "result" && reversal.conversationId && outcome.conversationId && outcome.conversationId !== reversal.conversationId) {
    return { outcome: "flagged", flagReason: `ConversationID mismatch: stored ${reversal.conversationId}, callback ${outcome.conversationId}`, statusChanged: false };
  }

  if (outcome.source === "timeout" || outcome.status === "UNKNOWN") {
    if (reversal.status === "UNKNOWN") return { outcome: "duplicate", statusChanged: false };
    const why = outcome.source === "timeout" ? `timed out at Daraja: ${outcome.resultDesc}` : `unrecognised ResultCode ${outcome.resultCode ?? "(none)"} (${outcome.resultDesc})`;
    return {
      outcome: outcome.source === "timeout" ? "applied" : "accepted",
      statusChanged: true,
      // A status query is due now.
      changes: { status: "UNKNOWN", lastError: why.slice(0, 500), nextStatusQueryAt: now, updatedAt: now, ...ids(reversal, outcome) },
    };
  }

  return {
    outcome: "applied",
    statusChanged: true,
    changes: {
      status: outcome.status,
      resultCode: outcome.resultCode,
      resultDesc: outcome.resultDesc,
      ...(outcome.status === "SUCCESS" && outcome.receipt ? { receipt: outcome.receipt } : {}),
      ...ids(reversal, outcome),
      lastError: null,
      nextStatusQueryAt: null,
      settledAt: now,
      updatedAt: now,
    },
  };
}

/** Daraja's ids, kept when the request's own answer never brought them. */
function ids(reversal: PaymentReversalModel, outcome: ReversalOutcome): RowChanges<PaymentReversalModel> {
  if (reversal.conversationId !== null || !outcome.conversationId || !outcome.originatorConversationId) return {};
  return { conversationId: outcome.conversationId, originatorConversationId: outcome.originatorConversationId };
}

/** Applies an outcome to a reversal whose row lock the transaction holds. */
export async function settleReversal(
  tx: SettlementTx,
  reversal: PaymentReversalModel,
  outcome: ReversalOutcome,
  now: Date,
  recordOutcome?: RecordOutcome,
): Promise<{ decision: ReversalDecision; reversal: PaymentReversalModel }> {
  const decision = decideReversalOutcome(reversal, outcome, now);
  if (!decision.changes) return { decision, reversal };
  const unlessHandled = recordOutcome?.(decision);
  const updated = settledRow(await reversals.settle(tx, reversal.id, decision.changes, { unlessHandled }));
  if (decision.statusChanged && updated.status === "SUCCESS") await recordPaymentReversed(tx, updated.paymentId, now);
  return { decision, reversal: updated };
}
