/**
 * Applying a stored callback exactly once (docs/mpesa.md#callbacks), the same for STK results, B2C
 * and reversal results, timeouts and status results: in one transaction the stored row is locked (and
 * skipped when another path already handled it), the payment, payout or reversal it names is found,
 * locked and settled, and the stored row records what the callback did: applied | duplicate |
 * flagged (with flag_reason) | accepted.
 */
import type { Deps } from "../../context.js";
import type { Tx } from "../payment-records.js";
import { eventIdsFrom } from "../../webhooks/events.js";
import { recordCallbackFlagged } from "./settled-events.js";

/** momo_callbacks.outcome (the audit trail of what a callback did). */
export type CallbackOutcome = "accepted" | "applied" | "duplicate" | "flagged" | "malformed" | "rejected";

/** What a callback can come to once applied. */
export type AppliedOutcome = Exclude<CallbackOutcome, "malformed" | "rejected">;

export type StoredApplyResult = AppliedOutcome | "held" | "skipped";

/** What a state machine (payment or payout) decides an outcome does to its row. */
export interface SettlementDecision<Changes> {
  outcome: AppliedOutcome;
  flagReason?: string;
  /** Columns to write; absent when the row stays as it is. */
  changes?: Changes;
  /** The row's status changed (a payment's subscribers are told). */
  statusChanged: boolean;
}

/** An outcome of a row that ends SUCCESS or FAILED (payouts, reversals), as the shared rules read it. */
export interface FinalOutcome {
  source: "result" | "timeout" | "status";
  status: "SUCCESS" | "FAILED" | "UNKNOWN";
  resultCode: string | null;
}

/**
 * What an outcome does to a row already SUCCESS or FAILED: a time-out, no news or the same news is a
 * duplicate; the other final status is a conflict, flagged for a person and never applied.
 */
export function decideForSettled(settledStatus: string, outcome: FinalOutcome): SettlementDecision<never> {
  if (outcome.source === "timeout" || outcome.status === "UNKNOWN" || outcome.status === settledStatus) return { outcome: "duplicate", statusChanged: false };
  return {
    outcome: "flagged",
    flagReason: `conflicts with the settled status ${settledStatus}: ResultCode ${outcome.resultCode ?? "(none)"} says ${outcome.status}`,
    statusChanged: false,
  };
}

/** An amount Daraja reports that differs from the row's: never applied, whatever the row's status. */
export function amountMismatch(what: string, expected: number, reported: number | undefined): SettlementDecision<never> | undefined {
  if (reported === undefined || reported === expected) return undefined;
  return { outcome: "flagged", flagReason: `amount mismatch: ${what} ${expected}, Daraja says ${reported}`, statusChanged: false };
}

export interface UnappliedCallback {
  receivedAt: Date;
  accountReference: string | null;
}

/**
 * What applying came to, decided under the locks: either the stored row is left as it is (held for a
 * payment that has no id yet, or naming nothing to settle), or it records an outcome and what it settled.
 */
export type CallbackVerdict<Settled> =
  | { recorded: false; result: "held" | "accepted" }
  | { recorded: true; outcome: AppliedOutcome; flagReason?: string | undefined; link: { paymentId?: string; payoutId?: string }; settled?: Settled };

/** Locks a stored callback that has not been applied yet; null when another path already handled it. */
async function lockUnapplied(tx: Tx, callbackId: string): Promise<UnappliedCallback | null> {
  const rows = await tx.$queryRaw<{ outcome: string; linked: boolean; received_at: Date; account_reference: string | null }[]>`
    SELECT outcome, (payment_id IS NOT NULL OR payout_id IS NOT NULL) AS linked, received_at, account_reference
      FROM momo_callbacks WHERE id = ${callbackId}::uuid FOR UPDATE`;
  const row = rows[0];
  if (row === undefined || row.outcome !== "accepted" || row.linked) return null;
  return { receivedAt: new Date(row.received_at), accountReference: row.account_reference };
}

/**
 * Applies a stored callback once: `decide` finds, locks and settles what it names. A flagged callback
 * is logged (with `logFields`) after the commit; what was settled is returned for the caller to announce.
 */
export async function applyStoredCallback<Settled>(
  deps: Deps,
  callbackId: string,
  logFields: object,
  decide: (tx: Tx, stored: UnappliedCallback, now: Date) => Promise<CallbackVerdict<Settled>>,
): Promise<{ result: StoredApplyResult; settled?: Settled | undefined }> {
  const now = deps.clock.now();
  const verdict = await deps.db.unscoped.$transaction(async (tx): Promise<CallbackVerdict<Settled> | undefined> => {
    const stored = await lockUnapplied(tx, callbackId);
    if (!stored) return undefined;
    const decided = await decide(tx, stored, now);
    if (decided.recorded) {
      const recorded = await tx.momoCallback.update({ where: { id: callbackId }, data: { outcome: decided.outcome, flagReason: decided.flagReason ?? null, ...decided.link } });
      if (decided.outcome === "flagged") await recordCallbackFlagged(tx, recorded, now, eventIdsFrom(deps.random));
    }
    return decided;
  });
  if (!verdict) return { result: "skipped" };
  if (verdict.recorded) deps.webhooks.nudge();
  if (!verdict.recorded) return { result: verdict.result };
  if (verdict.outcome === "flagged") deps.logger.warn({ callbackId, ...logFields, flagReason: verdict.flagReason }, "momo callback flagged for review");
  return { result: verdict.outcome, settled: verdict.settled };
}
