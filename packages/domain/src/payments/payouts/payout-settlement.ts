/**
 * The payout (B2C) state machine, applied exactly once:
 *
 *   PENDING → SUCCESS | FAILED           (Result callback, or a Transaction Status result)
 *   PENDING → UNKNOWN                    (timeout callback, an unrecognised ResultCode, or no answer to the request)
 *   UNKNOWN → SUCCESS | FAILED           (a late Result, or a Transaction Status result)
 *
 * SUCCESS and FAILED never change again. A payout is never re-sent automatically: UNKNOWN means the
 * money may have moved, and only Daraja's own answer settles it.
 */
import { changedRow, payouts, type PayoutModel, type RowChanges } from "@mteja/db";
import { payoutSettledEvent } from "./payout-events.js";
import type { EventIds } from "../../webhooks/events.js";
import { eventRowOf } from "../shared/settled-events.js";
import {
  amountMismatch,
  decideForSettled,
  settledRow,
  type RecordOutcome,
  type SettlementDecision,
  type SettlementTx,
} from "../shared/stored-callback.js";

export interface PayoutOutcome {
  source: "result" | "timeout" | "status";
  status: "SUCCESS" | "FAILED" | "UNKNOWN";
  resultCode: string | null;
  resultDesc: string;
  conversationId?: string | undefined;
  transactionId?: string | undefined;
  amount?: number | undefined;
  receiverName?: string | undefined;
}

export type PayoutDecision = SettlementDecision<RowChanges<PayoutModel>>;

export function decidePayoutOutcome(payout: PayoutModel, outcome: PayoutOutcome, now: Date): PayoutDecision {
  // Whatever the payout's status: never applied.
  const mismatch = amountMismatch("the payout is for", payout.amount, outcome.amount);
  if (mismatch) return mismatch;

  const terminal = payout.status === "SUCCESS" || payout.status === "FAILED";
  if (terminal) return decideForSettled(payout.status, outcome);

  if (outcome.source === "result" && payout.conversationId && outcome.conversationId && outcome.conversationId !== payout.conversationId) {
    return { outcome: "flagged", flagReason: `ConversationID mismatch: stored ${payout.conversationId}, callback ${outcome.conversationId}`, statusChanged: false };
  }

  if (outcome.source === "timeout") {
    if (payout.status === "UNKNOWN") return { outcome: "duplicate", statusChanged: false };
    return {
      outcome: "applied",
      statusChanged: true,
      changes: { status: "UNKNOWN", lastError: `timed out at Daraja: ${outcome.resultDesc}`, nextStatusQueryAt: now, updatedAt: now, ...conversation(payout, outcome) },
    };
  }

  if (outcome.status === "UNKNOWN") {
    return {
      outcome: "accepted",
      statusChanged: payout.status !== "UNKNOWN",
      changes: {
        status: "UNKNOWN",
        lastError: `unrecognised ResultCode ${outcome.resultCode ?? "(none)"} (${outcome.resultDesc})`,
        // A status query is due now, unless one is already scheduled.
        ...(payout.status === "UNKNOWN" ? {} : { nextStatusQueryAt: now }),
        updatedAt: now,
        ...conversation(payout, outcome),
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
      ...(outcome.transactionId ? { transactionId: outcome.transactionId } : {}),
      ...(outcome.receiverName ? { receiverName: outcome.receiverName } : {}),
      ...conversation(payout, outcome),
      lastError: null,
      nextStatusQueryAt: null,
      settledAt: now,
      updatedAt: now,
    },
  };
}

function conversation(payout: PayoutModel, outcome: PayoutOutcome): RowChanges<PayoutModel> {
  // Callers pass the payout's own ConversationID (for a status result: the queried transaction's, not the query's).
  return payout.conversationId === null && outcome.conversationId ? { conversationId: outcome.conversationId } : {};
}

/**
 * Applies an outcome to a payout whose row lock the transaction holds. `eventIds`: the id of the event
 * a change of status writes, in the update's own statement.
 */
export async function settlePayout(
  tx: SettlementTx,
  payout: PayoutModel,
  outcome: PayoutOutcome,
  now: Date,
  { eventIds, recordOutcome }: { eventIds: EventIds; recordOutcome?: RecordOutcome },
): Promise<{ decision: PayoutDecision; payout: PayoutModel }> {
  const decision = decidePayoutOutcome(payout, outcome, now);
  if (!decision.changes) return { decision, payout };
  const event = decision.statusChanged ? payoutSettledEvent(changedRow(payout, decision.changes), now) : undefined;
  const updated = settledRow(
    await payouts.settle(tx, payout.id, decision.changes, {
      unlessHandled: recordOutcome?.(decision),
      event: event && eventRowOf(event, eventIds),
    }),
  );
  return { decision, payout: updated };
}
