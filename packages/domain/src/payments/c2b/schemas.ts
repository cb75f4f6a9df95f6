import { z } from "zod";
import { envelope } from "../../shared/envelope.js";
import { oneLineString } from "../../shared/fields.js";
import { tenantIdSchema } from "../../shared/tenant-settings.js";
import { serverPaymentView } from "../shared/schemas.js";
import { c2bMatchStatuses } from "../shared/c2b-payment-object.js";

export const registerC2bInput = z.object({
  id: tenantIdSchema,
  response_type: z
    .enum(["Completed", "Cancelled"])
    .default("Completed")
    .describe("What M-Pesa does when the validation URL does not answer in time: Completed (default) takes the payment, Cancelled refuses it."),
});
export type RegisterC2bInput = z.infer<typeof registerC2bInput>;

export const registerC2bView = z.object({
  tenant_id: z.string(),
  short_code: z.string(),
  response_type: z.enum(["Completed", "Cancelled"]),
  validation_url: z.string().describe("Without its secret token."),
  confirmation_url: z.string().describe("Without its secret token."),
  daraja_version: z.enum(["v1", "v2"]).describe("The register URL version Daraja accepted."),
  originator_conversation_id: z.string(),
});
export const registerC2bOutput = envelope(registerC2bView);

export const listC2bPaymentsInput = z
  .object({
    status: z.enum(c2bMatchStatuses).optional().describe("matched or unmatched."),
    limit: z.number().int().min(1).max(100).default(20),
    cursor: oneLineString().trim().max(200).optional().describe("next_cursor of the previous page."),
  })
  .default({ limit: 20 });
export type ListC2bPaymentsInput = z.infer<typeof listC2bPaymentsInput>;

export const c2bPaymentView = z.object({
  id: z.string().describe("The payment's id."),
  livemode: z.boolean().describe("Always true: C2B is live money only (docs/test-mode.md#live-only)."),
  status: z.enum(c2bMatchStatuses).describe("matched: it paid an intent (or is a duplicate for one, see payment.duplicate); unmatched: no intent took it."),
  account: z.string().describe("The account number (BillRefNumber) the customer typed."),
  short_code: z.string().nullable(),
  note: z.string().nullable().describe("Why it is unmatched or flagged."),
  payment: serverPaymentView,
});
export const listC2bPaymentsOutput = envelope(z.object({ c2b_payments: z.array(c2bPaymentView), next_cursor: z.string().nullable() }));
