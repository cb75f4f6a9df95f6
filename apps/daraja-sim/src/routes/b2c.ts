import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { b2cResultBody, b2cTimeoutBody } from "../callback-bodies.js";
import type { CallbackSender } from "../callback-sender.js";
import { invalidField, isAcceptableCallbackUrl, readJsonBody, requireAccessToken, sendDarajaError, sendProblem, text, wholeAmount } from "../http.js";
import type { DarajaProblem, JsonBody } from "../http.js";
import { initiatorIsValid, isWellFormedCredential } from "../initiator.js";
import type { ResolvedSimulatorOptions } from "../options.js";
import {
  B2C_MAGIC_AMOUNTS,
  B2C_OUTCOMES,
  B2C_TIMEOUT_RESULT,
  b2cResultFor,
  RESULT_ABOVE_MAXIMUM,
  RESULT_BELOW_MINIMUM,
  RESULT_INITIATOR_INVALID,
} from "../outcomes.js";
import type { ResultCodeText, SimOutcome } from "../outcomes.js";
import { takeQueuedOutcome } from "../state.js";
import type { B2cPayout, SimulatorState } from "../state.js";
import { MSISDN, newConversationId, newOriginatorConversationId, newReceipt } from "../wire.js";

const COMMAND_IDS = new Set(["BusinessPayment", "SalaryPayment", "PromotionPayment"]);
const B2C_AMOUNT_MIN = 10;
const B2C_AMOUNT_MAX = 250_000;

interface B2cRequest {
  originatorConversationId: string | null;
  initiatorName: string;
  securityCredential: string;
  commandId: string;
  amount: number;
  phone: string;
  resultUrl: string;
  queueTimeoutUrl: string;
  occasion: string | null;
}

export function registerB2cRoutes(app: FastifyInstance, options: ResolvedSimulatorOptions, state: SimulatorState, callbacks: CallbackSender): void {
  function validate(body: JsonBody, requireOriginatorId: boolean): B2cRequest | DarajaProblem {
    const initiatorName = text(body["InitiatorName"]);
    if (!initiatorName) return invalidField("InitiatorName");
    const securityCredential = body["SecurityCredential"];
    if (!isWellFormedCredential(securityCredential)) return invalidField("SecurityCredential");
    const commandId = text(body["CommandID"]);
    if (!commandId || !COMMAND_IDS.has(commandId)) return invalidField("CommandID");
    const amount = wholeAmount(body["Amount"]);
    if (amount === null) return invalidField("Amount");
    if (text(body["PartyA"]) !== options.b2cShortcode) return invalidField("PartyA");
    const phone = text(body["PartyB"]);
    if (!phone || !MSISDN.test(phone)) return invalidField("PartyB");
    const remarks = text(body["Remarks"]);
    if (!remarks || remarks.length < 2 || remarks.length > 100) return invalidField("Remarks");
    const queueTimeoutUrl = body["QueueTimeOutURL"];
    if (!isAcceptableCallbackUrl(queueTimeoutUrl, options.blockCallbackKeywords)) return invalidField("QueueTimeOutURL");
    const resultUrl = body["ResultURL"];
    if (!isAcceptableCallbackUrl(resultUrl, options.blockCallbackKeywords)) return invalidField("ResultURL");
    // The v3 documentation spells it "Occassion"; older clients send "Occasion". Both are accepted.
    const occasionField = body["Occassion"] !== undefined ? "Occassion" : "Occasion";
    const occasion = body[occasionField] === undefined ? null : text(body[occasionField]);
    if (occasion !== null && occasion.length > 100) return invalidField(occasionField);
    const originatorConversationId = body["OriginatorConversationID"] === undefined ? null : text(body["OriginatorConversationID"]);
    if ((requireOriginatorId || body["OriginatorConversationID"] !== undefined) && !originatorConversationId) return invalidField("OriginatorConversationID");
    return { originatorConversationId, initiatorName, securityCredential, commandId, amount, phone, resultUrl, queueTimeoutUrl, occasion };
  }

  function resultFor(request: B2cRequest, outcome: SimOutcome): ResultCodeText {
    if (!initiatorIsValid(options, request.initiatorName, request.securityCredential)) return RESULT_INITIATOR_INVALID;
    if (request.amount < B2C_AMOUNT_MIN) return RESULT_BELOW_MINIMUM;
    if (request.amount > B2C_AMOUNT_MAX) return RESULT_ABOVE_MAXIMUM;
    return b2cResultFor(outcome);
  }

  function deliverOutcome(payout: B2cPayout): Promise<void> | void {
    payout.settled = true;
    payout.settledAt = options.now();
    if (payout.result.code === 0) state.utilityBalance = Math.round((state.utilityBalance - payout.amount) * 100) / 100;
    switch (payout.outcome) {
      case "no_callback":
        return;
      case "timeout":
        // The money moved; only the notice of it was lost. A Transaction Status query tells the truth.
        return callbacks.deliver("b2c_timeout", payout.queueTimeoutUrl, b2cTimeoutBody(payout, B2C_TIMEOUT_RESULT));
      case "duplicate_callback":
        return callbacks
          .deliver("b2c_result", payout.resultUrl, b2cResultBody(payout, state.utilityBalance))
          .then(() => callbacks.deliver("b2c_result", payout.resultUrl, b2cResultBody(payout, state.utilityBalance)));
      default:
        return callbacks.deliver("b2c_result", payout.resultUrl, b2cResultBody(payout, state.utilityBalance));
    }
  }

  function handler(requireOriginatorId: boolean) {
    return async (request: FastifyRequest, reply: FastifyReply) => {
      if (!requireAccessToken(request, reply, options, state)) return reply;
      const body = readJsonBody(request, reply, "InitiatorName");
      if (!body) return reply;
      const validated = validate(body, requireOriginatorId);
      if ("errorCode" in validated) return sendProblem(reply, validated);
      const originatorConversationId = validated.originatorConversationId ?? newOriginatorConversationId();
      if (state.b2cPayouts.has(originatorConversationId)) {
        return sendDarajaError(reply, 500, "500.002.1001", "Duplicate OriginatorConversationID.");
      }
      const outcome = takeQueuedOutcome(state, "b2c", validated.phone, B2C_OUTCOMES) ?? B2C_MAGIC_AMOUNTS[validated.amount] ?? "success";
      const now = options.now();
      const payout: B2cPayout = {
        originatorConversationId,
        conversationId: newConversationId(now),
        transactionId: newReceipt(),
        phone: validated.phone,
        amount: validated.amount,
        commandId: validated.commandId,
        outcome,
        result: resultFor(validated, outcome),
        resultUrl: validated.resultUrl,
        queueTimeoutUrl: validated.queueTimeoutUrl,
        occasion: validated.occasion,
        createdAt: now,
        settled: false,
        settledAt: null,
      };
      state.b2cPayouts.set(originatorConversationId, payout);
      callbacks.later(() => deliverOutcome(payout));
      return {
        ConversationID: payout.conversationId,
        OriginatorConversationID: payout.originatorConversationId,
        ResponseCode: "0",
        ResponseDescription: "Accept the service request successfully.",
      };
    };
  }

  // v1 predates OriginatorConversationID in the request; the simulator generates one when absent.
  app.post("/mpesa/b2c/v1/paymentrequest", handler(false));
  app.post("/mpesa/b2c/v3/paymentrequest", handler(true));
}
