/**
 * Reversal results, time-outs and the results of a reversal's Transaction Status query
 * (docs/mpesa.md#reversals): read into the outcome they bring and the ids of the reversal they name,
 * then applied once to that reversal (shared/stored-callback.ts). The stored callback is linked to the
 * reversed payment.
 */
import {
  classifyReversalResultCode,
  classifyTransactionStatusResult,
  parseReversalResult,
  parseReversalTimeout,
  parseTransactionStatusResult,
} from "@mteja/daraja";
import { reversals, type PaymentReversalModel } from "@mteja/db";
import type { PaymentPorts } from "../shared/ports.js";
import type { CallbackAuthority } from "../shared/callback-tokens.js";
import { refusalOf } from "../shared/callback-authority.js";
import { applyStoredCallback, recordOutcomeWith, refusedVerdict, type StoredApplyResult } from "../shared/stored-callback.js";
import { settleReversal, type ReversalOutcome } from "./reversal-settlement.js";

export type ReversalCallbackKind = "reversal_result" | "reversal_timeout" | "reversal_status";

export interface ReversalCallback {
  kind: ReversalCallbackKind;
  outcome: ReversalOutcome;
  ids: reversals.ReversalIds;
  /** A status result: what Daraja says of the transaction it was asked about. */
  queried?: { receipt?: string | undefined; status?: string | undefined } | undefined;
  correlationId: string | null;
}

type Parsed = { ok: true; value: ReversalCallback } | { ok: false; error: string };

export function parseReversalCallback(kind: ReversalCallbackKind, body: unknown): Parsed {
  switch (kind) {
    case "reversal_result": {
      const parsed = parseReversalResult(body);
      if (!parsed.ok) return parsed;
      const r = parsed.value;
      const outcome: ReversalOutcome = {
        source: "result",
        status: classifyReversalResultCode(r.resultCode),
        resultCode: r.resultCode,
        resultDesc: r.resultDesc,
        originatorConversationId: r.originatorConversationId,
        conversationId: r.conversationId,
        receipt: r.transactionId ?? undefined,
        originalReceipt: r.originalTransactionId,
        amount: r.amount,
      };
      const ids = { originatorConversationId: r.originatorConversationId, conversationId: r.conversationId, originalReceipt: r.originalTransactionId };
      return { ok: true, value: { kind, outcome, ids, correlationId: r.originatorConversationId } };
    }
    case "reversal_timeout": {
      const parsed = parseReversalTimeout(body);
      if (!parsed.ok) return parsed;
      const r = parsed.value;
      const outcome: ReversalOutcome = { source: "timeout", status: "UNKNOWN", resultCode: r.resultCode, resultDesc: r.resultDesc, originatorConversationId: r.originatorConversationId, conversationId: r.conversationId };
      return { ok: true, value: { kind, outcome, ids: { originatorConversationId: r.originatorConversationId, conversationId: r.conversationId }, correlationId: r.originatorConversationId } };
    }
    case "reversal_status": {
      const parsed = parseTransactionStatusResult(body);
      if (!parsed.ok) return parsed;
      const r = parsed.value;
      const t = r.transaction;
      const outcome: ReversalOutcome = {
        source: "status",
        status: classifyTransactionStatusResult(r),
        resultCode: r.resultCode,
        resultDesc: t.status ? `${r.resultDesc} Transaction status: ${t.status}.` : r.resultDesc,
        originatorConversationId: t.originatorConversationId,
        conversationId: t.conversationId,
        receipt: t.receiptNo,
        amount: t.amount,
      };
      // The top-level ids are the status query's own; the queried transaction is named in the parameters.
      const ids = { originatorConversationId: t.originatorConversationId, conversationId: t.conversationId, receipt: t.receiptNo };
      return { ok: true, value: { kind, outcome, ids, queried: { receipt: t.receiptNo, status: t.status }, correlationId: t.originatorConversationId ?? t.receiptNo ?? null } };
    }
  }
}

/**
 * A status query made with the reversed payment's receipt (the reversal's own ids were never known)
 * describes the payment, not the reversal: only its status `Reversed` settles the reversal (SUCCESS);
 * anything else says nothing about it.
 */
function asReversalOutcome(reversal: PaymentReversalModel, callback: ReversalCallback): ReversalOutcome {
  const { outcome, queried } = callback;
  if (outcome.source !== "status" || queried?.receipt === undefined || queried.receipt !== reversal.originalReceipt) return outcome;
  const reversed = queried.status?.toLowerCase() === "reversed";
  return { ...outcome, status: reversed ? "SUCCESS" : "UNKNOWN", receipt: undefined, originatorConversationId: undefined, conversationId: undefined };
}

/** A reversal whose outcome is still open. */
const openReversalStatuses = ["PENDING", "UNKNOWN"];

/** Applies a stored reversal callback once, under the reversal's row lock, if its token speaks for that reversal. */
export async function applyStoredReversalCallback(deps: PaymentPorts, callbackId: string, authority: CallbackAuthority, callback: ReversalCallback): Promise<StoredApplyResult> {
  const { ids } = callback;
  const { result } = await applyStoredCallback(deps, callbackId, ids, async (tx, now, recorder) => {
    if (!ids.originatorConversationId && !ids.conversationId && !ids.receipt && !ids.originalReceipt) {
      // A status query that failed names no transaction: nothing to apply, the reconciler asks again.
      return { recorded: false, result: "accepted" };
    }
    // By Daraja's ids, else as the open reversal of the receipt it reverses: a result that beat the storing
    // of the request's acknowledgement, or one whose request had an unknown outcome.
    const reversal = await reversals.lockByIds(tx, ids, openReversalStatuses);
    if (!reversal) return { recorded: true, outcome: "flagged", flagReason: "names no reversal (unknown OriginatorConversationID / ConversationID / receipt)", link: {} };
    const refusal = refusalOf(authority, reversal);
    if (refusal !== undefined) return refusedVerdict(refusal);
    const link = { paymentId: reversal.paymentId };
    const { decision } = await settleReversal(tx, reversal, asReversalOutcome(reversal, callback), now, recordOutcomeWith(recorder, link));
    return { recorded: true, outcome: decision.outcome, flagReason: decision.flagReason, link };
  });
  return result;
}
