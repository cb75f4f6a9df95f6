/**
 * The payout (B2C) state machine: shared/request-settlement.ts's, with the payouts table and
 * payout.succeeded / payout.failed. A success records its TransactionID and the receiver's name; an
 * unrecognised ResultCode for a payout already UNKNOWN is kept as its last error.
 */
import { payouts, type PayoutModel, type RowChanges } from "@mteja/db";
import { payoutSettledEvent } from "./payout-events.js";
import type { EventIds } from "../../webhooks/events.js";
import {
  decideRequestOutcome,
  settleRequest,
  type RequestOutcome,
  type SettlementRules,
} from "../shared/request-settlement.js";
import type { RecordOutcome, SettlementDecision, SettlementTx } from "../shared/stored-callback.js";

export interface PayoutOutcome extends RequestOutcome {
  transactionId?: string | undefined;
  receiverName?: string | undefined;
}

export type PayoutDecision = SettlementDecision<RowChanges<PayoutModel>>;

const payoutRules: SettlementRules<PayoutModel, PayoutOutcome> = {
  amountIs: "the payout is for",
  // Callers pass the payout's own ConversationID (for a status result: the queried transaction's, not the query's).
  ids: (payout, outcome) =>
    payout.conversationId === null && outcome.conversationId ? { conversationId: outcome.conversationId } : {},
  settled: (outcome) => ({
    ...(outcome.transactionId ? { transactionId: outcome.transactionId } : {}),
    ...(outcome.receiverName ? { receiverName: outcome.receiverName } : {}),
  }),
  unknownAgain: "kept",
};

export function decidePayoutOutcome(payout: PayoutModel, outcome: PayoutOutcome, now: Date): PayoutDecision {
  return decideRequestOutcome(payout, outcome, now, payoutRules);
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
  writes: { eventIds: EventIds; recordOutcome?: RecordOutcome },
): Promise<{ decision: PayoutDecision; payout: PayoutModel }> {
  const decision = decidePayoutOutcome(payout, outcome, now);
  const table = { settle: payouts.settle, event: payoutSettledEvent };
  return { decision, payout: await settleRequest(tx, payout, decision, now, table, writes) };
}
