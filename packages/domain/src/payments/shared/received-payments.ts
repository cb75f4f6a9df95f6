/**
 * A payment made to the shop's short code (docs/mpesa.md#c2b): the money has moved, and Mteja learns of
 * it by a C2B confirmation or, when that never came, by Pull (docs/mpesa.md#recovery). Both are applied
 * here, the same way, once per receipt: a new payment row (channel c2b, SUCCESS) that pays the intent
 * its account names, or is kept as a duplicate or unmatched; a receipt this shop already holds (whichever
 * channel brought it: an STK callback, a confirmation, a pull) is a duplicate linked to that payment; one
 * another shop holds is flagged and linked to nothing.
 *
 * What the payment does to its intent is the intents area's (intents/received-payment.ts), handed in as
 * `ReceivedPaymentIntents`: this folder stands below the intents and imports none of it.
 */
import type { C2bNotification } from "@mteja/daraja";
import { isUniqueViolation, payments, type PaymentModel, type RawSql } from "@mteja/db";
import type { Tenant } from "../../shared/tenant.js";
import { recordEvent } from "../../webhooks/events.js";
import { c2bPaymentObject } from "./c2b-payment-object.js";
import type { PaymentPorts } from "./ports.js";
import {
  applyStoredCallback,
  refusedVerdict,
  type CallbackVerdict,
  type SettlementTx,
  type StoredApplyResult,
} from "./stored-callback.js";

/** The intent an account names: the tenant's open one with that reference, else its latest. */
export interface NamedIntent {
  id: string;
  status: string;
  amount: number;
  expiresAt: Date;
}

/** What a received payment does to the intent its account names. */
export type ConfirmationMatch =
  /** It pays the intent. */
  | { match: "matched"; intentId: string; duplicate: false }
  /** A second successful payment for an intent already paid or being paid: kept, flagged, the intent unchanged. */
  | { match: "matched"; intentId: string; duplicate: true; note: string }
  /** Kept for the shop (listed, c2b_payment.unmatched); `flagged` when it names an intent but cannot pay it as sent. */
  | { match: "unmatched"; note: string; flagged: boolean };

/** What applying a received payment needs of the intents (intents/received-payment.ts gives it). */
export interface ReceivedPaymentIntents {
  /** The intent the account names for this tenant, locked (the payment settles it); null when it names none. */
  namedBy(tx: RawSql, tenantId: string, account: string): Promise<NamedIntent | null>;
  /** The pure rule: what the payment is to that intent. */
  match(intent: NamedIntent | null, amount: number, now: Date): ConfirmationMatch;
  /** Moves the intent the payment pays (locked above); a success that finds it already paid is a duplicate. */
  settle(tx: RawSql, key: { tenantId: string; intentId: string }, now: Date): Promise<{ duplicate?: true }>;
  /** The events of a stored payment that names an intent (the payment's, and the intent's when it paid it). */
  recordSettled(tx: RawSql, payment: PaymentModel, now: Date): Promise<void>;
}

/** What applying a received payment recorded besides its stored record's outcome. */
export interface ReceivedSettled {
  /** Kept unmatched: money no intent took (its stored record is kept whatever its age). */
  keptUnmatched?: true;
  /** A payment now holds the receipt that held none before (a new row, or Pull's receipt filled in). */
  recorded?: true;
}

/** Who has already recorded a receipt: this tenant (its payment), another tenant (nothing of it), or nobody. */
export type ReceiptHolder =
  | { holder: "this shop"; payment: PaymentModel }
  | { holder: "another shop" }
  | { holder: "nobody" };

/**
 * The tenant's payment with this receipt, whichever channel recorded it, in one statement that also says
 * whether another tenant has (a receipt is one payment on the whole platform: payments_mpesa_receipt_key)
 * without reading anything of that tenant's row.
 */
export async function paymentWithReceipt(tx: SettlementTx, tenantId: string, receipt: string): Promise<ReceiptHolder> {
  const { own, recordedElsewhere } = await payments.findByReceipt(tx, { tenantId, receipt });
  if (own) return { holder: "this shop", payment: own };
  return recordedElsewhere ? { holder: "another shop" } : { holder: "nobody" };
}

interface NewReceivedPayment {
  id: string;
  tenantId: string;
  notification: C2bNotification;
  match: "matched" | "unmatched";
  intentId: string | null;
  duplicate: boolean;
  note: string | null;
  now: Date;
  resultDesc: string;
}

/** A received payment is money already received: it is written SUCCESS, with its TransID as the receipt. */
function insertReceivedPayment(tx: SettlementTx, row: NewReceivedPayment): Promise<PaymentModel> {
  const { notification: n, now } = row;
  return payments.insert(tx, {
    id: row.id,
    tenantId: row.tenantId,
    userId: null,
    phone: n.maskedMsisdn,
    amount: Math.round(n.amount),
    reference: n.billRefNumber.slice(0, 100),
    description: (n.transactionType || "C2B").slice(0, 100),
    status: "SUCCESS",
    resultCode: "0",
    resultDesc: row.resultDesc,
    mpesaReceipt: n.transId,
    paidAmount: Math.round(n.amount),
    transactionDate: n.transTime || null,
    settledAt: now,
    createdAt: now,
    updatedAt: now,
    intentId: row.intentId,
    duplicate: row.duplicate,
    channel: "c2b",
    transId: n.transId,
    c2bMatch: row.match,
    c2bNote: row.note,
    shortCode: n.businessShortCode,
  });
}

/** How a received payment is to be applied besides the payment itself. */
export interface ReceivedPaymentRules {
  intents: ReceivedPaymentIntents;
  /** Why its record may not speak for the tenant (a C2B confirmation's token); undefined: it may. */
  refusal?(tx: SettlementTx, tenant: Tenant): Promise<string | undefined>;
  /**
   * A payment of the tenant this receipt belongs to though it does not hold it yet (Pull's STK payment
   * settled by a query, which brings no receipt): its verdict; undefined when there is none.
   */
  claimedBy?(
    tx: SettlementTx,
    tenant: Tenant,
    notification: C2bNotification,
    now: Date,
  ): Promise<CallbackVerdict<ReceivedSettled> | undefined>;
  /** What the new payment's result_desc says it came from. */
  resultDesc?: string;
}

/** What a received payment does, under the locks of the transaction that records its outcome. */
export async function receivedPaymentVerdict(
  tx: SettlementTx,
  tenant: Tenant | null,
  notification: C2bNotification,
  paymentId: string,
  now: Date,
  rules: ReceivedPaymentRules,
): Promise<CallbackVerdict<ReceivedSettled>> {
  if (!tenant) {
    const flagReason = `no single shop has short code ${notification.businessShortCode}`;
    return { recorded: true, outcome: "flagged", flagReason, link: {} };
  }
  const refused = await rules.refusal?.(tx, tenant);
  if (refused !== undefined) return refusedVerdict(refused);
  const earlier = await paymentWithReceipt(tx, tenant.id, notification.transId);
  if (earlier.holder === "this shop") {
    return { recorded: true, outcome: "duplicate", link: { paymentId: earlier.payment.id } };
  }
  // Never linked to the other shop's row, nor counted here: the same receipt is one payment, in one shop.
  if (earlier.holder === "another shop") {
    const flagReason = "TransID already recorded by another shop: not applied";
    return { recorded: true, outcome: "flagged", flagReason, link: {} };
  }
  const claimed = await rules.claimedBy?.(tx, tenant, notification, now);
  if (claimed) return claimed;

  const intent = await rules.intents.namedBy(tx, tenant.id, notification.billRefNumber);
  const match = rules.intents.match(intent, notification.amount, now);
  const resultDesc = rules.resultDesc ?? "C2B confirmation";
  const fields = { id: paymentId, tenantId: tenant.id, notification, now, resultDesc };
  if (match.match === "unmatched") {
    const unmatched = { ...fields, match: "unmatched" as const, intentId: null, duplicate: false, note: match.note };
    const payment = await insertReceivedPayment(tx, unmatched);
    const data = { c2b_payment: c2bPaymentObject(payment) };
    // C2B is live only (docs/test-mode.md#live-only): what Daraja confirms is live money.
    await recordEvent(tx, { tenantId: tenant.id, livemode: payment.livemode, type: "c2b_payment.unmatched", data, at: now });
    const link = { paymentId: payment.id };
    const settled = { keptUnmatched: true as const, recorded: true as const };
    return match.flagged
      ? { recorded: true, outcome: "flagged", flagReason: match.note, link, settled }
      : { recorded: true, outcome: "applied", link, settled };
  }
  // The intent moves first (locked above); a success that finds it already paid comes back a duplicate.
  const key = { tenantId: tenant.id, intentId: match.intentId };
  const settled = match.duplicate ? { duplicate: true as const } : await rules.intents.settle(tx, key, now);
  const duplicate = settled.duplicate === true;
  const secondPayment = "a second payment for an intent that is already succeeded";
  const note = match.duplicate ? match.note : duplicate ? secondPayment : null;
  const matched = { ...fields, match: "matched" as const, intentId: match.intentId, duplicate, note };
  const payment = await insertReceivedPayment(tx, matched);
  await rules.intents.recordSettled(tx, payment, now);
  const link = { paymentId: payment.id };
  const recorded = { recorded: true as const };
  return duplicate
    ? { recorded: true, outcome: "flagged", flagReason: note ?? "duplicate payment", link, settled: recorded }
    : { recorded: true, outcome: "applied", link, settled: recorded };
}

/**
 * Applies a stored record of a received payment once (a C2B confirmation, a pulled row). Two copies of
 * one payment racing each other (two confirmations, a confirmation and a pull) both miss the receipt;
 * the second insert then violates its unique index, and applying again finds the first. Says too
 * whether it was kept unmatched.
 */
export async function applyStoredReceivedPayment(
  deps: PaymentPorts,
  callbackId: string,
  tenant: Tenant | null,
  notification: C2bNotification,
  rules: ReceivedPaymentRules,
): Promise<{ result: StoredApplyResult; keptUnmatched: boolean; recorded: boolean }> {
  const logFields = { transId: notification.transId, shortCode: notification.businessShortCode };
  const apply = () =>
    applyStoredCallback(deps, callbackId, logFields, (tx, now) =>
      receivedPaymentVerdict(tx, tenant, notification, deps.random.uuid(), now, rules),
    );
  const outcome = async () => {
    const applied = await apply();
    const settled = applied.settled;
    const keptUnmatched = settled?.keptUnmatched === true;
    return { result: applied.result, keptUnmatched, recorded: settled?.recorded === true };
  };
  try {
    return await outcome();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return outcome();
  }
}
