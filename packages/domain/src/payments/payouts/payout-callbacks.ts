/**
 * B2C results, B2C timeouts and Transaction Status results (docs/mpesa.md#callbacks): read into the
 * outcome they bring and the ids of the payout they name, then applied once to that payout.
 */
import {
  classifyB2cResultCode,
  classifyTransactionStatusResult,
  parseB2cResult,
  parseB2cTimeout,
  parseTransactionStatusResult,
} from "@mteja/daraja";
import { payouts } from "@mteja/db";
import type { PaymentPorts } from "../shared/ports.js";
import type { CallbackAuthority } from "../shared/callback-tokens.js";
import type { Parse } from "../shared/flow.js";
import { refusalOf } from "../shared/callback-authority.js";
import { applyStoredCallback, recordOutcomeWith, refusedVerdict, type StoredApplyResult } from "../shared/stored-callback.js";
import { settleRequest } from "../shared/request-settlement.js";
import { payoutSettlement, type PayoutOutcome } from "./payout-settlement.js";
import { eventIdsFrom } from "../../webhooks/events.js";

export type PayoutCallbackKind = "b2c_result" | "b2c_timeout" | "b2c_status";

export interface PayoutIds {
  originatorConversationId?: string | undefined;
  conversationId?: string | undefined;
}

export interface PayoutCallback {
  kind: PayoutCallbackKind;
  outcome: PayoutOutcome;
  ids: PayoutIds;
  correlationId: string | null;
}

/** The two ids Daraja names a payout by (for a status result: the queried transaction's, not the query's). */
function idsOf(named: PayoutIds): PayoutIds {
  return { originatorConversationId: named.originatorConversationId, conversationId: named.conversationId };
}

type Read = { ok: true; value: Pick<PayoutCallback, "ids" | "outcome"> } | { ok: false; error: string };

function readPayoutCallback(kind: PayoutCallbackKind, body: unknown): Read {
  switch (kind) {
    case "b2c_result": {
      const parsed = parseB2cResult(body);
      if (!parsed.ok) return parsed;
      const r = parsed.value;
      const outcome: PayoutOutcome = {
        source: "result",
        status: classifyB2cResultCode(r.resultCode),
        resultCode: r.resultCode,
        resultDesc: r.resultDesc,
        conversationId: r.conversationId,
        transactionId: r.receipt ?? r.transactionId ?? undefined,
        amount: r.amount,
        receiverName: r.receiverName,
      };
      return { ok: true, value: { ids: idsOf(r), outcome } };
    }
    case "b2c_timeout": {
      const parsed = parseB2cTimeout(body);
      if (!parsed.ok) return parsed;
      const r = parsed.value;
      return { ok: true, value: { ids: idsOf(r), outcome: { source: "timeout", status: "UNKNOWN", resultCode: r.resultCode, resultDesc: r.resultDesc, conversationId: r.conversationId } } };
    }
    case "b2c_status": {
      const parsed = parseTransactionStatusResult(body);
      if (!parsed.ok) return parsed;
      const r = parsed.value;
      const t = r.transaction;
      const outcome: PayoutOutcome = {
        source: "status",
        status: classifyTransactionStatusResult(r),
        resultCode: r.resultCode,
        resultDesc: t.status ? `${r.resultDesc} Transaction status: ${t.status}.` : r.resultDesc,
        conversationId: t.conversationId,
        transactionId: t.receiptNo,
        amount: t.amount,
      };
      // The top-level ids are the status query's own; the queried payout is named in the parameters.
      return { ok: true, value: { ids: idsOf(t), outcome } };
    }
  }
}

export function parsePayoutCallback(kind: PayoutCallbackKind, body: unknown): Parse<PayoutCallback> {
  const read = readPayoutCallback(kind, body);
  if (!read.ok) return read;
  const { ids, outcome } = read.value;
  const correlationId = ids.originatorConversationId ?? ids.conversationId ?? null;
  return { ok: true, value: { kind, ids, outcome, correlationId }, correlationId };
}

/** Applies a stored payout callback once, under the payout's row lock, if its token speaks for that payout. */
export async function applyStoredPayoutCallback(deps: PaymentPorts, callbackId: string, authority: CallbackAuthority, outcome: PayoutOutcome, ids: PayoutIds): Promise<StoredApplyResult> {
  const { result } = await applyStoredCallback(deps, callbackId, ids, async (tx, now, recorder) => {
    if (!ids.originatorConversationId && !ids.conversationId) {
      // A status query that failed or timed out names no payout: nothing to apply, the reconciler asks again.
      return { recorded: false, result: "accepted" };
    }
    const payout = await payouts.lockByIds(tx, ids);
    if (!payout) return { recorded: true, outcome: "flagged", flagReason: "unknown OriginatorConversationID / ConversationID", link: {} };
    const refusal = refusalOf(authority, payout);
    if (refusal !== undefined) return refusedVerdict(refusal);
    const link = { payoutId: payout.id };
    const writes = { eventIds: eventIdsFrom(deps.random), recordOutcome: recordOutcomeWith(recorder, link) };
    const { decision } = await settleRequest(tx, payout, outcome, now, payoutSettlement, writes);
    return { recorded: true, outcome: decision.outcome, flagReason: decision.flagReason, link };
  });
  return result;
}
