import { z } from "zod";
import { idSchema, numberFrom, oneOrMany, parameterValueSchema, parsed, rejected, resultCodeSchema, stringFrom } from "./parse-result.js";
import type { ParseResult } from "./parse-result.js";

export interface StkCallback {
  merchantRequestId: string;
  checkoutRequestId: string;
  /** Normalised to a string (callbacks send a number). */
  resultCode: string;
  resultDesc: string;
  amount?: number;
  mpesaReceiptNumber?: string;
  /** `YYYYMMDDHHmmss`, Kenyan wall-clock time. */
  transactionDate?: string;
  /** 12-digit MSISDN. */
  phoneNumber?: string;
  balance?: number;
}

const metadataItem = z.object({ Name: z.string(), Value: parameterValueSchema });

const stkCallbackSchema = z.object({
  Body: z.object({
    stkCallback: z.object({
      MerchantRequestID: idSchema.refine((id) => id !== "", "MerchantRequestID is empty"),
      CheckoutRequestID: idSchema.refine((id) => id !== "", "CheckoutRequestID is empty"),
      ResultCode: resultCodeSchema,
      ResultDesc: z.string(),
      CallbackMetadata: z.object({ Item: oneOrMany(metadataItem).optional() }).nullish(),
    }),
  }),
});

/** Parses the body Daraja POSTs to an STK CallBackURL. Items are looked up by Name, never by position. */
export function parseStkCallback(body: unknown): ParseResult<StkCallback> {
  const result = stkCallbackSchema.safeParse(body);
  if (!result.success) return rejected(result.error);
  const callback = result.data.Body.stkCallback;
  const items = new Map((callback.CallbackMetadata?.Item ?? []).map((item) => [item.Name, item.Value] as const));
  const value: StkCallback = {
    merchantRequestId: callback.MerchantRequestID,
    checkoutRequestId: callback.CheckoutRequestID,
    resultCode: callback.ResultCode,
    resultDesc: callback.ResultDesc,
  };
  const amount = numberFrom(items.get("Amount"));
  const receipt = stringFrom(items.get("MpesaReceiptNumber"));
  const transactionDate = stringFrom(items.get("TransactionDate"));
  const phoneNumber = stringFrom(items.get("PhoneNumber"));
  const balance = numberFrom(items.get("Balance"));
  if (amount !== undefined) value.amount = amount;
  if (receipt !== undefined) value.mpesaReceiptNumber = receipt;
  if (transactionDate !== undefined) value.transactionDate = transactionDate;
  if (phoneNumber !== undefined) value.phoneNumber = phoneNumber;
  if (balance !== undefined) value.balance = balance;
  return parsed(value);
}
