/** The types of the outbound event feed (docs/webhooks.md#events); an endpoint without `events` gets them all. */
export const webhookEventTypes = [
  "payment.succeeded",
  "payment.failed",
  "payment.reversed",
  "payment_intent.succeeded",
  "payment_intent.expired",
  "payout.succeeded",
  "payout.failed",
  "refund.succeeded",
  "refund.failed",
  "callback.flagged",
  "c2b_payment.unmatched",
] as const;

export type WebhookEventType = (typeof webhookEventTypes)[number];

/** The event's `data`: one object, under the name of its kind, as the read API shows it. */
export type WebhookEventData =
  | { payment: object }
  | { payout: object }
  | { refund: object }
  | { payment_intent: object }
  | { callback: object }
  | { c2b_payment: object };
