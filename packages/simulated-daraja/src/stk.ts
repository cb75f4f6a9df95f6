/**
 * STK push and its query (docs/daraja-simulator.md#outcomes): checks the request as Daraja does,
 * decides the outcome (a queued one, else the amount's), remembers the prompt, and after the callback
 * delay settles it and POSTs the callback (none, or two, as the outcome says).
 */
import { accepted, darajaError, invalidField, type DarajaAnswer, type JsonBody } from "./answers.js";
import { stkCallbackBody } from "./callback-bodies.js";
import type { SimulationContext } from "./context.js";
import { isAcceptableCallbackUrl, text, wholeAmount } from "./fields.js";
import { RESULT_NOT_PERMITTED, STK_MAGIC_AMOUNTS, STK_OUTCOMES, stkResultFor } from "./outcomes.js";
import type { StkPayment } from "./records.js";
import {
  expectedPassword,
  MSISDN,
  newCheckoutRequestId,
  newMerchantRequestId,
  newReceipt,
  parseEatTimestamp,
} from "./wire.js";
import { simulatedApi } from "./api.js";

const STK_AMOUNT_MAX = 250_000;
const TRANSACTION_TYPES = new Set(["CustomerPayBillOnline", "CustomerBuyGoodsOnline"]);
const SUBSCRIBER_LOCKED = "Unable to lock subscriber, a transaction is already in process for the current subscriber";

export interface StkOperations {
  push(body: JsonBody): Promise<DarajaAnswer>;
  query(body: JsonBody): Promise<DarajaAnswer>;
}

export function createStkOperations(context: SimulationContext): StkOperations {
  const { options, records, callbacks } = context;

  /** BusinessShortCode + Timestamp + Password, checked as Daraja does. */
  function credentialProblem(body: JsonBody): DarajaAnswer | null {
    const shortcode = text(body["BusinessShortCode"]);
    if (!shortcode || !/^\d{5,7}$/.test(shortcode)) return invalidField("BusinessShortCode");
    const timestamp = text(body["Timestamp"]);
    const at = timestamp === null ? null : parseEatTimestamp(timestamp);
    if (timestamp === null || at === null) return invalidField("Timestamp");
    const skew = options.maxTimestampSkewMinutes;
    if (skew !== null && Math.abs(at.getTime() - options.now().getTime()) > skew * 60_000)
      return invalidField("Timestamp");
    if (shortcode !== options.shortcode) return darajaError(500, "500.001.1001", "Merchant does not exist");
    if (body["Password"] !== expectedPassword(options.shortcode, options.passkey, timestamp)) {
      return darajaError(500, "500.001.1001", "[MerchantValidate] - Wrong credentials");
    }
    return null;
  }

  function settled(payment: StkPayment): StkPayment {
    return {
      ...payment,
      settled: true,
      settledAt: options.now().toISOString(),
      receipt: payment.result.code === 0 ? newReceipt() : null,
    };
  }

  async function hasOpenPrompt(phone: string): Promise<boolean> {
    return (await records.find("stk", { phone })).some((payment) => !payment.settled);
  }

  async function push(body: JsonBody): Promise<DarajaAnswer> {
    const problem = credentialProblem(body);
    if (problem) return problem;
    const transactionType = text(body["TransactionType"]);
    if (!transactionType || !TRANSACTION_TYPES.has(transactionType)) return invalidField("TransactionType");
    const amount = wholeAmount(body["Amount"]);
    if (amount === null || amount > STK_AMOUNT_MAX) return invalidField("Amount");
    const phone = text(body["PhoneNumber"]);
    if (!phone || !MSISDN.test(phone)) return invalidField("PhoneNumber");
    const partyA = text(body["PartyA"]);
    if (!partyA || !MSISDN.test(partyA)) return invalidField("PartyA");
    const partyB = text(body["PartyB"]);
    if (!partyB || !/^\d{5,8}$/.test(partyB)) return invalidField("PartyB");
    const callbackUrl = body["CallBackURL"];
    if (!isAcceptableCallbackUrl(callbackUrl, options.blockCallbackKeywords)) return invalidField("CallBackURL");
    const accountReference = text(body["AccountReference"]);
    if (!accountReference || accountReference.length > 12) return invalidField("AccountReference");
    const description = body["TransactionDesc"] === undefined ? "" : text(body["TransactionDesc"]);
    if (description === null || description.length > 13) return invalidField("TransactionDesc");

    if (options.lockSubscriberWhilePending && (await hasOpenPrompt(phone)))
      return darajaError(500, "500.001.1001", SUBSCRIBER_LOCKED);
    const outcome = context.chooseOutcome("stk", phone, STK_OUTCOMES) ?? STK_MAGIC_AMOUNTS[amount] ?? "success";
    if (outcome === "subscriber_locked") return darajaError(500, "500.001.1001", SUBSCRIBER_LOCKED);
    const tillMismatch =
      transactionType === "CustomerBuyGoodsOnline" && options.tillNumber !== null && partyB !== options.tillNumber;
    const paybillMismatch = transactionType === "CustomerPayBillOnline" && partyB !== options.shortcode;
    const now = options.now();
    const payment: StkPayment = {
      kind: "stk",
      merchantRequestId: newMerchantRequestId(),
      checkoutRequestId: newCheckoutRequestId(now),
      phone,
      amount,
      partyB,
      transactionType,
      callbackUrl,
      accountReference,
      outcome,
      result: tillMismatch || paybillMismatch ? RESULT_NOT_PERMITTED : stkResultFor(outcome),
      createdAt: now.toISOString(),
      settled: false,
      receipt: null,
      settledAt: null,
    };
    await records.add(payment);

    callbacks.later(async () => {
      const done = settled(payment);
      await records.put(done);
      if (outcome === "no_callback") return;
      await callbacks.deliver("stk", done.callbackUrl, stkCallbackBody(done));
      if (outcome === "duplicate_callback") await callbacks.deliver("stk", done.callbackUrl, stkCallbackBody(done));
    });

    return accepted({
      MerchantRequestID: payment.merchantRequestId,
      CheckoutRequestID: payment.checkoutRequestId,
      ResponseCode: "0",
      ResponseDescription: "Success. Request accepted for processing",
      CustomerMessage: "Success. Request accepted for processing",
    });
  }

  async function query(body: JsonBody): Promise<DarajaAnswer> {
    const problem = credentialProblem(body);
    if (problem) return problem;
    const checkoutRequestId = text(body["CheckoutRequestID"]);
    const payment = checkoutRequestId ? await records.get("stk", checkoutRequestId) : null;
    if (!checkoutRequestId || !payment) return invalidField("CheckoutRequestID");

    if (!payment.settled) {
      if (options.queryPendingMode === "classic") {
        // The classic pending answer carries the CheckoutRequestID as requestId (docs/daraja-wire-format.md#stk-query).
        return darajaError(500, "500.001.1001", "The transaction is being processed", payment.checkoutRequestId);
      }
      return accepted({
        ResponseCode: "0",
        ResponseDescription: "The service request has been accepted successfully",
        MerchantRequestID: payment.merchantRequestId,
        CheckoutRequestID: payment.checkoutRequestId,
        ResultCode: "4999",
        ResultDesc: "The transaction is still under processing",
      });
    }
    return accepted({
      ResponseCode: "0",
      ResponseDescription: "The service request has been accepted successfully",
      MerchantRequestID: payment.merchantRequestId,
      CheckoutRequestID: payment.checkoutRequestId,
      ResultCode: String(payment.result.code),
      ResultDesc: payment.result.desc,
    });
  }

  return { push, query };
}

/** STK push and its query; the result by callback. */
export const stkApi = simulatedApi({
  endpoints: [
    {
      path: "/mpesa/stkpush/v1/processrequest",
      operation: "stkpush",
      firstField: "BusinessShortCode",
      create: (context) => ({ answer: createStkOperations(context).push }),
    },
    {
      path: "/mpesa/stkpushquery/v1/query",
      operation: "stkquery",
      firstField: "BusinessShortCode",
      create: (context) => ({ answer: createStkOperations(context).query }),
    },
  ],
  callbackKinds: ["stk"],
  outcomes: "stk",
});
