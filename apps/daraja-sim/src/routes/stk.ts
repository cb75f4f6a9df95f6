import type { FastifyInstance } from "fastify";
import { badRequest, invalidField, isAcceptableCallbackUrl, readJsonBody, requireAccessToken, sendDarajaError, sendProblem, text, wholeAmount } from "../http.js";
import type { DarajaProblem, JsonBody } from "../http.js";
import type { CallbackSender } from "../callback-sender.js";
import { stkCallbackBody } from "../callback-bodies.js";
import type { ResolvedSimulatorOptions } from "../options.js";
import { RESULT_NOT_PERMITTED, STK_MAGIC_AMOUNTS, STK_OUTCOMES, stkResultFor } from "../outcomes.js";
import type { SimOutcome } from "../outcomes.js";
import { takeQueuedOutcome } from "../state.js";
import type { SimulatorState, StkPayment } from "../state.js";
import { expectedPassword, MSISDN, newCheckoutRequestId, newMerchantRequestId, newReceipt, parseEatTimestamp } from "../wire.js";

const STK_AMOUNT_MAX = 250_000;
const TRANSACTION_TYPES = new Set(["CustomerPayBillOnline", "CustomerBuyGoodsOnline"]);
const SUBSCRIBER_LOCKED = "Unable to lock subscriber, a transaction is already in process for the current subscriber";

export function registerStkRoutes(app: FastifyInstance, options: ResolvedSimulatorOptions, state: SimulatorState, callbacks: CallbackSender): void {
  /** BusinessShortCode + Timestamp + Password, checked as Daraja does. */
  function credentialProblem(body: JsonBody): DarajaProblem | null {
    const shortcode = text(body["BusinessShortCode"]);
    if (!shortcode || !/^\d{5,7}$/.test(shortcode)) return invalidField("BusinessShortCode");
    const timestamp = text(body["Timestamp"]);
    const at = timestamp === null ? null : parseEatTimestamp(timestamp);
    if (timestamp === null || at === null) return invalidField("Timestamp");
    const skew = options.maxTimestampSkewMinutes;
    if (skew !== null && Math.abs(at.getTime() - options.now().getTime()) > skew * 60_000) return invalidField("Timestamp");
    if (shortcode !== options.shortcode) return { status: 500, errorCode: "500.001.1001", errorMessage: "Merchant does not exist" };
    if (body["Password"] !== expectedPassword(options.shortcode, options.passkey, timestamp)) {
      return { status: 500, errorCode: "500.001.1001", errorMessage: "[MerchantValidate] - Wrong credentials" };
    }
    return null;
  }

  function settle(payment: StkPayment): void {
    payment.settled = true;
    payment.settledAt = options.now();
    if (payment.result.code === 0) payment.receipt = newReceipt();
  }

  function chooseOutcome(amount: number, phone: string): SimOutcome {
    return takeQueuedOutcome(state, "stk", phone, STK_OUTCOMES) ?? STK_MAGIC_AMOUNTS[amount] ?? "success";
  }

  app.post("/mpesa/stkpush/v1/processrequest", async (request, reply) => {
    if (!requireAccessToken(request, reply, options, state)) return reply;
    const body = readJsonBody(request, reply, "BusinessShortCode");
    if (!body) return reply;
    const problem = credentialProblem(body);
    if (problem) return sendProblem(reply, problem);

    const transactionType = text(body["TransactionType"]);
    if (!transactionType || !TRANSACTION_TYPES.has(transactionType)) return badRequest(reply, "TransactionType");
    const amount = wholeAmount(body["Amount"]);
    if (amount === null || amount > STK_AMOUNT_MAX) return badRequest(reply, "Amount");
    const phone = text(body["PhoneNumber"]);
    if (!phone || !MSISDN.test(phone)) return badRequest(reply, "PhoneNumber");
    const partyA = text(body["PartyA"]);
    if (!partyA || !MSISDN.test(partyA)) return badRequest(reply, "PartyA");
    const partyB = text(body["PartyB"]);
    if (!partyB || !/^\d{5,8}$/.test(partyB)) return badRequest(reply, "PartyB");
    const callbackUrl = body["CallBackURL"];
    if (!isAcceptableCallbackUrl(callbackUrl, options.blockCallbackKeywords)) return badRequest(reply, "CallBackURL");
    const accountReference = text(body["AccountReference"]);
    if (!accountReference || accountReference.length > 12) return badRequest(reply, "AccountReference");
    const description = body["TransactionDesc"] === undefined ? "" : text(body["TransactionDesc"]);
    if (description === null || description.length > 13) return badRequest(reply, "TransactionDesc");

    const openPrompt = [...state.stkPayments.values()].some((p) => p.phone === phone && !p.settled);
    if (options.lockSubscriberWhilePending && openPrompt) return sendDarajaError(reply, 500, "500.001.1001", SUBSCRIBER_LOCKED);
    const outcome = chooseOutcome(amount, phone);
    if (outcome === "subscriber_locked") return sendDarajaError(reply, 500, "500.001.1001", SUBSCRIBER_LOCKED);
    const tillMismatch = transactionType === "CustomerBuyGoodsOnline" && options.tillNumber !== null && partyB !== options.tillNumber;
    const paybillMismatch = transactionType === "CustomerPayBillOnline" && partyB !== options.shortcode;
    const now = options.now();
    const payment: StkPayment = {
      merchantRequestId: newMerchantRequestId(),
      checkoutRequestId: newCheckoutRequestId(now),
      phone,
      amount,
      partyB,
      transactionType,
      callbackUrl,
      outcome,
      result: tillMismatch || paybillMismatch ? RESULT_NOT_PERMITTED : stkResultFor(outcome),
      createdAt: now,
      settled: false,
      receipt: null,
      settledAt: null,
    };
    state.stkPayments.set(payment.checkoutRequestId, payment);

    callbacks.later(async () => {
      settle(payment);
      if (outcome === "no_callback") return;
      await callbacks.deliver("stk", payment.callbackUrl, stkCallbackBody(payment));
      if (outcome === "duplicate_callback") await callbacks.deliver("stk", payment.callbackUrl, stkCallbackBody(payment));
    });

    return {
      MerchantRequestID: payment.merchantRequestId,
      CheckoutRequestID: payment.checkoutRequestId,
      ResponseCode: "0",
      ResponseDescription: "Success. Request accepted for processing",
      CustomerMessage: "Success. Request accepted for processing",
    };
  });

  app.post("/mpesa/stkpushquery/v1/query", async (request, reply) => {
    if (!requireAccessToken(request, reply, options, state)) return reply;
    const body = readJsonBody(request, reply, "BusinessShortCode");
    if (!body) return reply;
    const problem = credentialProblem(body);
    if (problem) return sendProblem(reply, problem);
    const checkoutRequestId = text(body["CheckoutRequestID"]);
    const payment = checkoutRequestId ? state.stkPayments.get(checkoutRequestId) : undefined;
    if (!checkoutRequestId || !payment) return badRequest(reply, "CheckoutRequestID");

    if (!payment.settled) {
      if (options.queryPendingMode === "classic") {
        // The classic pending answer carries the CheckoutRequestID as requestId (docs/daraja-wire-format.md#stk-query).
        return sendDarajaError(reply, 500, "500.001.1001", "The transaction is being processed", payment.checkoutRequestId);
      }
      return {
        ResponseCode: "0",
        ResponseDescription: "The service request has been accepted successfully",
        MerchantRequestID: payment.merchantRequestId,
        CheckoutRequestID: payment.checkoutRequestId,
        ResultCode: "4999",
        ResultDesc: "The transaction is still under processing",
      };
    }
    return {
      ResponseCode: "0",
      ResponseDescription: "The service request has been accepted successfully",
      MerchantRequestID: payment.merchantRequestId,
      CheckoutRequestID: payment.checkoutRequestId,
      ResultCode: String(payment.result.code),
      ResultDesc: payment.result.desc,
    };
  });
}
