/**
 * What a C2B payment is to the intent its BillRefNumber names (docs/mpesa.md#c2b), a pure rule used by
 * both callbacks: validation answers with it, confirmation settles with it. A payment is matched on
 * the account (the intent's reference, case-insensitively) and the amount, never on the phone number
 * (Daraja masks or hashes it).
 */
import { C2B_REJECTION_CODES, type C2bRejectionCode } from "@mteja/daraja";
import { isDueToExpire, isIntentStatus } from "../../intents/intent-transitions.js";

/** The intent a BillRefNumber names: the tenant's open one with that reference, else its latest. */
export interface NamedIntent {
  id: string;
  status: string;
  amount: number;
  expiresAt: Date;
}

type Standing = "payable" | "processing" | "succeeded" | "closed";

function standingOf(intent: NamedIntent, now: Date): Standing {
  if (!isIntentStatus(intent.status)) return "closed";
  if (intent.status === "requires_payment") return isDueToExpire({ status: intent.status, expiresAt: intent.expiresAt }, now) ? "closed" : "payable";
  if (intent.status === "processing" || intent.status === "succeeded") return intent.status;
  return "closed";
}

export type ValidationDecision = { accept: true } | { accept: false; code: C2bRejectionCode; reason: string };

/** Accept only money that would pay an intent now: one waiting for payment, for its exact amount. */
export function validateC2bPayment(intent: NamedIntent | null, amount: number, now: Date): ValidationDecision {
  if (!intent) return { accept: false, code: C2B_REJECTION_CODES.invalidAccount, reason: "no payment intent has this account reference" };
  const standing = standingOf(intent, now);
  if (standing !== "payable") return { accept: false, code: C2B_REJECTION_CODES.invalidAccount, reason: `the payment intent is ${standing === "closed" ? "closed" : standing}` };
  if (amount !== intent.amount) return { accept: false, code: C2B_REJECTION_CODES.invalidAmount, reason: `amount ${amount} differs from the intent's ${intent.amount}` };
  return { accept: true };
}

export type ConfirmationMatch =
  /** It pays the intent. */
  | { match: "matched"; intentId: string; duplicate: false }
  /** A second successful payment for an intent already paid or being paid: kept, flagged, the intent unchanged. */
  | { match: "matched"; intentId: string; duplicate: true; note: string }
  /** Kept for the shop (listed, c2b_payment.unmatched); `flagged` when it names an intent but cannot pay it as sent. */
  | { match: "unmatched"; note: string; flagged: boolean };

/** What a confirmed payment (the money has moved) does, whether or not a validation came first. */
export function matchC2bConfirmation(intent: NamedIntent | null, amount: number, now: Date): ConfirmationMatch {
  if (!Number.isInteger(amount)) return { match: "unmatched", note: `amount ${amount} is not whole shillings`, flagged: true };
  if (!intent) return { match: "unmatched", note: "no payment intent has this account reference", flagged: false };
  const standing = standingOf(intent, now);
  if (standing === "closed") return { match: "unmatched", note: "the payment intent is closed (cancelled or expired)", flagged: false };
  if (amount !== intent.amount) return { match: "unmatched", note: `amount ${amount} differs from the intent's ${intent.amount}`, flagged: true };
  if (standing === "payable") return { match: "matched", intentId: intent.id, duplicate: false };
  return { match: "matched", intentId: intent.id, duplicate: true, note: `a second payment for an intent that is already ${standing}` };
}
