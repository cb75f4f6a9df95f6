/** The shapes of the refunds API (docs/mpesa.md#refunds). */
import { STK_AMOUNT_MAX } from "@mteja/daraja";
import { z } from "zod";
import { envelope } from "../../shared/envelope.js";
import { oneLineString } from "../../shared/fields.js";
import { wholeShillings } from "../shared/schemas.js";
import { REFUND_ID_PATTERN, refundMethods, refundStatuses } from "./refund-object.js";

export const REFUND_REASON_MAX_LENGTH = 100;

const paymentId = z.uuid("id must be a payment id").describe("The payment's id (uuid).");

export const createRefundInput = z.object({
  id: paymentId,
  amount: wholeShillings(1, STK_AMOUNT_MAX)
    .optional()
    .describe("Whole shillings to give back; left out: what remains after the payment's refunds that are not failed."),
  reason: oneLineString()
    .trim()
    .max(REFUND_REASON_MAX_LENGTH, `reason must be at most ${REFUND_REASON_MAX_LENGTH} characters`)
    .optional()
    .describe("The shop's own words, kept on the refund (not sent to M-Pesa)."),
});
export type CreateRefundInput = z.infer<typeof createRefundInput>;

export const refundIdInput = z.object({
  id: oneLineString()
    .trim()
    .regex(REFUND_ID_PATTERN, "id must be a refund id (re_…)")
    .describe("The refund's id (re_…).")
    .meta({ examples: ["re_9b2f0c4e7a1d4e5f8c3b6a9d0e1f2a3b"] }),
});

export const listRefundsInput = z.object({
  id: paymentId,
  limit: z.number().int().min(1).max(100).default(20),
  cursor: oneLineString().trim().max(200).optional().describe("next_cursor of the previous page."),
});
export type ListRefundsInput = z.infer<typeof listRefundsInput>;

export const refundView = z.object({
  id: z.string().describe("re_ and 32 hex digits."),
  payment_id: z.string(),
  amount: z.number().describe("Whole shillings given back."),
  method: z
    .enum(refundMethods)
    .describe("reversal: Daraja's Reversal of the whole payment; b2c: a B2C payment to the payer's phone."),
  status: z
    .enum(refundStatuses)
    .describe(
      "pending, then succeeded or failed; unknown while Daraja's answer proved nothing, until a Transaction Status " +
        "query settles it.",
    ),
  reason: z.string().nullable().describe("The shop's reason, as sent."),
  mpesa_receipt: z.string().nullable().describe("The refund's own M-Pesa receipt, once it succeeded."),
  livemode: z.boolean().describe("The payment's mode: false for a test-mode payment's refund, simulated (docs/test-mode.md)."),
  created_at: z.string(),
  updated_at: z.string(),
});
export type RefundView = z.infer<typeof refundView>;

export const refundOutput = envelope(refundView);
export const listRefundsOutput = envelope(
  z.object({ refunds: z.array(refundView), next_cursor: z.string().nullable() }),
);
