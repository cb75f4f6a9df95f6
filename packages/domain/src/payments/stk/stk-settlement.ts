/**
 * The payment state machine, applied exactly once (docs/mpesa.md#state-machines and
 * docs/daraja-wire-format.md#stk-result-codes fix it):
 *
 *   PENDING → SUCCESS | CANCELLED | FAILED | TIMEOUT, and a terminal state never changes again.
 *
 * Callbacks, STK queries (the stkquery operation and the reconciler) all settle a payment through
 * `settleStkPayment`, inside a transaction that holds the payment's row lock.
 */
import { changedRow, payments, type PaymentModel, type RowChanges } from "@mteja/db";
import type { StkStatus } from "@mteja/daraja";
import { eventRowOf, paymentSettledEvent } from "../shared/settled-events.js";
import { recordIntentPaid, recordIntentPaidByHeld } from "../../intents/intent-events.js";
import {
  settledRow,
  type RecordOutcome,
  type SettlementDecision,
  type SettlementTx,
} from "../shared/stored-callback.js";
import { isTerminalPayment } from "../shared/payment-views.js";
import { settleIntentOf } from "../../intents/intent-settlement.js";
import type { EventIds } from "../../webhooks/events.js";

/** What Daraja said about a prompt, from a callback or an STK query. */
export interface StkOutcome {
  source: "callback" | "query";
  /** classifyStkResultCode of the ResultCode; PENDING/UNKNOWN settle nothing. */
  status: StkStatus;
  resultCode: string | null;
  resultDesc: string;
  amount?: number | undefined;
  receipt?: string | undefined;
  phone?: string | undefined;
  transactionDate?: string | undefined;
}

export type PaymentDecision = SettlementDecision<RowChanges<PaymentModel>>;

function describeCode(outcome: StkOutcome): string {
  return `ResultCode ${outcome.resultCode ?? "(none)"}${outcome.resultDesc ? ` (${outcome.resultDesc})` : ""}`;
}

/** The pure rule: what an outcome does to a payment. The receipt's uniqueness is checked by the caller. */
export function decideStkOutcome(payment: PaymentModel, outcome: StkOutcome, now: Date): PaymentDecision {
  const settled = outcome.status === "SUCCESS" || outcome.status === "CANCELLED" || outcome.status === "FAILED" || outcome.status === "TIMEOUT";

  // Whatever the payment's status (a success after a query-settled success too): never applied.
  if (outcome.amount !== undefined && outcome.amount !== payment.amount) {
    return { outcome: "flagged", flagReason: amountMismatch(payment, outcome), statusChanged: false };
  }

  if (isTerminalPayment(payment.status)) {
    if (!settled || outcome.status === payment.status) {
      // A success callback after a query-settled success brings the receipt the query could not.
      if (
        outcome.status === "SUCCESS" &&
        outcome.source === "callback" &&
        payment.mpesaReceipt === null &&
        outcome.receipt !== undefined &&
        outcome.amount === payment.amount
      ) {
        return { outcome: "applied", statusChanged: false, changes: { ...receiptColumns(outcome), updatedAt: now } };
      }
      return { outcome: "duplicate", statusChanged: false };
    }
    return {
      outcome: "flagged",
      flagReason: `conflicts with the settled status ${payment.status}: ${describeCode(outcome)} says ${outcome.status}`,
      statusChanged: false,
    };
  }

  if (!settled) {
    // An unrecognised code (or Daraja still processing): the payment stays PENDING for reconciliation.
    return {
      outcome: "accepted",
      statusChanged: false,
      changes: outcome.status === "UNKNOWN" ? { lastError: `unrecognised ${describeCode(outcome)}`, updatedAt: now } : undefined,
    };
  }

  if (outcome.status === "SUCCESS" && outcome.source === "callback") {
    if (outcome.receipt === undefined) return { outcome: "flagged", flagReason: "ResultCode 0 without MpesaReceiptNumber", statusChanged: false };
    if (outcome.amount !== payment.amount) return { outcome: "flagged", flagReason: amountMismatch(payment, outcome), statusChanged: false };
  }

  return {
    outcome: "applied",
    statusChanged: true,
    changes: {
      status: outcome.status,
      resultCode: outcome.resultCode,
      resultDesc: outcome.resultDesc,
      ...(outcome.status === "SUCCESS" && outcome.source === "callback" ? receiptColumns(outcome) : {}),
      lastError: null,
      nextQueryAt: null,
      settledAt: now,
      updatedAt: now,
    },
  };
}

function amountMismatch(payment: PaymentModel, outcome: StkOutcome): string {
  return `amount mismatch: the payment is for ${payment.amount}, the ${outcome.source} says ${outcome.amount ?? "(none)"}`;
}

function receiptColumns(outcome: StkOutcome): RowChanges<PaymentModel> {
  return {
    mpesaReceipt: outcome.receipt ?? null,
    paidAmount: outcome.amount ?? null,
    paidPhone: outcome.phone ?? null,
    transactionDate: outcome.transactionDate ?? null,
  };
}

export interface Settlement {
  decision: PaymentDecision;
  payment: PaymentModel;
}

export interface SettleOptions {
  /** The id of the event a change of status writes. */
  eventIds: EventIds;
  /**
   * Whether the outcome's receipt is already another payment's, when the lock read it
   * (payments.lockByCheckoutId); else it is looked up.
   */
  receiptElsewhere?: boolean | undefined;
  /**
   * A callback's: its outcome, recorded on the stored row by the payment's own update (OutcomeRecorder);
   * undefined leaves the recording to the caller.
   */
  recordOutcome?: RecordOutcome;
}

/** Applies an outcome to a payment whose row lock the transaction holds. */
export async function settleStkPayment(tx: SettlementTx, payment: PaymentModel, outcome: StkOutcome, now: Date, options: SettleOptions): Promise<Settlement> {
  let decision = decideStkOutcome(payment, outcome, now);
  const receipt = decision.changes?.mpesaReceipt;
  // Only callbacks bring a receipt; the look spans every tenant, as the unique index does.
  const recordedElsewhere = (other: string) => payments.receiptRecordedElsewhere(tx, other, payment.id);
  if (typeof receipt === "string" && (options.receiptElsewhere ?? (await recordedElsewhere(receipt)))) {
    decision = { outcome: "flagged", flagReason: `MpesaReceiptNumber ${receipt} is already recorded on another payment`, statusChanged: false };
  }
  if (!decision.changes) return { decision, payment };
  const intent = await settleIntentOf(tx, payment, decision.changes.status, now); // payment intents follow their payment
  const changes = { ...decision.changes, ...intent.columns };
  // The event reports the row as the update leaves it, and is written by the update's own statement.
  const event = decision.statusChanged ? paymentSettledEvent(changedRow(payment, changes), now) : undefined;
  const updated = settledRow(
    await payments.settle(tx, payment, changes, {
      unlessHandled: options.recordOutcome?.(decision),
      event: event && eventRowOf(event, options.eventIds),
    }),
  );
  if (event) await recordIntentPaid(tx, updated, now, options.eventIds, intent.paidIntent);
  await recordIntentPaidByHeld(tx, intent, now, options.eventIds);
  return { decision, payment: updated };
}
