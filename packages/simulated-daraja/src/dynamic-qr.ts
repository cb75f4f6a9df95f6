/**
 * Dynamic QR (docs/daraja-simulator.md#dynamic-qr): the request checked as the wire reference describes
 * it, answered as the live sandbox does (`ResponseCode "00"`, no `RequestID`) with a real PNG of the
 * requested size. Daraja does not document what its QR codes encode, so the picture encodes nothing; the
 * PNG's tEXt chunk keeps what the code was made for, and `scan` (a customer paying with the M-Pesa app,
 * a control of the simulator) reads it back and pays as the menu would: a paybill payment whose account
 * is the code's RefNo, or a till payment with no account.
 */
import { accepted, invalidField, type DarajaAnswer, type JsonBody } from "./answers.js";
import { DYNAMIC_QR_PATH } from "@mteja/daraja";
import { simulatedApi } from "./api.js";
import { createC2bOperations, type C2bPayRequest, type C2bPayResult } from "./c2b.js";
import { text, wholeAmount } from "./fields.js";
import { qrLikePng, readPng } from "./png.js";

const TRX_CODES = new Set(["BG", "WA", "PB", "SM", "SB"]);
const QR_TEXT_KEYWORD = "mteja-simulated-qr";
/** The largest image the simulator draws. */
const MAX_SIZE = 1000;

/** What a simulated QR code was made for (kept in its PNG). */
export interface QrPayload {
  merchantName: string;
  refNo: string;
  amount: number;
  trxCode: string;
  cpi: string;
}

/** A customer scanning a simulated QR code and paying: the payer and how the payment reaches the shop. */
export interface QrScanRequest {
  /** The base64 PNG the Dynamic QR answer gave (a `data:` prefix is allowed). */
  qrCode: string;
  phone: string;
  msisdn: C2bPayRequest["msisdn"];
  validation: boolean;
  /** The confirmation never reaches the shop (visible to Pull only). */
  loseConfirmation: boolean;
}

export type QrScanResult = { ok: true; qr: QrPayload; payment: C2bPayResult } | { ok: false; error: string };

export interface DynamicQrOperations {
  generate(body: JsonBody): Promise<DarajaAnswer>;
  scan(request: QrScanRequest): Promise<QrScanResult>;
}

/** JSON in ASCII only (a tEXt chunk is Latin-1). */
const asciiJson = (value: unknown) =>
  JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

export function createDynamicQrOperations(pay: (request: C2bPayRequest) => Promise<C2bPayResult>): DynamicQrOperations {
  async function generate(body: JsonBody): Promise<DarajaAnswer> {
    const merchantName = text(body["MerchantName"]);
    if (!merchantName) return invalidField("MerchantName");
    const refNo = text(body["RefNo"]);
    if (refNo === null) return invalidField("RefNo");
    // A JSON number of whole shillings, as the portal's sample sends it.
    const amount = typeof body["Amount"] === "number" ? wholeAmount(body["Amount"]) : null;
    if (amount === null) return invalidField("Amount");
    const trxCode = text(body["TrxCode"]);
    if (!trxCode || !TRX_CODES.has(trxCode)) return invalidField("TrxCode");
    const cpi = text(body["CPI"]);
    const cpiPattern = trxCode === "SM" || trxCode === "SB" ? /^254[17]\d{8}$|^\d{5,7}$/ : /^\d{5,8}$/;
    if (!cpi || !cpiPattern.test(cpi)) return invalidField("CPI");
    if ((trxCode === "PB" || trxCode === "SB") && refNo === "") return invalidField("RefNo");
    // A string of digits: "Daraja expects the size as a string".
    const size = typeof body["Size"] === "string" && /^\d{1,4}$/.test(body["Size"]) ? Number(body["Size"]) : null;
    if (size === null || size < 32 || size > MAX_SIZE) return invalidField("Size");
    const payload: QrPayload = { merchantName, refNo, amount, trxCode, cpi };
    const png = qrLikePng(size, QR_TEXT_KEYWORD, asciiJson(payload));
    return accepted({
      ResponseCode: "00",
      ResponseDescription: "The service request is processed successfully.",
      QRCode: png.toString("base64"),
    });
  }

  async function scan(request: QrScanRequest): Promise<QrScanResult> {
    const png = readPng(Buffer.from(request.qrCode.replace(/^data:image\/png;base64,/, ""), "base64"));
    const kept = png?.text[QR_TEXT_KEYWORD];
    if (!kept) return { ok: false, error: "not a QR code of this simulator" };
    const qr = JSON.parse(kept) as QrPayload;
    if (qr.trxCode !== "PB" && qr.trxCode !== "BG") {
      return { ok: false, error: `TrxCode ${qr.trxCode} is not a payment to a paybill or till` };
    }
    const payment = await pay({
      shortCode: qr.cpi,
      account: qr.trxCode === "PB" ? qr.refNo : "",
      amount: qr.amount,
      phone: request.phone,
      msisdn: request.msisdn,
      validation: request.validation,
      command: qr.trxCode === "PB" ? "CustomerPayBillOnline" : "CustomerBuyGoodsOnline",
      repeatConfirmation: false,
      loseConfirmation: request.loseConfirmation,
    });
    return { ok: true, qr, payment };
  }

  return { generate, scan };
}

/** Dynamic QR: a QR code (a PNG) to pay a paybill, till or phone. */
export const dynamicQrApi = simulatedApi({
  endpoints: [
    {
      path: DYNAMIC_QR_PATH,
      operation: "qrcode",
      firstField: "MerchantName",
      create: (context) => ({ answer: createDynamicQrOperations(createC2bOperations(context).pay).generate }),
    },
  ],
  callbackKinds: [],
});
