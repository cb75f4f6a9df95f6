/**
 * The state machine of a request Daraja answers by a Result (a payout, a refund), applied exactly once
 * under the request's row lock:
 *
 *   PENDING → SUCCESS | FAILED     (Result callback, or a Transaction Status result)
 *   PENDING → UNKNOWN              (time-out callback, an unrecognised ResultCode, or no answer to the request)
 *   UNKNOWN → SUCCESS | FAILED     (a late Result, or a Transaction Status result)
 *
 * SUCCESS and FAILED never change again, and a late duplicate changes nothing. A request is never re-sent
 * automatically: UNKNOWN means the money may have moved, and only Daraja's own answer settles it. An outcome
 * whose amount differs from the request's is never applied: the callback is flagged. Each flow passes in
 * what is its own: its table, its event, what a success records and the mismatches it checks beyond the amount.
 */
import { changedRow, type RowChanges, type SettleWrites } from "@mteja/db";
import type { EventIds, NewEvent } from "../../webhooks/events.js";
import { eventRowOf } from "./settled-events.js";
import {
  amountMismatch,
  decideForSettled,
  settledRow,
  type RecordOutcome,
  type SettlementDecision,
  type SettlementTx,
} from "./stored-callback.js";

/** The columns of a request the decision reads. */
export interface SettledRequest {
  id: string;
  status: string;
  amount: number;
  conversationId: string | null;
}

/** What a Result, a time-out or a status result says of a request. */
export interface RequestOutcome {
  source: "result" | "timeout" | "status";
  status: "SUCCESS" | "FAILED" | "UNKNOWN";
  resultCode: string | null;
  resultDesc: string;
  conversationId?: string | undefined;
  amount?: number | undefined;
}

/** What a flow decides for itself. */
export interface SettlementRules<Row extends SettledRequest, Outcome extends RequestOutcome> {
  /** How a flagged amount names the request's, e.g. "the payout is for". */
  amountIs: string;
  /** A mismatch beyond the amount that flags the callback whatever the status (a reversal's receipt). */
  mismatch?(row: Row, outcome: Outcome): SettlementDecision<never> | undefined;
  /** Daraja's ids the row did not have yet. */
  ids(row: Row, outcome: Outcome): RowChanges<Row>;
  /** What a SUCCESS or FAILED records beyond its status and result (a receipt, a receiver's name). */
  settled(outcome: Outcome): RowChanges<Row>;
  /**
   * An unrecognised ResultCode for a request already UNKNOWN: a duplicate (nothing written), or kept as
   * its last error with the status query already scheduled.
   */
  unknownAgain: "duplicate" | "kept";
  /** The longest last error kept; none: as it is. */
  lastErrorMax?: number;
}

export function decideRequestOutcome<Row extends SettledRequest, Outcome extends RequestOutcome>(
  row: Row,
  outcome: Outcome,
  now: Date,
  rules: SettlementRules<Row, Outcome>,
): SettlementDecision<RowChanges<Row>> {
  // Whatever the request's status: never applied.
  const mismatch = amountMismatch(rules.amountIs, row.amount, outcome.amount) ?? rules.mismatch?.(row, outcome);
  if (mismatch) return mismatch;

  if (row.status === "SUCCESS" || row.status === "FAILED") return decideForSettled(row.status, outcome);

  const stored = row.conversationId;
  if (outcome.source === "result" && stored && outcome.conversationId && outcome.conversationId !== stored) {
    const flagReason = `ConversationID mismatch: stored ${stored}, callback ${outcome.conversationId}`;
    return { outcome: "flagged", flagReason, statusChanged: false };
  }

  if (outcome.source === "timeout" || outcome.status === "UNKNOWN") {
    const timedOut = outcome.source === "timeout";
    const already = row.status === "UNKNOWN";
    const duplicate = already && (timedOut || rules.unknownAgain === "duplicate");
    if (duplicate) return { outcome: "duplicate", statusChanged: false };
    const why = timedOut
      ? `timed out at Daraja: ${outcome.resultDesc}`
      : `unrecognised ResultCode ${outcome.resultCode ?? "(none)"} (${outcome.resultDesc})`;
    const changes = {
      status: "UNKNOWN",
      lastError: rules.lastErrorMax === undefined ? why : why.slice(0, rules.lastErrorMax),
      // A status query is due now, unless one is already scheduled.
      ...(already ? {} : { nextStatusQueryAt: now }),
      updatedAt: now,
      ...rules.ids(row, outcome),
    } as RowChanges<Row>;
    return { outcome: timedOut ? "applied" : "accepted", statusChanged: !already, changes };
  }

  const changes = {
    status: outcome.status,
    resultCode: outcome.resultCode,
    resultDesc: outcome.resultDesc,
    ...rules.settled(outcome),
    ...rules.ids(row, outcome),
    lastError: null,
    nextStatusQueryAt: null,
    settledAt: now,
    updatedAt: now,
  } as RowChanges<Row>;
  return { outcome: "applied", statusChanged: true, changes };
}

/** A flow's settlement: its rules, its table and its event, for `settleRequest`. */
export interface RequestSettlement<Row extends SettledRequest, Outcome extends RequestOutcome> {
  rules: SettlementRules<Row, Outcome>;
  /** Writes the changes (with the callback's outcome and the event) in one statement; undefined: handled elsewhere. */
  settle(tx: SettlementTx, row: Row, changes: RowChanges<Row>, writes: SettleWrites): Promise<Row | undefined>;
  /** The event a change of status writes (none for a status that has none). */
  event(row: Row, at: Date): NewEvent | undefined;
  /** What else a change of status writes, in the same transaction (a reversal's payment.reversed). */
  afterChange?(tx: SettlementTx, row: Row, now: Date, eventIds: EventIds): Promise<void>;
}

/**
 * Decides an outcome for a request whose row lock the transaction holds, and applies it. `eventIds`: the id
 * of the event a change of status writes, in the update's own statement.
 */
export async function settleRequest<Row extends SettledRequest, Outcome extends RequestOutcome>(
  tx: SettlementTx,
  row: Row,
  outcome: Outcome,
  now: Date,
  settlement: RequestSettlement<Row, Outcome>,
  { eventIds, recordOutcome }: { eventIds: EventIds; recordOutcome?: RecordOutcome },
): Promise<{ decision: SettlementDecision<RowChanges<Row>>; row: Row }> {
  const decision = decideRequestOutcome(row, outcome, now, settlement.rules);
  if (!decision.changes) return { decision, row };
  const event = decision.statusChanged ? settlement.event(changedRow(row, decision.changes), now) : undefined;
  const updated = settledRow(
    await settlement.settle(tx, row, decision.changes, {
      unlessHandled: recordOutcome?.(decision),
      event: event && eventRowOf(event, eventIds),
    }),
  );
  if (decision.statusChanged) await settlement.afterChange?.(tx, updated, now, eventIds);
  return { decision, row: updated };
}
