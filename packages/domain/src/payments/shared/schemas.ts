/**
 * Inputs and outputs of the momo operations (docs/mpesa.md#operations). The momo
 * wire format is camelCase (checkoutRequestId, commandId), unlike the snake_case auth API.
 */
import {
  B2C_AMOUNT_MAX,
  B2C_AMOUNT_MIN,
  B2C_OCCASION_MAX_LENGTH,
  B2C_REMARKS_MAX_LENGTH,
  STK_ACCOUNT_REFERENCE_MAX_LENGTH,
  STK_AMOUNT_MAX,
  STK_AMOUNT_MIN,
  STK_TRANSACTION_DESC_MAX_LENGTH,
} from "@mteja/daraja";
import { z } from "zod";
import { envelope } from "../../shared/envelope.js";
import { documentedDates, kenyanPhoneField, oneLineString, uncoerced } from "../../shared/fields.js";
import { intentIdField } from "./intent-id.js";
import { reversalStatuses } from "./reversal-object.js";

export const paymentStatuses = ["PENDING", "SUCCESS", "CANCELLED", "FAILED", "TIMEOUT"] as const;
export type PaymentStatus = (typeof paymentStatuses)[number];
export const payoutStatuses = ["PENDING", "SUCCESS", "FAILED", "UNKNOWN"] as const;
export type PayoutStatus = (typeof payoutStatuses)[number];
export const b2cCommandIds = ["BusinessPayment", "SalaryPayment", "PromotionPayment"] as const;

export const paymentStatusField = z.enum(paymentStatuses);

/** Whole shillings, strictly a JSON number (`uncoerced`: "100" or true never pass as an amount). */
export function wholeShillings(min: number, max: number) {
  return uncoerced(
    z
      .number({ error: "amount must be a whole number of shillings" })
      .int("amount must be a whole number of shillings")
      .min(min, `amount must be at least ${min}`)
      .max(max, `amount must be at most ${max.toLocaleString("en-US")}`),
  );
}

/** Printable text, trimmed; "" means absent (the service sends its default). */
function optionalText(field: string, max: number, min = 0) {
  return oneLineString({ error: `${field} must be a string` })
    .trim()
    .max(max, `${field} must be at most ${max} characters`)
    .refine((value) => value === "" || value.length >= min, `${field} must be at least ${min} characters`)
    .transform((value) => value || undefined)
    .optional();
}

export const checkoutRequestIdField = oneLineString({ error: "checkoutRequestId is required" })
  .trim()
  .min(1, "checkoutRequestId is required")
  .max(100, "checkoutRequestId is too long");

export const stkPushInput = z.object({
  phone: kenyanPhoneField,
  // Optional only with intent_id (the intent fixes it): see the refinement below.
  amount: wholeShillings(STK_AMOUNT_MIN, STK_AMOUNT_MAX)
    .optional()
    .describe("Whole shillings; required unless intent_id is sent (then it may be left out, and must equal the intent's amount when sent)."),
  reference: optionalText("reference", STK_ACCOUNT_REFERENCE_MAX_LENGTH).describe(
    `Daraja AccountReference, shown in the prompt; at most ${STK_ACCOUNT_REFERENCE_MAX_LENGTH} characters (default: the shop's name).`,
  ),
  description: optionalText("description", STK_TRANSACTION_DESC_MAX_LENGTH).describe(
    `Daraja TransactionDesc; at most ${STK_TRANSACTION_DESC_MAX_LENGTH} characters (default: "Payment").`,
  ),
  intent_id: intentIdField
    .optional()
    .describe("A payment intent of the shop (pi_…; docs/payment-intents.md): amount, reference and description are the intent's."),
}).refine((input) => typeof input !== "object" || input === null || input.amount !== undefined || input.intent_id !== undefined, {
  path: ["amount"],
  message: "amount must be a whole number of shillings",
  // Checked even when other fields fail, so a missing amount is reported beside them, as a required field's is.
  when: () => true,
}).meta({ anyOf: [{ required: ["amount"] }, { required: ["intent_id"] }] });
export type StkPushInput = z.infer<typeof stkPushInput>;

export const stkQueryInput = z.object({ checkoutRequestId: checkoutRequestIdField });

export const b2cInput = z.object({
  phone: kenyanPhoneField,
  amount: wholeShillings(B2C_AMOUNT_MIN, B2C_AMOUNT_MAX),
  commandId: z
    .enum(b2cCommandIds, { error: `commandId must be one of ${b2cCommandIds.join(", ")}` })
    .default("BusinessPayment"),
  remarks: optionalText("remarks", B2C_REMARKS_MAX_LENGTH, 2).describe('2-100 characters (default: "Payout").'),
  occasion: optionalText("occasion", B2C_OCCASION_MAX_LENGTH),
});
export type B2cInput = z.infer<typeof b2cInput>;

export const stkPushOutput = envelope(
  z.object({
    id: z.string().describe("The payment's id."),
    checkoutRequestId: z
      .string()
      .nullable()
      .describe("Daraja's CheckoutRequestID; null (answer 202) when Daraja's answer proved nothing and the prompt may or may not be on the phone."),
    merchantRequestId: z.string().nullable(),
    customerMessage: z.string().optional().describe("Daraja's CustomerMessage (absent on a 202)."),
    status: paymentStatusField.describe("PENDING when the prompt has just been sent (or its outcome is unknown); the payment's current status on an idempotent replay."),
  }),
);

export const stkQueryOutput = envelope(
  z.object({
    checkoutRequestId: z.string(),
    resultCode: z.string().nullable().describe('Daraja\'s ResultCode, e.g. "0" (paid) or "1032" (cancelled); null while none is known.'),
    resultDesc: z.string(),
    status: paymentStatusField,
  }),
);

export const b2cOutput = envelope(
  z.object({
    conversationId: z.string().nullable().describe("Daraja's ConversationID; null (answer 202) while Daraja has not acknowledged the payout."),
    originatorConversationId: z.string(),
    status: z.enum(payoutStatuses).describe("PENDING once Daraja accepted the request; UNKNOWN (answer 202) when its answer proved nothing: settled by a Transaction Status query, never re-sent."),
  }),
);

const isoDate = (field: string, description: string) =>
  oneLineString({ error: `${field} must be a date` })
    .trim()
    .refine((value) => /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) && !Number.isNaN(Date.parse(value)), {
      message: `${field} must be an ISO 8601 date or date-time`,
    })
    .transform((value) => new Date(value))
    .meta({ ...documentedDates.dayOrInstant, description, examples: ["2026-11-25T09:30:00Z"] })
    .optional();

/** A keyset list's query (payments, payouts); `limit` is left coercible: it arrives as a query string. */
function keysetListInput<S extends readonly [string, ...string[]]>(statuses: S) {
  return z
    .object({
      status: z.enum(statuses).optional(),
      from: isoDate("from", "Created at or after (ISO 8601: a date, or a date-time with its zone)."),
      to: isoDate("to", "Created before (ISO 8601: a date, or a date-time with its zone)."),
      limit: z.number().int().min(1).max(100).default(20),
      cursor: oneLineString().trim().max(200).optional().describe("nextCursor of the previous page."),
    })
    .default({ limit: 20 });
}

export const listPaymentsInput = keysetListInput(paymentStatuses);
export type ListPaymentsInput = z.infer<typeof listPaymentsInput>;

export const paymentView = z.object({
  id: z.string(),
  livemode: z.boolean().describe("false: a test-mode payment (a shop's test intent), simulated, no money moved (docs/test-mode.md)."),
  checkoutRequestId: z.string().nullable(),
  merchantRequestId: z.string().nullable(),
  userId: z.string().nullable().describe("null for a C2B payment (paid from the M-Pesa menu, no customer account)."),
  phone: z.string(),
  amount: z.number(),
  reference: z.string(),
  description: z.string(),
  status: paymentStatusField,
  resultCode: z.string().nullable(),
  resultDesc: z.string().nullable(),
  mpesaReceipt: z.string().nullable(),
  paidAmount: z.number().nullable(),
  transactionDate: z.string().nullable(),
  createdAt: z.string(),
  settledAt: z.string().nullable(),
});
export type PaymentView = z.infer<typeof paymentView>;

export const listPaymentsOutput = envelope(z.object({ payments: z.array(paymentView), nextCursor: z.string().nullable() }));
export const getPaymentInput = z.object({ checkoutRequestId: checkoutRequestIdField });
export const getPaymentOutput = envelope(z.object({ payment: paymentView }));

export const originatorConversationIdField = oneLineString({ error: "originatorConversationId is required" })
  .trim()
  .min(1, "originatorConversationId is required")
  .max(100, "originatorConversationId is too long");

export const listPayoutsInput = keysetListInput(payoutStatuses);
export type ListPayoutsInput = z.infer<typeof listPayoutsInput>;

export const payoutView = z.object({
  id: z.string(),
  livemode: z.boolean().describe("Always true: payouts are live money only (docs/test-mode.md#live-only)."),
  originatorConversationId: z.string(),
  conversationId: z.string().nullable(),
  transactionId: z.string().nullable().describe("M-Pesa's transaction id (the receipt) once the payout succeeded."),
  requestedBy: z.string().describe("The admin who sent the payout."),
  phone: z.string(),
  amount: z.number(),
  commandId: z.string().describe(`${b2cCommandIds.join(", ")}.`),
  remarks: z.string(),
  occasion: z.string().nullable(),
  status: z.enum(payoutStatuses),
  resultCode: z.string().nullable().describe('Daraja\'s ResultCode, e.g. "0" (paid) or "1" (insufficient funds); null while none is known.'),
  resultDesc: z.string().nullable(),
  receiverName: z.string().nullable().describe("The receiving party as M-Pesa names it (phone and name)."),
  createdAt: z.string(),
  settledAt: z.string().nullable(),
});
export type PayoutView = z.infer<typeof payoutView>;

export const listPayoutsOutput = envelope(z.object({ payouts: z.array(payoutView), nextCursor: z.string().nullable() }));
export const getPayoutInput = z.object({ originatorConversationId: originatorConversationIdField });
export const getPayoutOutput = envelope(z.object({ payout: payoutView }));

export const paymentStatusUpdate = z.object({
  checkoutRequestId: z.string(),
  status: paymentStatusField,
  resultCode: z.string().nullable(),
  resultDesc: z.string().nullable(),
});
export type PaymentStatusUpdate = z.infer<typeof paymentStatusUpdate>;

/** A payment as the server API shows it (an intent's `payments`, GET /api/v1/payments/{id}). */
export const serverPaymentView = z.object({
  id: z.string(),
  livemode: z.boolean().describe("false for test mode's simulated money (a test key's object), true for live money (docs/test-mode.md)."),
  channel: z.enum(["stk", "c2b"]),
  status: paymentStatusField,
  amount: z.number(),
  phone: z.string(),
  mpesa_receipt: z.string().nullable(),
  checkout_request_id: z.string().nullable(),
  trans_id: z.string().nullable().describe("The C2B TransID; null for an STK payment."),
  intent_id: z.string().nullable(),
  duplicate: z.boolean().describe("A second successful payment for an intent already paid: it did not count; the shop may reverse it."),
  reversal: z
    .object({
      status: z.enum(reversalStatuses),
      reason: z.string().nullable().describe("Daraja's ResultDesc once it answered; for an UNKNOWN or FAILED one without it, why."),
      receipt: z.string().nullable().describe("The reversal's own M-Pesa receipt, once it succeeded."),
      updated_at: z.string(),
    })
    .nullable()
    .describe("The latest reversal (docs/mpesa.md#reversals), a refund of the whole payment by Daraja's Reversal; null: none was requested."),
  refunded_amount: z
    .number()
    .describe("Shillings given back: the refunds that succeeded (docs/mpesa.md#refunds). Pending and unknown ones already count against what is left to refund."),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ServerPaymentView = z.infer<typeof serverPaymentView>;

/** A payout in the event feed (`data.payout` of payout.succeeded and payout.failed): snake_case, with updated_at. */
export const payoutEventView = z.object({
  id: z.string(),
  livemode: z.boolean().describe("false for test mode's simulated money (a test key's object), true for live money (docs/test-mode.md)."),
  status: z.enum(payoutStatuses),
  amount: z.number(),
  phone: z.string(),
  command_id: z.string().describe(`${b2cCommandIds.join(", ")}.`),
  remarks: z.string(),
  occasion: z.string().nullable(),
  originator_conversation_id: z.string(),
  conversation_id: z.string().nullable(),
  transaction_id: z.string().nullable().describe("M-Pesa's transaction id (the receipt) once the payout succeeded."),
  result_code: z.string().nullable(),
  result_desc: z.string().nullable(),
  receiver_name: z.string().nullable(),
  created_at: z.string(),
  settled_at: z.string().nullable(),
  updated_at: z.string(),
});

/** A callback Mteja kept but could not apply (`data.callback` of callback.flagged; docs/webhooks.md#events). */
export const flaggedCallbackView = z.object({
  id: z.string(),
  kind: z.string().describe("Which Daraja callback it was, e.g. stk, b2c_result, reversal_result."),
  received_at: z.string(),
  flag_reason: z.string().nullable().describe("Why it was not applied, e.g. an amount that differs from the payment's."),
  payment_id: z.string().nullable(),
  payout_id: z.string().nullable(),
});
