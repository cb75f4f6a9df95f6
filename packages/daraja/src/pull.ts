/**
 * Daraja's Pull Transactions API (docs/daraja-wire-format.md#pull-transactions): a short code is
 * registered once, then its C2B receipts of the last 48 hours are asked for by window. The answer comes
 * in the HTTP response, not by callback. Where the sources disagree, these readers accept every form seen:
 *
 * - register: `ResponseStatus` / `ResponseDescription` (the portal) or `Response Status` /
 *   `Response Description` (with spaces, what the live sandbox sends); 1000 registered, 1001 already
 *   registered (not an error);
 * - query: `ResponseRefID` or `RequestID`; `Response` a list of lists (every inner list is read) with
 *   lower-case keys, `msisdn` a number or a string, `amount` a decimal string; `1001` "no records" (which
 *   Daraja also answers for a short code it has not provisioned: the caller reports it, never hides it);
 * - paging: `OffSetValue` a row offset, or a page index when the answer carries `TotalPages`.
 */
import { z } from "zod";
import { idSchema, parsed, rejected, type ParseResult } from "./parse-result.js";

export const PULL_REGISTER_PATH = "/pulltransactions/v1/register";
export const PULL_QUERY_PATH = "/pulltransactions/v1/query";

/** Daraja's ResponseStatus for a register: registered now, or registered before (both are success). */
export const PULL_REGISTERED = "1000";
export const PULL_ALREADY_REGISTERED = "1001";
/** Daraja's ResponseCode for a query: rows found, or none (or a short code Daraja cannot name). */
export const PULL_FOUND = "1000";
export const PULL_NO_RECORDS = "1001";

/** What Daraja answered to a register, as read. */
export interface PullRegisterAnswer {
  responseRefId: string | null;
  /** 1000 (registered) or 1001 (already registered); anything else is refused before the caller sees it. */
  status: string;
  description: string;
}

const registerAnswerSchema = z
  .object({
    ResponseRefID: idSchema.optional(),
    ResponseStatus: idSchema.optional(),
    "Response Status": idSchema.optional(),
    ResponseDescription: z.string().optional(),
    "Response Description": z.string().optional(),
  })
  .transform((body) => ({
    responseRefId: body.ResponseRefID ?? null,
    status: body.ResponseStatus ?? body["Response Status"] ?? "",
    description: body.ResponseDescription ?? body["Response Description"] ?? "",
  }));

export function parsePullRegisterAnswer(body: unknown): ParseResult<PullRegisterAnswer> {
  const result = registerAnswerSchema.safeParse(body);
  if (!result.success) return rejected(result.error);
  if (result.data.status === "") return rejected("no ResponseStatus");
  return parsed(result.data);
}

export const isPullRegistered = (status: string) => status === PULL_REGISTERED || status === PULL_ALREADY_REGISTERED;

/** One C2B receipt as Pull shows it. */
export interface PulledTransaction {
  /** The M-Pesa receipt: the same TransID as the C2B confirmation. */
  transactionId: string;
  /** `trxDate` as sent (ISO 8601, with `Z`, an offset or none). */
  trxDate: string;
  /** When it happened: its offset when it has one, else Nairobi time; null when unreadable. */
  at: Date | null;
  /** As sent (a number on the wire, here as its digits; may be masked or absent). */
  msisdn: string;
  sender: string;
  /** `c2b-pay-bill-debit`, `c2b-buy-goods-debit`, or anything else Daraja lists (not a payment). */
  transactionType: string;
  /** The paybill account the customer typed; empty for a till. */
  billReference: string;
  /** The amount as sent ("168.00"); `amount` below is it in shillings. */
  amountText: string;
  /** Shillings, read from the decimal text (never through a float of a longer string). */
  amount: number;
  organizationName: string;
  /** The row as Daraja sent it (kept as the evidence of the payment). */
  raw: unknown;
}

/** The payment types Pull lists; any other row (a settlement sweep) is not money paid in. */
export const PULL_PAYMENT_TYPES = ["c2b-pay-bill-debit", "c2b-buy-goods-debit"] as const;

export function isPulledPayment(transaction: Pick<PulledTransaction, "transactionType">): boolean {
  return (PULL_PAYMENT_TYPES as readonly string[]).includes(transaction.transactionType.trim().toLowerCase());
}

const text = z
  .union([z.string(), z.number()])
  .nullish()
  .transform((value) => (value === null || value === undefined ? "" : String(value).trim()));

const amountPattern = /^\d+(\.\d+)?$/;

const rowSchema = z.object({
  transactionId: idSchema.refine((id) => /^[A-Za-z0-9]{6,20}$/.test(id), "transactionId is not an M-Pesa receipt"),
  trxDate: text,
  // A JSON number on the wire: its digits, never a float's rendering (2547… fits a double exactly).
  msisdn: text,
  sender: text,
  transactiontype: text,
  billreference: text,
  amount: text.refine((value) => amountPattern.test(value), "amount is not a decimal"),
  organizationname: text,
});

const NAIROBI_OFFSET_MS = 3 * 60 * 60 * 1000;

const TRX_DATE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** `trxDate`: its own offset when it has one (`Z` included), else Nairobi wall-clock time; null when unreadable. */
export function parseTrxDate(value: string): Date | null {
  const match = TRX_DATE.exec(value.trim());
  if (!match) return null;
  const [, year, month, day, hour, minute, second, zone] = match;
  const [y, mo, d, h, mi, se] = [year, month, day, hour, minute, second ?? 0].map(Number) as number[];
  const wall = Date.UTC(y!, mo! - 1, d!, h!, mi!, se!);
  const check = new Date(wall);
  if (check.getUTCDate() !== Number(day) || check.getUTCHours() !== Number(hour)) return null;
  if (zone === undefined) return new Date(wall - NAIROBI_OFFSET_MS);
  if (zone === "Z") return check;
  const sign = zone.startsWith("-") ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  const offsetMs = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  return new Date(wall - offsetMs);
}

/** Shillings from a decimal string, without going through a float of the whole text ("2697.0" → 2697, "5.50" → 5.5). */
function shillingsOf(value: string): number {
  const [whole = "0", fraction = ""] = value.split(".");
  const cents = Number(whole) * 100 + Number((fraction + "00").slice(0, 2));
  return cents / 100;
}

export function parsePulledTransaction(row: unknown): ParseResult<PulledTransaction> {
  const result = rowSchema.safeParse(row);
  if (!result.success) return rejected(result.error);
  const r = result.data;
  return parsed({
    transactionId: r.transactionId,
    trxDate: r.trxDate,
    at: parseTrxDate(r.trxDate),
    msisdn: r.msisdn,
    sender: r.sender,
    transactionType: r.transactiontype,
    billReference: r.billreference,
    amountText: r.amount,
    amount: shillingsOf(r.amount),
    organizationName: r.organizationname,
    raw: row,
  });
}

/** One page of a query, as read. */
export interface PullQueryPage {
  responseCode: string;
  responseMessage: string;
  /** The rows of every inner list, in order; rows that do not read are in `unreadable`. */
  transactions: PulledTransaction[];
  unreadable: { row: unknown; error: string }[];
  /** When the answer pages by index (`TotalPages`); null: `OffSetValue` is a row offset. */
  totalPages: number | null;
}

const queryAnswerSchema = z.object({
  ResponseRefID: idSchema.optional(),
  RequestID: idSchema.optional(),
  ResponseCode: idSchema,
  ResponseMessage: z.string().default(""),
  Response: z.unknown().optional(),
  TotalPages: idSchema.optional(),
});

export function parsePullQueryAnswer(body: unknown): ParseResult<PullQueryPage> {
  const result = queryAnswerSchema.safeParse(body);
  if (!result.success) return rejected(result.error);
  const answer = result.data;
  // A list of lists; every inner list is read (a bare list of rows too).
  const outer = Array.isArray(answer.Response) ? answer.Response : [];
  const rows = outer.flatMap((inner: unknown) => (Array.isArray(inner) ? inner : [inner]));
  const transactions: PulledTransaction[] = [];
  const unreadable: PullQueryPage["unreadable"] = [];
  for (const row of rows) {
    const read = parsePulledTransaction(row);
    if (read.ok) transactions.push(read.value);
    else unreadable.push({ row, error: read.error });
  }
  const pagesText = answer.TotalPages;
  const totalPages = pagesText !== undefined && /^\d+$/.test(pagesText) ? Number(pagesText) : null;
  const { ResponseCode: responseCode, ResponseMessage: responseMessage } = answer;
  return parsed({ responseCode, responseMessage, transactions, unreadable, totalPages });
}

/** `YYYY-MM-DD HH:mm:ss` in Nairobi time, zero-padded: the StartDate/EndDate Daraja reads. */
export function pullDate(at: Date): string {
  const eat = new Date(at.getTime() + NAIROBI_OFFSET_MS);
  const pad = (value: number, width = 2) => String(value).padStart(width, "0");
  return (
    `${pad(eat.getUTCFullYear(), 4)}-${pad(eat.getUTCMonth() + 1)}-${pad(eat.getUTCDate())} ` +
    `${pad(eat.getUTCHours())}:${pad(eat.getUTCMinutes())}:${pad(eat.getUTCSeconds())}`
  );
}

/** Parses StartDate/EndDate (`YYYY-MM-DD HH:mm:ss` or `… HH:mm`, Nairobi time); null when it is not one. */
export function parsePullDate(value: string): Date | null {
  const match = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (!match) return null;
  const at = parseTrxDate(`${match[1]}-${match[2]}-${match[3]}T${match[4]}:${match[5]}:${match[6] ?? "00"}`);
  return at && pullDate(at).startsWith(`${match[1]}-${match[2]}-${match[3]} ${match[4]}:${match[5]}`) ? at : null;
}
