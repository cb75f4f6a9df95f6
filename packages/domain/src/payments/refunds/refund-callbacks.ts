/**
 * The callbacks of refunds (docs/mpesa.md#refunds): a refund by reversal is Daraja's Reversal, so its
 * results, time-outs and Transaction Status results arrive at the reversal paths (the second release's,
 * kept); a refund sent by B2C names its own result paths (refund/b2c/…), apart from the payouts', since a
 * refund is not a payout. Each is read into the outcome it brings and the ids of the refund it names,
 * then applied once to that refund (shared/stored-callback.ts). The stored callback is linked to the
 * refunded payment.
 */
import {
  classifyB2cResultCode,
  classifyReversalResultCode,
  classifyTransactionStatusResult,
  parseB2cResult,
  parseB2cTimeout,
  parseReversalResult,
  parseReversalTimeout,
  parseTransactionStatusResult,
  type TransactionStatusResult,
} from "@mteja/daraja";
import { refunds, type RefundModel } from "@mteja/db";
import type { PaymentPorts } from "../shared/ports.js";
import type { CallbackAuthority } from "../shared/callback-tokens.js";
import { correlated, type Parse } from "../shared/flow.js";
import { refusalOf } from "../shared/callback-authority.js";
import {
  applyStoredCallback,
  recordOutcomeWith,
  refusedVerdict,
  type StoredApplyResult,
} from "../shared/stored-callback.js";
import { eventIdsFrom } from "../../webhooks/events.js";
import { settleRequest } from "../shared/request-settlement.js";
import { refundSettlement, type RefundOutcome } from "./refund-settlement.js";

export type RefundCallbackKind =
  | "reversal_result"
  | "reversal_timeout"
  | "reversal_status"
  | "refund_b2c_result"
  | "refund_b2c_timeout"
  | "refund_b2c_status";

export interface RefundCallback {
  kind: RefundCallbackKind;
  outcome: RefundOutcome;
  ids: refunds.RefundIds;
  /** A status result: what Daraja says of the transaction it was asked about. */
  queried?: { receipt?: string | undefined; status?: string | undefined } | undefined;
  correlationId: string | null;
}

type Parsed = { ok: true; value: RefundCallback } | { ok: false; error: string };

/** A Transaction Status result: the top-level ids are the query's own; the queried transaction is in the parameters. */
function statusOutcome(r: TransactionStatusResult): RefundOutcome {
  const t = r.transaction;
  return {
    source: "status",
    status: classifyTransactionStatusResult(r),
    resultCode: r.resultCode,
    resultDesc: t.status ? `${r.resultDesc} Transaction status: ${t.status}.` : r.resultDesc,
    originatorConversationId: t.originatorConversationId,
    conversationId: t.conversationId,
    receipt: t.receiptNo,
    amount: t.amount,
  };
}

export function parseRefundCallback(kind: RefundCallbackKind, body: unknown): Parse<RefundCallback> {
  return correlated(readRefundCallback(kind, body));
}

function readRefundCallback(kind: RefundCallbackKind, body: unknown): Parsed {
  switch (kind) {
    case "reversal_result": {
      const parsed = parseReversalResult(body);
      if (!parsed.ok) return parsed;
      const r = parsed.value;
      const outcome: RefundOutcome = {
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
      const ids = {
        originatorConversationId: r.originatorConversationId,
        conversationId: r.conversationId,
        originalReceipt: r.originalTransactionId,
      };
      return { ok: true, value: { kind, outcome, ids, correlationId: r.originatorConversationId } };
    }
    case "refund_b2c_result": {
      const parsed = parseB2cResult(body);
      if (!parsed.ok) return parsed;
      const r = parsed.value;
      const outcome: RefundOutcome = {
        source: "result",
        status: classifyB2cResultCode(r.resultCode),
        resultCode: r.resultCode,
        resultDesc: r.resultDesc,
        originatorConversationId: r.originatorConversationId,
        conversationId: r.conversationId,
        receipt: r.receipt ?? r.transactionId ?? undefined,
        amount: r.amount,
      };
      const ids = { originatorConversationId: r.originatorConversationId, conversationId: r.conversationId };
      return { ok: true, value: { kind, outcome, ids, correlationId: r.originatorConversationId } };
    }
    case "reversal_timeout":
    case "refund_b2c_timeout": {
      const parsed = kind === "reversal_timeout" ? parseReversalTimeout(body) : parseB2cTimeout(body);
      if (!parsed.ok) return parsed;
      const r = parsed.value;
      const ids = { originatorConversationId: r.originatorConversationId, conversationId: r.conversationId };
      const { resultCode, resultDesc } = r;
      const outcome: RefundOutcome = { source: "timeout", status: "UNKNOWN", resultCode, resultDesc, ...ids };
      return { ok: true, value: { kind, outcome, ids, correlationId: r.originatorConversationId } };
    }
    case "reversal_status": {
      const parsed = parseTransactionStatusResult(body);
      if (!parsed.ok) return parsed;
      const t = parsed.value.transaction;
      // Queried by the refund's OriginatorConversationID, or by the reversed payment's receipt when its
      // ids were never known.
      const ids = {
        originatorConversationId: t.originatorConversationId,
        conversationId: t.conversationId,
        receipt: t.receiptNo,
      };
      const queried = { receipt: t.receiptNo, status: t.status };
      const correlationId = t.originatorConversationId ?? t.receiptNo ?? null;
      return { ok: true, value: { kind, outcome: statusOutcome(parsed.value), ids, queried, correlationId } };
    }
    case "refund_b2c_status": {
      const parsed = parseTransactionStatusResult(body);
      if (!parsed.ok) return parsed;
      const t = parsed.value.transaction;
      const ids = { originatorConversationId: t.originatorConversationId, conversationId: t.conversationId };
      const correlationId = t.originatorConversationId ?? t.conversationId ?? null;
      return { ok: true, value: { kind, outcome: statusOutcome(parsed.value), ids, correlationId } };
    }
  }
}

/**
 * A status query made with the reversed payment's receipt (the reversal's own ids were never known)
 * describes the payment, not the reversal: only its status `Reversed` settles the reversal (SUCCESS);
 * anything else says nothing about it.
 */
function asRefundOutcome(refund: RefundModel, callback: RefundCallback): RefundOutcome {
  const { outcome, queried } = callback;
  if (refund.method !== "reversal" || outcome.source !== "status") return outcome;
  if (queried?.receipt === undefined || queried.receipt !== refund.originalReceipt) return outcome;
  const reversed = queried.status?.toLowerCase() === "reversed";
  const named = { receipt: undefined, originatorConversationId: undefined, conversationId: undefined };
  return { ...outcome, ...named, status: reversed ? "SUCCESS" : "UNKNOWN" };
}

/** The method whose Daraja request a callback of this kind answers. */
function methodOfKind(kind: RefundCallbackKind): string {
  return kind.startsWith("reversal_") ? "reversal" : "b2c";
}

/** A refund whose outcome is still open. */
const openRefundStatuses = ["PENDING", "UNKNOWN"];

/** Applies a stored refund callback once, under the refund's row lock, if its token speaks for that refund. */
export async function applyStoredRefundCallback(
  deps: PaymentPorts,
  callbackId: string,
  authority: CallbackAuthority,
  callback: RefundCallback,
): Promise<StoredApplyResult> {
  const { ids } = callback;
  const { result } = await applyStoredCallback(deps, callbackId, ids, async (tx, now, recorder) => {
    if (!ids.originatorConversationId && !ids.conversationId && !ids.receipt && !ids.originalReceipt) {
      // A status query that failed names no transaction: nothing to apply, the reconciler asks again.
      return { recorded: false, result: "accepted" };
    }
    // By Daraja's ids, else as the open reversal of the receipt it reverses: a result that beat the storing
    // of the request's acknowledgement, or one whose request had an unknown outcome.
    const refund = await refunds.lockByIds(tx, ids, openRefundStatuses);
    if (!refund) {
      const flagReason = "names no refund (unknown OriginatorConversationID / ConversationID / receipt)";
      return { recorded: true, outcome: "flagged", flagReason, link: {} };
    }
    const refusal = refusalOf(authority, refund);
    if (refusal !== undefined) return refusedVerdict(refusal);
    const link = { paymentId: refund.paymentId };
    if (methodOfKind(callback.kind) !== refund.method) {
      const flagReason = `a ${callback.kind} callback for a refund sent by ${refund.method}`;
      return { recorded: true, outcome: "flagged", flagReason, link };
    }
    const settlement = { eventIds: eventIdsFrom(deps.random), recordOutcome: recordOutcomeWith(recorder, link) };
    const outcome = asRefundOutcome(refund, callback);
    const { decision } = await settleRequest(tx, refund, outcome, now, refundSettlement, settlement);
    return { recorded: true, outcome: decision.outcome, flagReason: decision.flagReason, link };
  });
  return result;
}
