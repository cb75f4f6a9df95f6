/**
 * Daraja's Dynamic QR API (docs/daraja-wire-format.md#dynamic-qr): one synchronous POST whose answer
 * carries the QR code as a base64 PNG. Nothing is posted back: a payment made by scanning it reaches the
 * short code like any other (its C2B confirmation, and Pull).
 *
 * The answer is read as the live sandbox sends it (`ResponseCode "00"`, no `RequestID`), the portal's
 * form (`ResponseCode` an `AG_…` id, a `RequestID`) too: success is a non-empty `QRCode` and no
 * `errorCode`; `ResponseCode` is opaque.
 */
import { z } from "zod";
import { idSchema, parsed, rejected, type ParseResult } from "./parse-result.js";

export const DYNAMIC_QR_PATH = "/mpesa/qrcode/v1/generate";

/** BG buy goods (till), WA withdraw at an agent, PB paybill, SM send money, SB send to a business. */
export type QrTransactionCode = "BG" | "WA" | "PB" | "SM" | "SB";

export interface DynamicQrAnswer {
  /** Base64 PNG, as sent (a `data:image/png;base64,` prefix removed). */
  qrCode: string;
  responseCode: string;
  responseDescription: string;
  requestId: string | null;
}

const answerSchema = z.object({
  ResponseCode: idSchema.optional(),
  ResponseDescription: z.string().optional(),
  RequestID: idSchema.optional(),
  QRCode: z.string(),
});

export function parseDynamicQrAnswer(body: unknown): ParseResult<DynamicQrAnswer> {
  const result = answerSchema.safeParse(body);
  if (!result.success) return rejected(result.error);
  const qrCode = result.data.QRCode.replace(/^data:image\/png;base64,/, "").trim();
  if (qrCode === "" || !/^[A-Za-z0-9+/]+={0,2}$/.test(qrCode)) return rejected("QRCode is not base64");
  return parsed({
    qrCode,
    responseCode: result.data.ResponseCode ?? "",
    responseDescription: result.data.ResponseDescription ?? "",
    requestId: result.data.RequestID ?? null,
  });
}
