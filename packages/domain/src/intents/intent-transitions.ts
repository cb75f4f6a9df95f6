/**
 * The payment intent state machine (docs/payment-intents.md#statuses), a pure rule beside the
 * payment's (payments/stk/stk-settlement.ts):
 *
 *   requires_payment → processing        a prompt was sent for it
 *   processing       → succeeded         its payment succeeded
 *   processing       → requires_payment  its prompt failed, was cancelled or timed out: it can be paid again
 *   requires_payment → cancelled         the shop cancelled it
 *   requires_payment → expired           expires_at passed (never while processing)
 *
 * succeeded, cancelled and expired never change. The database applies each step as a conditional
 * update whose `WHERE status IN (...)` is `statusesAllowing(event)`, so a terminal intent cannot change
 * there either.
 */

export const intentStatuses = ["requires_payment", "processing", "succeeded", "cancelled", "expired"] as const;
export type IntentStatus = (typeof intentStatuses)[number];

export type IntentEvent = "prompt_started" | "payment_succeeded" | "prompt_ended" | "cancel" | "expire";

/** A payment's settled status, as the payment state machine names it. */
export type SettledPaymentStatus = "SUCCESS" | "CANCELLED" | "FAILED" | "TIMEOUT";

const transitions: Record<IntentStatus, Partial<Record<IntentEvent, IntentStatus>>> = {
  // A success while requires_payment cannot come from a prompt (one is pending while processing), but
  // money that arrived for an open intent pays it.
  requires_payment: { prompt_started: "processing", payment_succeeded: "succeeded", cancel: "cancelled", expire: "expired" },
  processing: { payment_succeeded: "succeeded", prompt_ended: "requires_payment" },
  succeeded: {},
  cancelled: {},
  expired: {},
};

/** An open intent: waiting for payment or being paid (one per reference, a partial unique index). */
export const openIntentStatuses: readonly IntentStatus[] = ["requires_payment", "processing"];

export function isIntentStatus(value: string): value is IntentStatus {
  return (intentStatuses as readonly string[]).includes(value);
}

export function isTerminalIntent(status: IntentStatus): boolean {
  return status === "succeeded" || status === "cancelled" || status === "expired";
}

/** The status an event takes the intent to; undefined when the event does not apply in this status. */
export function nextIntentStatus(status: IntentStatus, event: IntentEvent): IntentStatus | undefined {
  return transitions[status][event];
}

/** The statuses from which `event` moves an intent: the `WHERE status IN (...)` of its update. */
export function statusesAllowing(event: IntentEvent): IntentStatus[] {
  return intentStatuses.filter((status) => transitions[status][event] !== undefined);
}

/**
 * The one move `event` makes from every status it applies in, when all of them go to the same status
 * (payment_succeeded: to succeeded); undefined when they do not.
 */
export function uniformMove(event: IntentEvent): { from: IntentStatus[]; to: IntentStatus } | undefined {
  const from = statusesAllowing(event);
  const targets = new Set(from.map((status) => transitions[status][event]));
  const [to] = targets;
  return targets.size === 1 && to !== undefined ? { from, to } : undefined;
}

/** What a payment settling does to its intent, and whether the payment is a duplicate that does not count. */
export interface IntentSettlement {
  event: IntentEvent;
  next: IntentStatus | undefined;
  /** A success that finds the intent already paid (or closed): stored, never applied to the intent. */
  duplicate: boolean;
  /** The prompt ended, and the successful payment held as a duplicate while it was pending pays the intent instead. */
  paidByHeld: boolean;
}

/**
 * `heldSuccess`: the intent has a successful payment that arrived while this prompt was pending (a C2B
 * payment from the menu), held as a duplicate because the prompt might still pay. When the prompt then
 * fails, is cancelled or times out, that payment is the money received: it pays the intent.
 */
export function settleIntentWithPayment(status: IntentStatus, payment: SettledPaymentStatus, heldSuccess = false): IntentSettlement {
  if (payment === "SUCCESS") {
    const next = nextIntentStatus(status, "payment_succeeded");
    return { event: "payment_succeeded", next, duplicate: next === undefined, paidByHeld: false };
  }
  const ended = nextIntentStatus(status, "prompt_ended");
  if (ended !== undefined && heldSuccess) return { event: "payment_succeeded", next: nextIntentStatus(status, "payment_succeeded"), duplicate: false, paidByHeld: true };
  return { event: "prompt_ended", next: ended, duplicate: false, paidByHeld: false };
}

/** An intent still waiting for payment past its expires_at reads as (and becomes) expired. */
export function isDueToExpire(intent: { status: IntentStatus; expiresAt: Date }, now: Date): boolean {
  return intent.status === "requires_payment" && intent.expiresAt.getTime() <= now.getTime();
}
