/**
 * Applying STK callbacks (docs/mpesa.md#callbacks). An STK callback can arrive before the stkpush
 * response has stored its CheckoutRequestID. While a prompt is in flight such a callback is kept
 * ('accepted', no payment yet): stkPush applies it right after storing the ids, and the reconciler
 * flags it if no payment claims it within the hold window. A callback for a CheckoutRequestID that was
 * never stored (the push's outcome was unknown) settles the one payment without ids that its phone,
 * amount and reference match (unknown-prompts.ts).
 */
import { classifyStkResultCode, parseStkCallback, type StkCallback } from "@mteja/daraja";
import { callbacks, payments, type PaymentModel } from "@mteja/db";
import type { PaymentPorts } from "../shared/ports.js";
import type { StoreReading } from "../shared/flow.js";
import type { CallbackAuthority } from "../shared/callback-tokens.js";
import { authorityOfStored, refusalOf } from "../shared/callback-authority.js";
import { publishPaymentStatus } from "../shared/status-publisher.js";
import {
  applyStoredCallback,
  recordOutcomeWith,
  refusedVerdict,
  type CallbackVerdict,
  type OutcomeRecorder,
  type SettlementTx,
  type StoredApplyResult,
  type UnlockedRecorder,
} from "../shared/stored-callback.js";
import { settleStkPayment, type Settlement, type StkOutcome } from "./stk-settlement.js";
import { claimForCallback, lockPromptMatching } from "./unknown-prompts.js";
import { eventIdsFrom } from "../../webhooks/events.js";

export function stkOutcomeOf(callback: StkCallback): StkOutcome {
  return {
    source: "callback",
    status: classifyStkResultCode(callback.resultCode),
    resultCode: callback.resultCode,
    resultDesc: callback.resultDesc,
    amount: callback.amount,
    receipt: callback.mpesaReceiptNumber,
    phone: callback.phoneNumber,
    transactionDate: callback.transactionDate,
  };
}

/** A push still waiting for Daraja's answer (one whose outcome is unknown has a last_error). */
function promptsInFlight(tx: SettlementTx, now: Date, inFlightSeconds: number): Promise<boolean> {
  return payments.anyPromptInFlight(tx, new Date(now.getTime() - inFlightSeconds * 1000));
}

/** A stored STK callback: its row, what matching a prompt without ids needs of it, and whose token it came with. */
export interface StoredStkCallback {
  id: string;
  receivedAt: Date;
  accountReference: string | null;
  /** The tenant whose token its URL carried; null: the shared secret (docs/mpesa.md#callback-tokens). */
  tokenTenantId: string | null;
}

type StkTarget =
  | { kind: "payment"; payment: PaymentModel; receiptElsewhere?: boolean }
  | { kind: "held" }
  | { kind: "flagged"; flagReason: string }
  | { kind: "refused"; reason: string };

/** The payment found, unless the callback's token does not speak for it. */
function paymentTarget(found: payments.PaymentForCallback, authority: CallbackAuthority): StkTarget {
  const reason = refusalOf(authority, found.payment);
  return reason === undefined ? { kind: "payment", ...found } : { kind: "refused", reason };
}

/**
 * The payment a callback settles, locked. Most callbacks find their payment at once; only when the
 * lookup finds nothing are prompts in flight counted, and then the payment is looked up again: a push
 * that stores its ids before the count is found by the second lookup, one that stores them after is
 * counted (the callback is held and applied by that push) — never missed and flagged for good.
 */
async function stkTarget(tx: SettlementTx, deps: PaymentPorts, callback: StkCallback, stored: StoredStkCallback, now: Date): Promise<StkTarget> {
  const { promptInFlightSeconds, unknownPromptWindowSeconds } = deps.daraja.settings;
  const authority = authorityOfStored(stored.tokenTenantId);
  const found = await payments.lockByCheckoutId(tx, callback.checkoutRequestId, callback.mpesaReceiptNumber);
  if (found) return paymentTarget(found, authority);
  const inFlight = await promptsInFlight(tx, now, promptInFlightSeconds);
  const idsStored = await payments.lockByCheckoutId(tx, callback.checkoutRequestId, callback.mpesaReceiptNumber);
  if (idsStored) return paymentTarget(idsStored, authority);
  // Only the prompts its token speaks for are candidates.
  const match = await lockPromptMatching(tx, callback, stored.accountReference ?? undefined, authority, {
    since: new Date(stored.receivedAt.getTime() - unknownPromptWindowSeconds * 1000),
    receivedAt: stored.receivedAt,
    inFlightSince: new Date(now.getTime() - promptInFlightSeconds * 1000),
  });
  if (match.kind === "one") return { kind: "payment", payment: await claimForCallback(tx, match.payment, callback, now) };
  if (inFlight) return { kind: "held" };
  if (match.kind === "ambiguous") return { kind: "flagged", flagReason: `unknown CheckoutRequestID; phone, amount and reference match ${match.count} payments` };
  return { kind: "flagged", flagReason: "unknown CheckoutRequestID" };
}

async function stkVerdict(tx: SettlementTx, deps: PaymentPorts, callback: StkCallback, stored: StoredStkCallback, now: Date, recorder: OutcomeRecorder): Promise<CallbackVerdict<Settlement>> {
  const target = await stkTarget(tx, deps, callback, stored, now);
  if (target.kind === "held") return { recorded: false, result: "held" };
  if (target.kind === "refused") return refusedVerdict(target.reason);
  if (target.kind === "flagged") return { recorded: true, outcome: "flagged", flagReason: target.flagReason, link: {} };
  return settleWithCallback(tx, deps, callback, target, now, recorder);
}

/**
 * The apply without locks (applyStoredCallback's `withoutLocks`): the payment its CheckoutRequestID
 * names, read, then settled in one statement while it is still as read. A callback that finds no
 * payment (held, matched to a prompt without ids, flagged), a payment with an intent (which its
 * settlement writes in statements of their own) and a payment its token does not speak for (recorded
 * `rejected`) are left to the locked path.
 */
async function stkVerdictWithoutLocks(
  sql: SettlementTx,
  deps: PaymentPorts,
  callback: StkCallback,
  stored: StoredStkCallback,
  now: Date,
  recorder: UnlockedRecorder,
  named: NamedPayment | undefined,
): Promise<CallbackVerdict<Settlement> | undefined> {
  const found = named ? named.payment : await payments.readByCheckoutId(sql, callback.checkoutRequestId, callback.mpesaReceiptNumber);
  if (!found || found.payment.intentId !== null || refusalOf(authorityOfStored(stored.tokenTenantId), found.payment) !== undefined) return undefined;
  const { payment } = found;
  const { id, status, updatedAt } = payment;
  const asRead = recorder.asRead({ table: "payments", id, status, updatedAt });
  return settleWithCallback(sql, deps, callback, found, now, asRead);
}

/** Settles the payment a callback names (locked, or read by the apply without locks). */
async function settleWithCallback(
  tx: SettlementTx,
  deps: PaymentPorts,
  callback: StkCallback,
  { payment, receiptElsewhere }: { payment: PaymentModel; receiptElsewhere?: boolean | undefined },
  now: Date,
  recorder: OutcomeRecorder,
): Promise<CallbackVerdict<Settlement>> {
  const link = { paymentId: payment.id };
  if (payment.merchantRequestId !== null && payment.merchantRequestId !== callback.merchantRequestId) {
    return { recorded: true, outcome: "flagged", flagReason: `MerchantRequestID mismatch: stored ${payment.merchantRequestId}, callback ${callback.merchantRequestId}`, link };
  }
  const settlement = await settleStkPayment(tx, payment, stkOutcomeOf(callback), now, {
    eventIds: eventIdsFrom(deps.random),
    receiptElsewhere,
    recordOutcome: recordOutcomeWith(recorder, link),
  });
  return { recorded: true, outcome: settlement.decision.outcome, flagReason: settlement.decision.flagReason, link, settled: settlement };
}

/** The payment a callback's CheckoutRequestID names, as read by the statement that stored the callback. */
export interface NamedPayment {
  /** Undefined: no payment has that CheckoutRequestID (yet). */
  payment: payments.PaymentForCallback | undefined;
}

/** Stores an STK callback and reads the payment it names, in one statement (the callback route's). */
export function storeReadingPayment(callback: StkCallback): StoreReading<NamedPayment> {
  return async (deps, insert) => {
    // Daraja's ids name no tenant: the payment is found across tenants. The statement is its own transaction.
    const { id, payment } = await deps.db.transaction(deps.db.unscoped("daraja-callback"), "autocommit", (sql) =>
      payments.storeCallbackReadingPayment(sql, insert, callback.checkoutRequestId, callback.mpesaReceiptNumber),
    );
    return { id, read: { payment } };
  };
}

/**
 * Applies a stored STK callback (from the callback route, from stkPush after it stored the ids, or
 * from the reconciler). Idempotent: a callback already applied is skipped. `paysIntent`: its URL said its
 * prompt pays an intent (unknown-prompts.ts, INTENT_PARAMETER), whose settlement the apply without locks
 * leaves to the locked one: that one is taken at once. `named`: the payment as the statement that stored
 * the callback read it, which the apply without locks then need not read again.
 */
export async function applyStoredStkCallback(
  deps: PaymentPorts,
  stored: StoredStkCallback,
  callback: StkCallback,
  { paysIntent = false, named }: { paysIntent?: boolean; named?: NamedPayment | undefined } = {},
): Promise<StoredApplyResult> {
  const { result, settled } = await applyStoredCallback(
    deps,
    stored.id,
    { checkoutRequestId: callback.checkoutRequestId },
    (tx, now, recorder) => stkVerdict(tx, deps, callback, stored, now, recorder),
    paysIntent ? undefined : (sql, now, recorder) => stkVerdictWithoutLocks(sql, deps, callback, stored, now, recorder, named),
  );
  if (settled?.decision.statusChanged) publishPaymentStatus(deps, settled.payment);
  return result;
}

/** Re-reads a stored STK callback (it parsed when it was received). */
export function parseStoredStkCallback(rawBody: string): StkCallback | undefined {
  try {
    const parsed = parseStkCallback(JSON.parse(rawBody) as unknown);
    return parsed.ok ? parsed.value : undefined;
  } catch {
    return undefined;
  }
}

/** Applies the STK callbacks that arrived before their CheckoutRequestID was stored. */
export function applyHeldStkCallbacks(deps: PaymentPorts, checkoutRequestId: string): Promise<number> {
  return applyHeld(deps, { correlationId: checkoutRequestId });
}

/** Applies the STK callbacks kept since `since` (a push whose outcome turned out unknown may be theirs). */
export function applyHeldStkCallbacksSince(deps: PaymentPorts, since: Date): Promise<number> {
  return applyHeld(deps, { receivedSince: since });
}

async function applyHeld(deps: PaymentPorts, which: { correlationId?: string; receivedSince?: Date }): Promise<number> {
  const held = await callbacks.listHeld(deps.db.unscoped("daraja-callback"), { kind: "stkpush", ...which, limit: 200 });
  let applied = 0;
  for (const row of held) {
    const parsed = parseStoredStkCallback(row.rawBody);
    if (!parsed) continue;
    const result = await applyStoredStkCallback(deps, row, parsed);
    if (result !== "skipped" && result !== "held" && result !== "rejected") applied += 1;
  }
  return applied;
}
