import { z } from "zod";
import { envelope } from "../../shared/envelope.js";
import { uncoerced } from "../../shared/fields.js";
import { intentIdField } from "../shared/intent-id.js";

/** The QR code's side in pixels when the shop names none (Daraja's usual size). */
export const QR_DEFAULT_SIZE = 300;

export const intentQrInput = z.object({
  id: intentIdField,
  size: uncoerced(z.number().int().min(100).max(1000))
    .optional()
    .describe(`The image's side in pixels, 100-1000; default ${QR_DEFAULT_SIZE}.`),
});
export type IntentQrInput = z.infer<typeof intentQrInput>;

export const intentQrView = z.object({
  qr_code: z.string().describe("The QR code, a PNG in base64 (show it as `data:image/png;base64,` + qr_code)."),
  ref_no: z.string().describe("The intent's reference: the account number the payment made by scanning carries."),
  amount: z.number().int().describe("The intent's amount, in shillings."),
  trx_code: z.literal("PB").describe("Paybill: the code pays the shop's paybill short code."),
});
export type IntentQrView = z.infer<typeof intentQrView>;
export const intentQrOutput = envelope(intentQrView);
