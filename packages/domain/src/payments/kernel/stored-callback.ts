/**
 * Applying a stored callback exactly once (docs/mpesa.md#callbacks), the same for STK results, B2C
 * and reversal results, timeouts and status results, and C2B confirmations: in one transaction the
 * payment, payout or reversal it names is found, locked and settled, and then the stored row records
 * what the callback did (applied | duplicate | flagged with flag_reason | accepted) — but only while it
 * is still unhandled; when another path handled it first, the whole transaction is rolled back.
 *
 * Lock order, the same on every path: the payment (payout, reversal) first, the stored row last, in
 * the statement that records the outcome. Taking the stored row's lock in that statement instead of
 * up front saves a round trip per callback (docs/performance.md, "Callback path, round two"); a
 * settlement that writes its row can record the outcome in its own statement (`OutcomeRecorder`),
 * saving one more (round seven).
 */
import { Prisma, updateRow, updateRowIf, type ModelTable, type RowChanges } from "@mteja/db";
import type { Deps } from "../../context.js";
import type { SettlementTx } from "../payment-records.js";
import { eventIdsFrom } from "../../webhooks/events.js";
import { recordCallbackFlagged, type RecordedCallback } from "./settled-events.js";

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

/**
 * What applying came to, decided under the locks: either the stored row is left as it is (held for a
 * payment that has no id yet, or naming nothing to settle), or it records an outcome and what it settled.
 */
export type CallbackVerdict<Settled> =
  | { recorded: false; result: "held" | "accepted" }
  | { recorded: true; outcome: AppliedOutcome; flagReason?: string | undefined; link: { paymentId?: string; payoutId?: string }; settled?: Settled };

type RecordedVerdict = Extract<CallbackVerdict<unknown>, { recorded: true }>;

/** What the stored row is to record: the outcome, why it was flagged, what it settled. */
export type OutcomeToRecord = Pick<RecordedVerdict, "outcome" | "flagReason" | "link">;

/**
 * Rolls the transaction back: the stored row was handled by another path while this one decided.
 * Thrown by a settlement whose own statement recorded the outcome (`OutcomeRecorder`) and found the row handled.
 */
export class CallbackHandledElsewhere extends Error {}

interface RecordedRow {
  id: string;
  kind: string;
  received_at: Date;
  flag_reason: string | null;
  payment_id: string | null;
  payout_id: string | null;
}

/** The statement that records an outcome on the stored row if it is still unhandled (taking its row lock), returning the row. */
function outcomeStatement(callbackId: string, outcome: OutcomeToRecord): Prisma.Sql {
  return Prisma.sql`
    UPDATE momo_callbacks
       SET outcome = ${outcome.outcome}, flag_reason = ${outcome.flagReason ?? null},
           payment_id = ${outcome.link.paymentId ?? null}::uuid, payout_id = ${outcome.link.payoutId ?? null}::uuid
     WHERE id = ${callbackId}::uuid AND outcome = 'accepted' AND payment_id IS NULL AND payout_id IS NULL
    RETURNING id::text AS id, kind, received_at, flag_reason, payment_id::text AS payment_id, payout_id::text AS payout_id`;
}

/**
 * Records the outcome on the stored row if it is still unhandled (its row lock is taken here, after the
 * payment's); the recorded row, or undefined when another path handled it first.
 */
async function recordOutcome(tx: SettlementTx, callbackId: string, outcome: OutcomeToRecord): Promise<RecordedCallback | undefined> {
  const rows = await tx.$queryRaw<RecordedRow[]>(outcomeStatement(callbackId, outcome));
  const row = rows[0];
  if (!row) return undefined;
  return {
    id: row.id,
    kind: row.kind,
    receivedAt: new Date(row.received_at),
    flagReason: row.flag_reason,
    paymentId: row.payment_id,
    payoutId: row.payout_id,
  };
}

/**
 * Lets a settlement record the stored row's outcome in the statement that writes its row (updateRowIf's
 * `onlyIf`), one round trip fewer. `statementFor` answers undefined for a flagged outcome, which the
 * kernel records itself (its callback.flagged event needs the recorded row). A settlement that used the
 * statement and finds the row handled throws `CallbackHandledElsewhere`.
 */
export interface OutcomeRecorder {
  statementFor(outcome: OutcomeToRecord): Prisma.Sql | undefined;
}

/** What a settlement is given to record a callback's outcome with its decision (undefined: the caller records it). */
export type RecordOutcome = ((decision: Pick<SettlementDecision<unknown>, "outcome" | "flagReason">) => Prisma.Sql | undefined) | undefined;

/** The `RecordOutcome` of a callback that settles what `link` names. */
export function recordOutcomeWith(recorder: OutcomeRecorder, link: OutcomeToRecord["link"]): RecordOutcome {
  return (decision) => recorder.statementFor({ outcome: decision.outcome, flagReason: decision.flagReason, link });
}

/**
 * Writes a settlement's changes to the locked row, with the callback's outcome in the same statement
 * when `outcome` is given (updateRowIf's precondition); the row as it now is. Throws
 * CallbackHandledElsewhere when the stored row was handled first (nothing was updated).
 */
export async function updateSettledRow<Model>(
  tx: SettlementTx,
  table: ModelTable<Model>,
  id: string,
  changes: RowChanges<Model>,
  { outcome, alsoWrite }: { outcome?: Prisma.Sql | undefined; alsoWrite?: Prisma.Sql | undefined } = {},
): Promise<Model> {
  if (!outcome) return updateRow(tx, table, id, changes, alsoWrite);
  const updated = await updateRowIf(tx, table, id, changes, { onlyIf: outcome, alsoWrite });
  if (!updated) throw new CallbackHandledElsewhere();
  return updated;
}

function outcomeRecorder(callbackId: string): OutcomeRecorder & { recorded: OutcomeToRecord | undefined } {
  const recorder = {
    recorded: undefined as OutcomeToRecord | undefined,
    statementFor(outcome: OutcomeToRecord) {
      if (outcome.outcome === "flagged") return undefined;
      recorder.recorded = outcome;
      return outcomeStatement(callbackId, outcome);
    },
  };
  return recorder;
}

const sameOutcome = (a: OutcomeToRecord, b: OutcomeToRecord): boolean =>
  a.outcome === b.outcome && (a.flagReason ?? null) === (b.flagReason ?? null) && a.link.paymentId === b.link.paymentId && a.link.payoutId === b.link.payoutId;

/**
 * Applies a stored callback once: `decide` finds, locks and settles what it names. A flagged callback
 * is logged (with `logFields`) after the commit; what was settled is returned for the caller to announce.
 */
export async function applyStoredCallback<Settled>(
  deps: Deps,
  callbackId: string,
  logFields: object,
  decide: (tx: SettlementTx, now: Date, recorder: OutcomeRecorder) => Promise<CallbackVerdict<Settled>>,
): Promise<{ result: StoredApplyResult; settled?: Settled | undefined }> {
  const now = deps.clock.now();
  let verdict: CallbackVerdict<Settled> | undefined;
  try {
    // A plain transaction, not Prisma's: its interactive transaction costs five times the CPU per
    // statement, most of a callback's (docs/performance.md, "Callback path, round four"). Like the
    // request, it waits for a connection as long as the pool makes it.
    verdict = await deps.db.rawTransaction(async (tx): Promise<CallbackVerdict<Settled>> => {
      const recorder = outcomeRecorder(callbackId);
      const decided = await decide(tx, now, recorder);
      if (!decided.recorded) {
        if (recorder.recorded) throw new Error("a settlement recorded an outcome for a callback its decision holds");
        return decided;
      }
      if (recorder.recorded) {
        // Recorded by the settlement's own statement, which found the row unhandled (else it threw).
        if (!sameOutcome(recorder.recorded, decided)) throw new Error("a settlement recorded another outcome than its decision");
        return decided;
      }
      const recorded = await recordOutcome(tx, callbackId, decided);
      if (!recorded) throw new CallbackHandledElsewhere();
      if (decided.outcome === "flagged") await recordCallbackFlagged(tx, recorded, now, eventIdsFrom(deps.random));
      return decided;
    });
  } catch (error) {
    if (!(error instanceof CallbackHandledElsewhere)) throw error;
  }
  if (!verdict) return { result: "skipped" };
  if (verdict.recorded) deps.webhooks.nudge();
  if (!verdict.recorded) return { result: verdict.result };
  if (verdict.outcome === "flagged") deps.logger.warn({ callbackId, ...logFields, flagReason: verdict.flagReason }, "momo callback flagged for review");
  return { result: verdict.outcome, settled: verdict.settled };
}
