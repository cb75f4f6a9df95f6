/**
 * The payout (B2C) state machine: shared/request-settlement.ts's, with the payouts table and
 * payout.succeeded / payout.failed. A success records its TransactionID and the receiver's name; an
 * unrecognised ResultCode for a payout already UNKNOWN is kept as its last error.
 */
import { payouts, type PayoutModel, type RowChanges } from "@mteja/db";
import { payoutSettledEvent } from "./payout-events.js";
import {
  decideRequestOutcome,
  type RequestOutcome,
  type RequestSettlement,
} from "../shared/request-settlement.js";
import type { SettlementDecision } from "../shared/stored-callback.js";

export interface PayoutOutcome extends RequestOutcome {
  transactionId?: string | undefined;
  receiverName?: string | undefined;
}

export type PayoutDecision = SettlementDecision<RowChanges<PayoutModel>>;

/** Its rules, table and event, for shared/request-settlement.ts's settleRequest. */
export const payoutSettlement: RequestSettlement<PayoutModel, PayoutOutcome> = {
  rules: {
    amountIs: "the payout is for",
    // Callers pass the payout's own ConversationID (for a status result: the queried transaction's, not the query's).
    ids: (payout, outcome) =>
      payout.conversationId === null && outcome.conversationId ? { conversationId: outcome.conversationId } : {},
    settled: (outcome) => ({
      ...(outcome.transactionId ? { transactionId: outcome.transactionId } : {}),
      ...(outcome.receiverName ? { receiverName: outcome.receiverName } : {}),
    }),
    unknownAgain: "kept",
  },
  settle: payouts.settle,
  event: payoutSettledEvent,
};

export function decidePayoutOutcome(payout: PayoutModel, outcome: PayoutOutcome, now: Date): PayoutDecision {
  return decideRequestOutcome(payout, outcome, now, payoutSettlement.rules);
}
