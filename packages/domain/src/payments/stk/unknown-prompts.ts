/**
 * Prompts whose CheckoutRequestID was never stored (docs/mpesa.md "Unknown outcomes"): the STK push
 * may have reached Daraja, but its answer proved nothing (a gateway page, a time-out after sending),
 * so the payment stays PENDING without Daraja's ids.
 *
 * Daraja's callback does not carry the AccountReference, so each prompt's CallBackURL does: the
 * service's callback URL with `ref=` (the reference, hex-encoded so it can never spell a word Daraja
 * refuses in URLs). A callback for an unknown CheckoutRequestID whose phone, amount and reference
 * match exactly one such payment created within MOMO_UNKNOWN_PROMPT_WINDOW_SECONDS settles it; one
 * that has none after the window becomes TIMEOUT (the reconciler).
 */
import { payments, type PaymentModel } from "@mteja/db";
import type { StkCallback } from "@mteja/daraja";
import type { CallbackAuthority } from "../shared/callback-tokens.js";
import type { SettlementTx } from "../shared/stored-callback.js";

export const REFERENCE_PARAMETER = "ref";
/**
 * Set (`1`) on the CallBackURL of a prompt that pays an intent: its callback goes straight to the
 * settlement under locks, which an intent needs. Only a hint: without it (or with it forged) the callback
 * is settled all the same, one read later.
 */
export const INTENT_PARAMETER = "intent";

/** The CallBackURL of one prompt: the service's, with the prompt's AccountReference, and whether it pays an intent. */
export function promptCallbackUrl(callbackUrl: string, reference: string, paysIntent = false): string {
  const url = new URL(callbackUrl);
  url.searchParams.set(REFERENCE_PARAMETER, Buffer.from(reference, "utf8").toString("hex"));
  if (paysIntent) url.searchParams.set(INTENT_PARAMETER, "1");
  return url.toString();
}

/** The AccountReference a callback's `ref=` carries; undefined when absent or not ours. */
export function referenceFromParameter(value: string | undefined): string | undefined {
  if (!value || !/^(?:[0-9a-f]{2}){1,64}$/i.test(value)) return undefined;
  return Buffer.from(value, "hex").toString("utf8");
}

export type PromptMatch = { kind: "one"; payment: PaymentModel } | { kind: "none" } | { kind: "ambiguous"; count: number };

export interface MatchWindow {
  /** Payments created before this are too old to match. */
  since: Date;
  /** When the callback arrived: a payment created later cannot be its prompt. */
  receivedAt: Date;
  /** A push created before this that still has no answer is not in flight any more (its service stopped). */
  inFlightSince: Date;
}

/**
 * Locks the one payment whose push had an unknown outcome (or was never answered), created within the
 * window, whose phone, amount and AccountReference are the callback's, among those its token speaks
 * for. A push still in flight is not a candidate: its own answer stores its ids and applies the
 * callback. Failure callbacks carry no phone or amount: they match none.
 */
export async function lockPromptMatching(tx: SettlementTx, callback: StkCallback, reference: string | undefined, authority: CallbackAuthority, window: MatchWindow): Promise<PromptMatch> {
  const { phoneNumber, amount } = callback;
  if (reference === undefined || phoneNumber === undefined || amount === undefined || !Number.isInteger(amount)) return { kind: "none" };
  const rows = await payments.lockPromptsMatching(tx, {
    phone: phoneNumber,
    amount,
    reference,
    createdFrom: window.since,
    createdUntil: window.receivedAt,
    inFlightSince: window.inFlightSince,
    // Only the prompts its token speaks for (docs/mpesa.md#callback-tokens): its tenant's, or those sent
    // with the shared secret.
    sentBy: authority,
  });
  if (rows.length === 0) return { kind: "none" };
  if (rows.length > 1) return { kind: "ambiguous", count: rows.length };
  return { kind: "one", payment: rows[0]! };
}

/** Gives the matched payment the callback's ids, so later callbacks and queries find it as usual. */
export function claimForCallback(tx: SettlementTx, payment: PaymentModel, callback: StkCallback, now: Date): Promise<PaymentModel> {
  const { checkoutRequestId, merchantRequestId } = callback;
  return payments.storeDarajaIds(tx, payment.id, { checkoutRequestId, merchantRequestId, updatedAt: now });
}
