/**
 * The refund state machine (docs/mpesa.md#refunds), the same for a refund by reversal and one sent by
 * B2C, applied exactly once under the refund's row lock:
 *
 *   PENDING → SUCCESS | FAILED     (Result callback, or a Transaction Status result)
 *   PENDING → UNKNOWN              (time-out callback, an unrecognised ResultCode, or no answer to the request)
 *   UNKNOWN → SUCCESS | FAILED     (a late Result, or a Transaction Status result)
 *
 * SUCCESS and FAILED never change again; a refund is never re-sent automatically. An outcome whose
 * amount (or, for a reversal, reversed receipt) differs from the refund's is never applied: the callback
 * is flagged. A change to SUCCESS or FAILED writes refund.succeeded or refund.failed in the statement of
 * the update; a reversal's SUCCESS also writes payment.reversed, in the same transaction.
 */
import { changedRow, refunds, type RefundModel, type RowChanges } from "@mteja/db";
import type { EventIds } from "../../webhooks/events.js";
import { eventRowOf, recordPaymentReversed } from "../shared/settled-events.js";
import {
  amountMismatch,
  decideForSettled,
  settledRow,
  type RecordOutcome,
  type SettlementDecision,
  type SettlementTx,
} from "../shared/stored-callback.js";
import { refundSettledEvent } from "./refund-events.js";

export interface RefundOutcome {
  source: "result" | "timeout" | "status";
  status: "SUCCESS" | "FAILED" | "UNKNOWN";
  resultCode: string | null;
  resultDesc: string;
  originatorConversationId?: string | undefined;
  conversationId?: string | undefined;
  /** The refund's own receipt. */
  receipt?: string | undefined;
  /** A reversal's: the receipt Daraja says was reversed. */
  originalReceipt?: string | undefined;
  amount?: number | undefined;
}

export type RefundDecision = SettlementDecision<RowChanges<RefundModel>>;

export function decideRefundOutcome(refund: RefundModel, outcome: RefundOutcome, now: Date): RefundDecision {
  const mismatch = amountMismatch("the refund is of", refund.amount, outcome.amount);
  if (mismatch) return mismatch;
  if (outcome.originalReceipt !== undefined && outcome.originalReceipt !== refund.originalReceipt) {
    const reversed = refund.originalReceipt ?? "nothing (a B2C refund)";
    const flagReason = `receipt mismatch: the refund reverses ${reversed}, Daraja says ${outcome.originalReceipt}`;
    return { outcome: "flagged", flagReason, statusChanged: false };
  }

  const terminal = refund.status === "SUCCESS" || refund.status === "FAILED";
  if (terminal) return decideForSettled(refund.status, outcome);

  const stored = refund.conversationId;
  if (outcome.source === "result" && stored && outcome.conversationId && outcome.conversationId !== stored) {
    const flagReason = `ConversationID mismatch: stored ${stored}, callback ${outcome.conversationId}`;
    return { outcome: "flagged", flagReason, statusChanged: false };
  }

  if (outcome.source === "timeout" || outcome.status === "UNKNOWN") {
    if (refund.status === "UNKNOWN") return { outcome: "duplicate", statusChanged: false };
    const why =
      outcome.source === "timeout"
        ? `timed out at Daraja: ${outcome.resultDesc}`
        : `unrecognised ResultCode ${outcome.resultCode ?? "(none)"} (${outcome.resultDesc})`;
    return {
      outcome: outcome.source === "timeout" ? "applied" : "accepted",
      statusChanged: true,
      // A status query is due now.
      changes: {
        status: "UNKNOWN",
        lastError: why.slice(0, 500),
        nextStatusQueryAt: now,
        updatedAt: now,
        ...ids(refund, outcome),
      },
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
      ...ids(refund, outcome),
      lastError: null,
      nextStatusQueryAt: null,
      settledAt: now,
      updatedAt: now,
    },
  };
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
  { eventIds, recordOutcome }: { eventIds: EventIds; recordOutcome?: RecordOutcome },
): Promise<{ decision: RefundDecision; refund: RefundModel }> {
  const decision = decideRefundOutcome(refund, outcome, now);
  if (!decision.changes) return { decision, refund };
  const event = decision.statusChanged ? refundSettledEvent(changedRow(refund, decision.changes), now) : undefined;
  const updated = settledRow(
    await refunds.settle(tx, refund.id, decision.changes, {
      unlessHandled: recordOutcome?.(decision),
      event: event && eventRowOf(event, eventIds),
    }),
  );
  if (decision.statusChanged && updated.status === "SUCCESS" && updated.method === "reversal") {
    await recordPaymentReversed(tx, updated.paymentId, now, eventIds);
  }
  return { decision, refund: updated };
}
