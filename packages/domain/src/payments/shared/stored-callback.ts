/**
 * Applying a stored callback exactly once (docs/mpesa.md#callbacks), the same for STK results, B2C
 * and reversal results, timeouts and status results, and C2B confirmations: in one transaction the
 * payment, payout or reversal it names is found, locked and settled, and then the stored row records
 * what the callback did (applied | duplicate | flagged with flag_reason | accepted) — but only while it
 * is still unhandled; when another path handled it first, the whole transaction is rolled back.
 *
 * Lock order, the same on every path: the payment (payout, reversal) first, the stored row last, locked
 * by the statement that records the outcome rather than up front; a settlement that writes its row
 * records the outcome in that same statement (`OutcomeRecorder`). Every callback pays each round trip,
 * and round trips are most of its CPU (docs/performance.md, "Callback ingestion").
 *
 * When the caller offers it, a callback is first applied without locks, which saves BEGIN and COMMIT:
 * the row is read without its lock and the decision is written by one statement, outside any
 * transaction, that locks the row and writes only while it is still as read (its status and updated_at)
 * and the stored row still unhandled — the row lock that statement takes is the lock the settlement is
 * applied under. Anything else (the row changed, the stored row handled, a flagged outcome, a row that
 * was not found) writes nothing and falls back to the transaction above.
 */
import { callbacks, type RawSql } from "@mteja/db";
import type { PaymentPorts } from "./ports.js";
import { eventIdsFrom } from "../../webhooks/events.js";
import { recordCallbackFlagged } from "./settled-events.js";

/**
 * What settling a locked row writes with: raw SQL, offered alike by the plain transaction callbacks
 * run in (`Database.transaction(door, "plain", …)`), by autocommit statements (an apply without locks:
 * `"autocommit"`) and by Prisma's transactions, a tenant's (stkquery, the reconciler's queries) or the
 * unscoped one. The rows are named by id, so the tenant scope has nothing to add.
 */
export type SettlementTx = RawSql;

/** momo_callbacks.outcome (the audit trail of what a callback did). */
export type CallbackOutcome = "accepted" | "applied" | "duplicate" | "flagged" | "malformed" | "rejected";

/** What a callback can come to once applied. */
export type AppliedOutcome = Exclude<CallbackOutcome, "malformed" | "rejected">;

/** What applying can record: an applied outcome, or `rejected` when its token does not speak for what it names (callback-authority.ts). */
export type RecordedOutcome = AppliedOutcome | "rejected";

export type StoredApplyResult = RecordedOutcome | "held" | "skipped";

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
  | { recorded: true; outcome: RecordedOutcome; flagReason?: string | undefined; link: { paymentId?: string; payoutId?: string }; settled?: Settled };

/**
 * The verdict on a callback whose token does not speak for what it names (callback-authority.ts):
 * nothing applied, the stored row `rejected` with why, linked to nothing (it is not that row's evidence).
 */
export function refusedVerdict(reason: string): CallbackVerdict<never> {
  return { recorded: true, outcome: "rejected", flagReason: reason, link: {} };
}

type RecordedVerdict = Extract<CallbackVerdict<unknown>, { recorded: true }>;

/** What the stored row is to record: the outcome, why it was flagged, what it settled. */
export type OutcomeToRecord = Pick<RecordedVerdict, "outcome" | "flagReason" | "link">;

/**
 * Rolls the transaction back: the stored row was handled by another path while this one decided.
 * Thrown by a settlement whose own statement recorded the outcome (`OutcomeRecorder`) and found the row handled.
 */
export class CallbackHandledElsewhere extends Error {}

/** A payment (payout, reversal) as read without its lock, by an apply without locks. */
export type RowAsRead = callbacks.RowAsRead;

/**
 * Lets a settlement record the stored row's outcome in the statement that writes its row (the
 * repositories' `settle(…, { unlessHandled })`), one round trip fewer. `unlessHandled` answers undefined
 * for a flagged outcome, which the shared folder records itself (its callback.flagged event needs the recorded
 * row). A settlement whose write found the row handled throws `CallbackHandledElsewhere` (settledRow).
 */
export interface OutcomeRecorder {
  unlessHandled(outcome: OutcomeToRecord): callbacks.UnlessHandled | undefined;
}

/** What a settlement is given to record a callback's outcome with its decision (undefined: the caller records it). */
export type RecordOutcome =
  | ((decision: Pick<SettlementDecision<unknown>, "outcome" | "flagReason">) => callbacks.UnlessHandled | undefined)
  | undefined;

/** The `RecordOutcome` of a callback that settles what `link` names. */
export function recordOutcomeWith(recorder: OutcomeRecorder, link: OutcomeToRecord["link"]): RecordOutcome {
  return (decision) => recorder.unlessHandled({ outcome: decision.outcome, flagReason: decision.flagReason, link });
}

/**
 * The row a settlement's `settle(…, { unlessHandled })` wrote; throws CallbackHandledElsewhere when
 * it wrote nothing, the stored row having been handled first (or the row read having changed).
 */
export function settledRow<Model>(row: Model | undefined): Model {
  if (row === undefined) throw new CallbackHandledElsewhere();
  return row;
}

/**
 * The recorder of the locked path, or given `asRead` of an apply without locks: its write also checks
 * the row is still as read, and a flagged outcome, which only the locked path records, throws
 * CallbackNeedsLocks before anything is written.
 */
function outcomeRecorder(callbackId: string, asRead?: RowAsRead): OutcomeRecorder & { recorded: OutcomeToRecord | undefined; asRead: RowAsRead | undefined } {
  const recorder = {
    recorded: undefined as OutcomeToRecord | undefined,
    asRead,
    unlessHandled(outcome: OutcomeToRecord) {
      if (outcome.outcome === "flagged") {
        if (asRead) throw new CallbackNeedsLocks();
        return undefined;
      }
      recorder.recorded = outcome;
      return { callbackId, outcome, asRead };
    },
  };
  return recorder;
}

const sameOutcome = (a: OutcomeToRecord, b: OutcomeToRecord): boolean =>
  a.outcome === b.outcome && (a.flagReason ?? null) === (b.flagReason ?? null) && a.link.paymentId === b.link.paymentId && a.link.payoutId === b.link.payoutId;

/**
 * Thrown through an apply without locks when its decision needs the transaction (a flagged outcome,
 * whose callback.flagged event reads the recorded row): nothing was written, the locked path decides.
 */
export class CallbackNeedsLocks extends Error {}

/** What an apply without locks is given to record its outcome with: the recorder of a row it read. */
export interface UnlockedRecorder {
  /** The recorder of a settlement of `row`: its statement writes nothing unless `row` is still as read. */
  asRead(row: RowAsRead): OutcomeRecorder;
}

/**
 * An apply without locks: reads what the callback names (no lock, no transaction) and settles it
 * through `recorder.asRead` in one guarded statement, every other write of the settlement in that
 * statement too (it has no transaction to roll back); undefined when it cannot (nothing found, a row
 * whose settlement writes more rows), for the locked path to decide.
 */
export type ApplyWithoutLocks<Settled> = (sql: SettlementTx, now: Date, recorder: UnlockedRecorder) => Promise<CallbackVerdict<Settled> | undefined>;

const deadlockDetected = "40P01";

/** Applies without locks; undefined when nothing was written and the locked path is to decide. */
async function applyWithoutLocks<Settled>(deps: PaymentPorts, callbackId: string, now: Date, attempt: ApplyWithoutLocks<Settled>): Promise<CallbackVerdict<Settled> | undefined> {
  let recorder: ReturnType<typeof outcomeRecorder> | undefined;
  const unlocked: UnlockedRecorder = { asRead: (row) => (recorder = outcomeRecorder(callbackId, row)) };
  // Daraja's ids name no tenant: the payment is found across tenants.
  const db = deps.db.unscoped("daraja-callback");
  try {
    const decided = await deps.db.transaction(db, "autocommit", (sql) => attempt(sql, now, unlocked));
    if (recorder?.recorded) {
      // Written by the settlement's guarded statement (else it threw CallbackHandledElsewhere).
      if (!decided?.recorded || !sameOutcome(recorder.recorded, decided)) throw new Error("a settlement recorded another outcome than its decision");
      return decided;
    }
    if (!decided?.recorded || decided.outcome === "flagged" || decided.outcome === "rejected" || !recorder) return undefined;
    // A decision that writes nothing but the outcome (a duplicate), recorded while the row is still as read.
    const unlessHandled = { callbackId, outcome: decided, asRead: recorder.asRead };
    const recorded = await deps.db.transaction(db, "autocommit", (sql) => callbacks.recordOutcome(sql, unlessHandled));
    return recorded ? decided : undefined;
  } catch (error) {
    // The row changed or the stored row was handled since the read; a flagged outcome; a deadlock: the
    // statement wrote nothing (a statement is its own transaction).
    if (error instanceof CallbackHandledElsewhere || error instanceof CallbackNeedsLocks) return undefined;
    if ((error as { code?: unknown } | null)?.code === deadlockDetected) return undefined;
    throw error;
  }
}

/**
 * Applies a stored callback once: `withoutLocks` first when given (applyWithoutLocks), else or when it
 * cannot, `decide`, which finds, locks and settles what the callback names. A flagged callback is
 * logged (with `logFields`) after the commit; what was settled is returned for the caller to announce.
 */
export async function applyStoredCallback<Settled>(
  deps: PaymentPorts,
  callbackId: string,
  logFields: object,
  decide: (tx: SettlementTx, now: Date, recorder: OutcomeRecorder) => Promise<CallbackVerdict<Settled>>,
  withoutLocks?: ApplyWithoutLocks<Settled>,
): Promise<{ result: StoredApplyResult; settled?: Settled | undefined }> {
  const now = deps.clock.now();
  let verdict: CallbackVerdict<Settled> | undefined = withoutLocks && (await applyWithoutLocks(deps, callbackId, now, withoutLocks));
  if (!verdict) verdict = await applyWithLocks(deps, callbackId, now, decide);
  if (!verdict) return { result: "skipped" };
  if (verdict.recorded) deps.webhooks.nudge();
  if (!verdict.recorded) return { result: verdict.result };
  if (verdict.outcome === "flagged") deps.logger.warn({ callbackId, ...logFields, flagReason: verdict.flagReason }, "momo callback flagged for review");
  if (verdict.outcome === "rejected") deps.logger.warn({ callbackId, ...logFields, reason: verdict.flagReason }, "momo callback refused: its token does not speak for what it names");
  return { result: verdict.outcome, settled: verdict.settled };
}

/** `decide` in one transaction; undefined when the stored row was handled by another path first. */
async function applyWithLocks<Settled>(
  deps: PaymentPorts,
  callbackId: string,
  now: Date,
  decide: (tx: SettlementTx, now: Date, recorder: OutcomeRecorder) => Promise<CallbackVerdict<Settled>>,
): Promise<CallbackVerdict<Settled> | undefined> {
  try {
    // A plain transaction, not Prisma's: its interactive transaction costs five times the CPU per
    // statement, most of a callback's (docs/performance.md, "Callback path, round four"). Like the
    // request, it waits for a connection as long as the pool makes it.
    return await deps.db.transaction(deps.db.unscoped("daraja-callback"), "plain", async (tx): Promise<CallbackVerdict<Settled>> => {
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
      const recorded = await callbacks.recordOutcome(tx, { callbackId, outcome: decided });
      if (!recorded) throw new CallbackHandledElsewhere();
      if (decided.outcome === "flagged") await recordCallbackFlagged(tx, recorded, now, eventIdsFrom(deps.random));
      return decided;
    });
  } catch (error) {
    if (!(error instanceof CallbackHandledElsewhere)) throw error;
    return undefined;
  }
}
