/**
 * What each webhook event's `data` holds: one schema per event type (docs/webhooks.md#events). The
 * OpenAPI document's `webhooks` are made from it, and the API tests check every delivery against it.
 * It sits with the API layer because it reads the objects of every area that records events.
 */
import { z } from "zod";
import { intentView } from "./intents/schemas.js";
import { c2bPaymentView } from "./payments/c2b/schemas.js";
import { refundView } from "./payments/refunds/schemas.js";
import { flaggedCallbackView, payoutEventView, serverPaymentView } from "./payments/shared/schemas.js";
import type { WebhookEventType } from "./webhooks/event-types.js";

export interface WebhookEventEntry {
  /** When it is sent, for the document. */
  summary: string;
  data: z.ZodObject;
}

const payment = z.object({ payment: serverPaymentView });
const intent = z.object({ payment_intent: intentView });
const payout = z.object({ payout: payoutEventView });
const refund = z.object({ refund: refundView });

export const webhookEventCatalogue = {
  "payment.succeeded": { summary: "A payment settled: the customer paid (by prompt, from the menu or found by pull).", data: payment },
  "payment.failed": { summary: "A prompt ended without a payment: cancelled, timed out or refused.", data: payment },
  "payment.reversed": { summary: "A whole payment was given back by Daraja's Reversal.", data: payment },
  "payment_intent.succeeded": { summary: "An intent was paid (its first successful payment).", data: intent },
  "payment_intent.expired": { summary: "An intent passed its expiry unpaid.", data: intent },
  "payout.succeeded": { summary: "A B2C payout reached the phone.", data: payout },
  "payout.failed": { summary: "A B2C payout was refused or failed.", data: payout },
  "refund.succeeded": { summary: "A refund (full by Reversal, partial by B2C) was paid back.", data: refund },
  "refund.failed": { summary: "A refund failed; nothing was given back.", data: refund },
  "callback.flagged": {
    summary: "A Daraja callback was kept but not applied (it disagrees with what Mteja stored).",
    data: z.object({ callback: flaggedCallbackView }),
  },
  "c2b_payment.unmatched": {
    summary: "A payment from the M-Pesa menu matched no intent; it is kept for the shop.",
    data: z.object({ c2b_payment: c2bPaymentView }),
  },
} satisfies Record<WebhookEventType, WebhookEventEntry>;
