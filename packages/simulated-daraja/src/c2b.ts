/**
 * C2B (docs/daraja-simulator.md#c2b): the register URL (v1 and v2) stores a short code's validation
 * and confirmation URLs; `pay` is the customer paying the paybill (or till) from the M-Pesa menu:
 * validation first (its answer accepts, or a C2B000xx code cancels; no answer in time or an HTTP
 * error: the registered ResponseType decides), then the confirmation, in Daraja's wire format.
 */
import { createHash } from "node:crypto";
import { accepted, darajaError, invalidField, type DarajaAnswer, type JsonBody } from "./answers.js";
import type { Exchange } from "./callback-sender.js";
import type { SimulationContext } from "./context.js";
import { isAcceptableCallbackUrl, text } from "./fields.js";
import type { C2bPayment, C2bRegistration } from "./records.js";
import { eatTimestamp, newOriginatorConversationId, newReceipt } from "./wire.js";
import { simulatedApi } from "./api.js";

const SHORT_CODE = /^\d{5,7}$/;
const REJECTION = /^C2B000(1[1-6])$/;

/** A customer's payment from the M-Pesa menu. */
export interface C2bPayRequest {
  /** Default: the simulator's paybill. */
  shortCode?: string | undefined;
  account: string;
  amount: number;
  /** 2547… or 2541… */
  phone: string;
  /** How MSISDN is sent: masked (v2), hashed (SHA-256 hex of the 12 digits; a convention) or plain (older payloads). */
  msisdn: "masked" | "hashed" | "plain";
  /** false: external validation is not enabled for this short code (Daraja's default): confirmation only. */
  validation: boolean;
  command: "CustomerPayBillOnline" | "CustomerBuyGoodsOnline";
  /** Fault mode: the confirmation is delivered twice. */
  repeatConfirmation: boolean;
  /**
   * Fault mode: the payment completes but its confirmation never reaches the shop (visible to Pull
   * only); also chosen by the amount C2B_LOST_CONFIRMATION_AMOUNT. Default false.
   */
  loseConfirmation?: boolean;
}

/** The C2B amount (KES) whose confirmation is lost: the payment completes and only Pull shows it. */
export const C2B_LOST_CONFIRMATION_AMOUNT = 41;

/** What happened to the payment, and the validation and confirmation exchanges (the control API's answer). */
export interface C2bPayResult {
  trans_id: string;
  status: "completed" | "cancelled";
  reason: string;
  /** The confirmation was lost on purpose (the fault mode): only Pull shows the payment. */
  confirmation_lost?: boolean;
  validation: (Exchange & { verdict: string; result_code: string | null }) | null;
  confirmation: Exchange | null;
}

export interface C2bOperations {
  /** The gateway's refusal of a register URL version the app's product lacks (before it reads the body); null: none. */
  productRefusal(version: "v1" | "v2"): DarajaAnswer | null;
  register(body: JsonBody, version: "v1" | "v2"): Promise<DarajaAnswer>;
  pay(request: C2bPayRequest): Promise<C2bPayResult>;
}

function msisdnAs(phone: string, mode: "masked" | "hashed" | "plain"): string {
  if (mode === "plain") return phone;
  if (mode === "hashed") return createHash("sha256").update(phone).digest("hex");
  return `${phone.slice(0, 4)} ***** ${phone.slice(-3)}`;
}

type Verdict = "accepted" | "rejected" | "no_answer" | "unreadable";

/** What the validation answer means to M-Pesa: complete, cancel with a code, or no usable answer. */
function readValidation(answer: Exchange): { verdict: Verdict; resultCode: string | null; thirdPartyTransId: string } {
  if (answer.status === null || answer.status < 200 || answer.status >= 300)
    return { verdict: "no_answer", resultCode: null, thirdPartyTransId: "" };
  if (typeof answer.body !== "object" || answer.body === null)
    return { verdict: "unreadable", resultCode: null, thirdPartyTransId: "" };
  const fields = answer.body as Record<string, unknown>;
  const resultCode = text(fields["ResultCode"]);
  const thirdPartyTransId = text(fields["ThirdPartyTransID"]) ?? "";
  if (resultCode === "0") return { verdict: "accepted", resultCode, thirdPartyTransId };
  if (resultCode !== null && REJECTION.test(resultCode)) return { verdict: "rejected", resultCode, thirdPartyTransId };
  return { verdict: "unreadable", resultCode, thirdPartyTransId };
}

function cancelReason(verdict: Verdict, resultCode: string | null): string {
  if (verdict === "rejected") return `rejected with ${resultCode}`;
  return verdict === "unreadable" ? "unreadable validation answer" : "no validation answer; ResponseType Cancelled";
}

export function createC2bOperations(context: SimulationContext): C2bOperations {
  const { options, records, callbacks } = context;

  function productRefusal(version: "v1" | "v2"): DarajaAnswer | null {
    if (options.c2bRegisterVersions.includes(version)) return null;
    return darajaError(
      401,
      "401.003.01",
      "Error Occurred - Invalid Access Token - Invalid API call as no apiproduct match found",
    );
  }

  async function register(body: JsonBody, version: "v1" | "v2"): Promise<DarajaAnswer> {
    const refused = productRefusal(version);
    if (refused) return refused;
    const shortCode = text(body["ShortCode"]);
    if (!shortCode || !SHORT_CODE.test(shortCode)) return invalidField("ShortCode");
    const responseType = body["ResponseType"];
    if (responseType !== "Completed" && responseType !== "Cancelled") return invalidField("ResponseType");
    for (const field of ["ConfirmationURL", "ValidationURL"] as const) {
      if (!isAcceptableCallbackUrl(body[field], options.blockCallbackKeywords)) return invalidField(field);
    }
    const registration: C2bRegistration = {
      kind: "c2b_registration",
      shortCode,
      responseType,
      confirmationUrl: body["ConfirmationURL"] as string,
      validationUrl: body["ValidationURL"] as string,
      version,
    };
    await records.put(registration);
    // Daraja's own spelling of the key (no "n"), as both portal pages show it.
    return accepted({
      OriginatorCoversationID: newOriginatorConversationId(),
      ResponseCode: "0",
      ResponseDescription: "Success",
    });
  }

  /** A TransID no payment has had, remembered (cancelled) until the payment completes. */
  async function newPayment(pay: C2bPayRequest, shortCode: string): Promise<C2bPayment> {
    for (;;) {
      const payment: C2bPayment = {
        kind: "c2b",
        transId: newReceipt(),
        phone: pay.phone,
        amount: pay.amount,
        shortCode,
        command: pay.command,
        account: pay.command === "CustomerBuyGoodsOnline" ? "" : pay.account,
        completed: false,
        at: options.now().toISOString(),
      };
      if (await records.add(payment)) return payment;
    }
  }

  async function pay(pay: C2bPayRequest): Promise<C2bPayResult> {
    const shortCode = pay.shortCode ?? options.shortcode;
    const payment = await newPayment(pay, shortCode);
    const transId = payment.transId;
    const notification = {
      TransactionType: pay.command === "CustomerBuyGoodsOnline" ? "Buy Goods" : "Pay Bill",
      TransID: transId,
      TransTime: eatTimestamp(options.now()),
      TransAmount: `${pay.amount}.00`,
      BusinessShortCode: shortCode,
      BillRefNumber: pay.command === "CustomerBuyGoodsOnline" ? "" : pay.account,
      InvoiceNumber: "",
      OrgAccountBalance: "",
      ThirdPartyTransID: "",
      MSISDN: msisdnAs(pay.phone, pay.msisdn),
      FirstName: "JOHN",
      MiddleName: "",
      LastName: "",
    };
    const complete = () => records.put({ ...payment, completed: true, at: options.now().toISOString() });
    const registration = await records.get("c2b_registration", shortCode);
    // No URLs registered: M-PESA completes the payment and tells nobody.
    if (!registration) {
      await complete();
      return {
        trans_id: transId,
        status: "completed",
        reason: "no URLs registered for this short code",
        validation: null,
        confirmation: null,
      };
    }

    let validation: C2bPayResult["validation"] = null;
    let thirdPartyTransId = "";
    if (pay.validation) {
      const answer = await callbacks.exchange(
        "c2b_validation",
        registration.validationUrl,
        notification,
        options.c2bValidationTimeoutMs,
      );
      const read = readValidation(answer);
      validation = { ...answer, verdict: read.verdict, result_code: read.resultCode };
      thirdPartyTransId = read.thirdPartyTransId;
      const noAnswerCancels = read.verdict === "no_answer" && registration.responseType === "Cancelled";
      if (read.verdict === "rejected" || read.verdict === "unreadable" || noAnswerCancels) {
        return {
          trans_id: transId,
          status: "cancelled",
          reason: cancelReason(read.verdict, read.resultCode),
          validation,
          confirmation: null,
        };
      }
    }
    const balance = await context.balance(pay.amount);
    await complete();
    if (pay.loseConfirmation === true || pay.amount === C2B_LOST_CONFIRMATION_AMOUNT) {
      const reason = "confirmation lost (a fault of the simulator): only Pull Transactions shows the payment";
      const lost = { confirmation_lost: true, validation, confirmation: null };
      return { trans_id: transId, status: "completed", reason, ...lost };
    }
    const confirmationBody = {
      ...notification,
      OrgAccountBalance: balance.toFixed(2),
      ThirdPartyTransID: thirdPartyTransId,
    };
    const timeoutMs = options.callbackTimeoutMs;
    const confirmation = await callbacks.exchange(
      "c2b_confirmation",
      registration.confirmationUrl,
      confirmationBody,
      timeoutMs,
    );
    if (pay.repeatConfirmation)
      await callbacks.exchange("c2b_confirmation", registration.confirmationUrl, confirmationBody, timeoutMs);
    const reason =
      validation?.verdict === "no_answer"
        ? "no validation answer; ResponseType Completed"
        : pay.validation
          ? "accepted"
          : "validation not enabled";
    return { trans_id: transId, status: "completed", reason, validation, confirmation };
  }

  return { productRefusal, register, pay };
}

/** C2B's register URL, v1 and v2 (a version the app lacks is refused before the body is read). */
export const c2bApi = simulatedApi({
  endpoints: (["v1", "v2"] as const).map((version) => ({
    path: `/mpesa/c2b/${version}/registerurl`,
    operation: "c2bregister" as const,
    firstField: "ShortCode",
    create: (context: SimulationContext) => {
      const c2b = createC2bOperations(context);
      return { refusal: () => c2b.productRefusal(version), answer: (body: JsonBody) => c2b.register(body, version) };
    },
  })),
  callbackKinds: ["c2b_validation", "c2b_confirmation"],
});
