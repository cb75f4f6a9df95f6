/**
 * C2B: a customer pays the paybill or till from the M-Pesa menu (docs/mpesa.md#c2b). Daraja POSTs the
 * same body to the validation URL (when external validation is enabled for the short code) and then to
 * the confirmation URL. Where the sources disagree, these parsers accept every form seen:
 *
 * - numbers as JSON numbers or strings (`TransAmount` "10", "5.00"; `BusinessShortCode`, `MSISDN`);
 * - `MSISDN` plain (`254708374149`), masked (`2547 ***** 126`, `25470****149`) or hashed (hex): kept
 *   opaque and never used to match a payment; only a masked rendering leaves this module's callers;
 * - the register answer's `OriginatorCoversationID` (Daraja's spelling) or `OriginatorConversationID`,
 *   and a `ResponseCode` of "0", 0 or "000000".
 */
import { z } from "zod";
import { idSchema, parsed, rejected } from "./parse-result.js";
import type { ParseResult } from "./parse-result.js";

/** How Daraja showed the payer's number. */
export type C2bMsisdnForm = "plain" | "masked" | "hashed" | "absent" | "other";

export interface C2bNotification {
  transactionType: string;
  /** The M-Pesa receipt (also in the customer's SMS): the payment's idempotency key. */
  transId: string;
  /** `YYYYMMDDHHmmss`, Kenyan wall-clock time. */
  transTime: string;
  /** Shillings as sent (may have cents, e.g. 5.00 → 5). */
  amount: number;
  businessShortCode: string;
  /** The paybill account number the customer typed (empty for a till). */
  billRefNumber: string;
  invoiceNumber: string;
  orgAccountBalance: string;
  thirdPartyTransId: string;
  msisdnForm: C2bMsisdnForm;
  /** The payer's number fit to show: masked whatever form it came in ("hashed" for a hash). */
  maskedMsisdn: string;
  firstName: string;
}

const text = z
  .union([z.string(), z.number()])
  .nullish()
  .transform((value) => (value === null || value === undefined ? "" : String(value).trim()));

const amount = z
  .union([z.string(), z.number()])
  .transform((value) => String(value).trim())
  .refine((value) => /^\d+(\.\d{1,2})?$/.test(value), "TransAmount is not an amount")
  .transform(Number);

const notificationSchema = z.object({
  TransactionType: text,
  TransID: idSchema.refine((id) => /^[A-Za-z0-9]{6,20}$/.test(id), "TransID is not an M-Pesa receipt"),
  TransTime: text,
  TransAmount: amount,
  BusinessShortCode: idSchema.refine((code) => /^\d{5,7}$/.test(code), "BusinessShortCode is not a short code"),
  BillRefNumber: text,
  InvoiceNumber: text,
  OrgAccountBalance: text,
  ThirdPartyTransID: text,
  MSISDN: text,
  FirstName: text,
});

const PLAIN = /^(?:254|0)?[17]\d{8}$/;
const HASHED = /^[0-9a-f]{32,128}$/i;

export function msisdnForm(raw: string): C2bMsisdnForm {
  const compact = raw.replace(/\s+/g, "");
  if (compact === "") return "absent";
  if (PLAIN.test(compact)) return "plain";
  if (compact.includes("*")) return "masked";
  if (HASHED.test(compact)) return "hashed";
  return "other";
}

/** A number fit to show: a plain one masked as Daraja's v2 does (`2547*****126`); a hash is not shown. */
export function maskMsisdn(raw: string): string {
  const compact = raw.replace(/\s+/g, "");
  switch (msisdnForm(raw)) {
    case "plain": {
      const full = compact.startsWith("254") ? compact : `254${compact.replace(/^0/, "")}`;
      return `${full.slice(0, 4)}*****${full.slice(-3)}`;
    }
    case "masked":
      return compact.slice(0, 32);
    case "hashed":
      return "hashed";
    case "absent":
      return "";
    default:
      return "*****";
  }
}

/** Parses the body Daraja POSTs to a C2B validation or confirmation URL. */
export function parseC2bNotification(body: unknown): ParseResult<C2bNotification> {
  const result = notificationSchema.safeParse(body);
  if (!result.success) return rejected(result.error);
  const b = result.data;
  return parsed({
    transactionType: b.TransactionType,
    transId: b.TransID,
    transTime: b.TransTime,
    amount: b.TransAmount,
    businessShortCode: b.BusinessShortCode,
    billRefNumber: b.BillRefNumber,
    invoiceNumber: b.InvoiceNumber,
    orgAccountBalance: b.OrgAccountBalance,
    thirdPartyTransId: b.ThirdPartyTransID,
    msisdnForm: msisdnForm(b.MSISDN),
    maskedMsisdn: maskMsisdn(b.MSISDN),
    firstName: b.FirstName,
  });
}

/** Daraja's validation rejection codes; the code picks the SMS the customer gets. */
export const C2B_REJECTION_CODES = {
  invalidMsisdn: "C2B00011",
  invalidAccount: "C2B00012",
  invalidAmount: "C2B00013",
  invalidKyc: "C2B00014",
  invalidShortcode: "C2B00015",
  otherError: "C2B00016",
} as const;
export type C2bRejectionCode = (typeof C2B_REJECTION_CODES)[keyof typeof C2B_REJECTION_CODES];

/** The answer to a validation request (ResultCode a string, as both portal pages show it). */
export function c2bValidationAnswer(rejection?: C2bRejectionCode): { ResultCode: string; ResultDesc: string } {
  return rejection ? { ResultCode: rejection, ResultDesc: "Rejected" } : { ResultCode: "0", ResultDesc: "Accepted" };
}

/** The answer to a confirmation ("Always 0", a number, on the portal). */
export const C2B_CONFIRMATION_ANSWER = { ResultCode: 0, ResultDesc: "Success" } as const;

export const c2bRegisterResponseSchema = z
  .object({
    OriginatorCoversationID: idSchema.optional(),
    OriginatorConversationID: idSchema.optional(),
    ConversationID: idSchema.optional(),
    ResponseCode: idSchema,
    ResponseDescription: z.string().default(""),
  })
  .transform((body) => ({
    originatorConversationId: body.OriginatorCoversationID ?? body.OriginatorConversationID ?? "",
    responseCode: body.ResponseCode,
    responseDescription: body.ResponseDescription,
  }));

/** "0", "00000000"...: every all-zero ResponseCode means accepted. */
export const isAcceptedResponseCode = (code: string) => /^0+$/.test(code);
