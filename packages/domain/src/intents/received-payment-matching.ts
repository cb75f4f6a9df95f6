/**
 * What a payment made to the shop's short code is to the intent its account names (docs/mpesa.md#c2b),
 * a pure rule: C2B's validation answers with it; a C2B confirmation and a receipt Pull recovered settle
 * with it (payments/shared/received-payments.ts). A payment is matched on the account (the intent's
 * reference, case-insensitively) and the amount, never on the phone number (Daraja masks or hashes it).
 */
import { C2B_REJECTION_CODES, type C2bRejectionCode } from "@mteja/daraja";
import type { ConfirmationMatch, NamedIntent } from "../payments/shared/received-payments.js";
import { isDueToExpire, isIntentStatus } from "./intent-transitions.js";

export type { NamedIntent };

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
