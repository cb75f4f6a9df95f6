/**
 * B2C payment requests, v1 and v3 (docs/daraja-simulator.md#outcomes): checks the request as Daraja does,
 * refuses a repeated OriginatorConversationID, decides the outcome, and after the callback delay
 * moves the money and POSTs the Result (or the time-out, or nothing, or the Result twice).
 */
import { accepted, darajaError, invalidField, type DarajaAnswer, type JsonBody } from "./answers.js";
import { b2cResultBody, b2cTimeoutBody } from "./callback-bodies.js";
import type { SimulationContext } from "./context.js";
import { isAcceptableCallbackUrl, text, wholeAmount } from "./fields.js";
import { initiatorIsValid, isWellFormedCredential } from "./initiator.js";
import {
  B2C_MAGIC_AMOUNTS,
  B2C_OUTCOMES,
  B2C_TIMEOUT_RESULT,
  b2cResultFor,
  RESULT_ABOVE_MAXIMUM,
  RESULT_BELOW_MINIMUM,
  RESULT_INITIATOR_INVALID,
} from "./outcomes.js";
import type { ResultCodeText, SimOutcome } from "./outcomes.js";
import type { B2cPayout } from "./records.js";
import { MSISDN, newConversationId, newOriginatorConversationId, newReceipt } from "./wire.js";
import { simulatedApi } from "./api.js";

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

/** The path version: v1 predates OriginatorConversationID in the request (generated when absent), v3 requires it. */
export type B2cVersion = "v1" | "v3";

const duplicate = () => darajaError(500, "500.002.1001", "Duplicate OriginatorConversationID.");

export type B2cOperation = (body: JsonBody, version: B2cVersion) => Promise<DarajaAnswer>;

export function createB2cOperation(context: SimulationContext): B2cOperation {
  const { options, records, callbacks } = context;

  function validate(body: JsonBody, requireOriginatorId: boolean): B2cRequest | DarajaAnswer {
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
    if (!isAcceptableCallbackUrl(queueTimeoutUrl, options.blockCallbackKeywords))
      return invalidField("QueueTimeOutURL");
    const resultUrl = body["ResultURL"];
    if (!isAcceptableCallbackUrl(resultUrl, options.blockCallbackKeywords)) return invalidField("ResultURL");
    // The v3 documentation spells it "Occassion"; older clients send "Occasion". Both are accepted.
    const occasionField = body["Occassion"] !== undefined ? "Occassion" : "Occasion";
    const occasion = body[occasionField] === undefined ? null : text(body[occasionField]);
    if (occasion !== null && occasion.length > 100) return invalidField(occasionField);
    const originatorConversationId =
      body["OriginatorConversationID"] === undefined ? null : text(body["OriginatorConversationID"]);
    const originatorIdGiven = requireOriginatorId || body["OriginatorConversationID"] !== undefined;
    if (originatorIdGiven && !originatorConversationId) return invalidField("OriginatorConversationID");
    return {
      originatorConversationId,
      initiatorName,
      securityCredential,
      commandId,
      amount,
      phone,
      resultUrl,
      queueTimeoutUrl,
      occasion,
    };
  }

  function resultFor(request: B2cRequest, outcome: SimOutcome): ResultCodeText {
    if (!initiatorIsValid(options, request.initiatorName, request.securityCredential)) return RESULT_INITIATOR_INVALID;
    if (request.amount < B2C_AMOUNT_MIN) return RESULT_BELOW_MINIMUM;
    if (request.amount > B2C_AMOUNT_MAX) return RESULT_ABOVE_MAXIMUM;
    return b2cResultFor(outcome);
  }

  async function deliverOutcome(payout: B2cPayout): Promise<void> {
    const done: B2cPayout = { ...payout, settled: true, settledAt: options.now().toISOString() };
    await records.put(done);
    const balance = await context.balance(done.result.code === 0 ? -done.amount : 0);
    switch (done.outcome) {
      case "no_callback":
        return;
      case "timeout":
        // The money moved; only the notice of it was lost. A Transaction Status query tells the truth.
        return callbacks.deliver("b2c_timeout", done.queueTimeoutUrl, b2cTimeoutBody(done, B2C_TIMEOUT_RESULT));
      case "duplicate_callback":
        await callbacks.deliver("b2c_result", done.resultUrl, b2cResultBody(done, balance));
        return callbacks.deliver("b2c_result", done.resultUrl, b2cResultBody(done, balance));
      default:
        return callbacks.deliver("b2c_result", done.resultUrl, b2cResultBody(done, balance));
    }
  }

  return async (body, version) => {
    const validated = validate(body, version === "v3");
    if ("status" in validated) return validated;
    const originatorConversationId = validated.originatorConversationId ?? newOriginatorConversationId();
    if (await records.get("b2c", originatorConversationId)) return duplicate();
    const now = options.now();
    const outcome =
      context.chooseOutcome("b2c", validated.phone, B2C_OUTCOMES) ?? B2C_MAGIC_AMOUNTS[validated.amount] ?? "success";
    const payout: B2cPayout = {
      kind: "b2c",
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
      createdAt: now.toISOString(),
      settled: false,
      settledAt: null,
    };
    // Two requests with one id at once: the store keeps the first.
    if (!(await records.add(payout))) return duplicate();
    callbacks.later(() => deliverOutcome(payout));
    return accepted({
      ConversationID: payout.conversationId,
      OriginatorConversationID: payout.originatorConversationId,
      ResponseCode: "0",
      ResponseDescription: "Accept the service request successfully.",
    });
  };
}

/** B2C payments, v1 and v3 (v1 predates OriginatorConversationID: generated when absent). */
export const b2cApi = simulatedApi({
  endpoints: (["v1", "v3"] as const).map((version) => ({
    path: `/mpesa/b2c/${version}/paymentrequest`,
    operation: "b2c" as const,
    firstField: "InitiatorName",
    create: (context: SimulationContext) => {
      const pay = createB2cOperation(context);
      return { answer: (body: JsonBody) => pay(body, version) };
    },
  })),
  callbackKinds: ["b2c_result", "b2c_timeout"],
  outcomes: "b2c",
});
