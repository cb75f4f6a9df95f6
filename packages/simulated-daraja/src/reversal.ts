/**
 * Reversal requests (docs/daraja-simulator.md#reversals): checks the request as Daraja does (the
 * misspelled RecieverIdentifierType = 11, CommandID TransactionReversal, Remarks 2-100, the callback
 * URLs), answers with both ids, then sends exactly one Result: reversed (0), the receipt unknown
 * (R000002), already reversed (R000001), a wrong initiator (2001), or what a magic amount or a queued
 * outcome chooses, including a time-out (only the QueueTimeOutURL is called) and silence.
 */
import { accepted, invalidField, type DarajaAnswer, type JsonBody } from "./answers.js";
import { reversalResultBody, reversalTimeoutBody, simCustomerParty } from "./callback-bodies.js";
import type { SimulationContext } from "./context.js";
import { isAcceptableCallbackUrl, text, wholeAmount } from "./fields.js";
import { initiatorIsValid, isWellFormedCredential } from "./initiator.js";
import {
  RESULT_INITIATOR_INVALID,
  REVERSAL_ALREADY_REVERSED,
  REVERSAL_MAGIC_AMOUNTS,
  REVERSAL_OUTCOMES,
  REVERSAL_TIMEOUT_RESULT,
  REVERSAL_UNKNOWN_RECEIPT,
  reversalResultFor,
} from "./outcomes.js";
import type { ResultCodeText } from "./outcomes.js";
import type { Records, SimReversal } from "./records.js";
import { newConversationId, newOriginatorConversationId, newReceipt } from "./wire.js";
import { simulatedApi } from "./api.js";

/** The payment a receipt names, as the simulator knows it (STK payments settled successfully, completed C2B ones). */
async function paidBy(records: Records, receipt: string): Promise<{ phone: string } | null> {
  const c2b = await records.get("c2b", receipt);
  if (c2b?.completed) return { phone: c2b.phone };
  const payment = (await records.find("stk", { receipt })).find((stk) => stk.result.code === 0);
  return payment ? { phone: payment.phone } : null;
}

/** A reversal that went through (or whose result no one can read): the receipt it names is reversed. */
export const reversalWentThrough = (reversal: SimReversal) =>
  reversal.settled && (reversal.result.code === 0 || reversal.outcome === "unknown_result");

/** Whether a reversal of this receipt went through (its payment then reads `Reversed`). */
export async function isReversed(records: Records, receipt: string): Promise<boolean> {
  return (await records.find("reversal", { reverses: receipt })).some(reversalWentThrough);
}

export type ReversalOperation = (body: JsonBody) => Promise<DarajaAnswer>;

export function createReversalOperation(context: SimulationContext): ReversalOperation {
  const { options, records, callbacks } = context;

  async function deliverOutcome(reversal: SimReversal): Promise<void> {
    const done: SimReversal = { ...reversal, settled: true, settledAt: options.now().toISOString() };
    await records.put(done);
    const balance = await context.balance(done.result.code === 0 ? -done.amount : 0);
    switch (done.outcome) {
      case "no_callback":
        return;
      case "timeout":
        // The money moved; only the notice of it was lost. A Transaction Status query tells the truth.
        return callbacks.deliver(
          "reversal_timeout",
          done.queueTimeoutUrl,
          reversalTimeoutBody(done, REVERSAL_TIMEOUT_RESULT),
        );
      case "duplicate_callback":
        await callbacks.deliver("reversal_result", done.resultUrl, reversalResultBody(done, balance));
        return callbacks.deliver("reversal_result", done.resultUrl, reversalResultBody(done, balance));
      default:
        return callbacks.deliver("reversal_result", done.resultUrl, reversalResultBody(done, balance));
    }
  }

  return async (body) => {
    const initiator = text(body["Initiator"]);
    if (!initiator) return invalidField("Initiator");
    const credential = body["SecurityCredential"];
    if (!isWellFormedCredential(credential)) return invalidField("SecurityCredential");
    if (body["CommandID"] !== "TransactionReversal") return invalidField("CommandID");
    const receipt = text(body["TransactionID"]);
    if (!receipt) return invalidField("TransactionID");
    const amount = wholeAmount(body["Amount"]);
    if (amount === null) return invalidField("Amount");
    const receiverParty = text(body["ReceiverParty"]);
    if (!receiverParty || ![options.shortcode, options.tillNumber].includes(receiverParty))
      return invalidField("ReceiverParty");
    // Daraja reads the misspelled key only; 11 as a string or a number.
    if (text(body["RecieverIdentifierType"]) !== "11") return invalidField("RecieverIdentifierType");
    const remarks = text(body["Remarks"]);
    if (!remarks || remarks.length < 2 || remarks.length > 100) return invalidField("Remarks");
    const resultUrl = body["ResultURL"];
    if (!isAcceptableCallbackUrl(resultUrl, options.blockCallbackKeywords)) return invalidField("ResultURL");
    const queueTimeoutUrl = body["QueueTimeOutURL"];
    if (!isAcceptableCallbackUrl(queueTimeoutUrl, options.blockCallbackKeywords))
      return invalidField("QueueTimeOutURL");

    const paid = await paidBy(records, receipt);
    const outcome =
      context.chooseOutcome("reversal", paid?.phone ?? "", REVERSAL_OUTCOMES) ??
      REVERSAL_MAGIC_AMOUNTS[amount] ??
      "success";
    const result: ResultCodeText = !initiatorIsValid(options, initiator, credential)
      ? RESULT_INITIATOR_INVALID
      : !paid
        ? REVERSAL_UNKNOWN_RECEIPT
        : (await isReversed(records, receipt))
          ? REVERSAL_ALREADY_REVERSED
          : reversalResultFor(outcome);
    const refused =
      result === RESULT_INITIATOR_INVALID ||
      result === REVERSAL_UNKNOWN_RECEIPT ||
      result === REVERSAL_ALREADY_REVERSED;
    const now = options.now();
    const reversal: SimReversal = {
      kind: "reversal",
      originatorConversationId: newOriginatorConversationId(),
      conversationId: newConversationId(now),
      transactionId: newReceipt(),
      originalTransactionId: receipt,
      amount,
      creditParty: simCustomerParty(paid?.phone ?? "254700000000"),
      receiverParty,
      // A refusal is reported in a Result whatever the amount chose.
      outcome: refused ? "success" : outcome,
      result,
      resultUrl,
      queueTimeoutUrl,
      createdAt: now.toISOString(),
      settled: false,
      settledAt: null,
    };
    await records.add(reversal);
    callbacks.later(() => deliverOutcome(reversal));
    return accepted({
      OriginatorConversationID: reversal.originatorConversationId,
      ConversationID: reversal.conversationId,
      ResponseCode: "0",
      ResponseDescription: "Accept the service request successfully.",
    });
  };
}

/** Reversals: POST /mpesa/reversal/v1/request, its Result or time-out by callback. */
export const reversalApi = simulatedApi({
  endpoints: [
    {
      path: "/mpesa/reversal/v1/request",
      operation: "reversal",
      firstField: "Initiator",
      create: (context) => ({ answer: createReversalOperation(context) }),
    },
  ],
  callbackKinds: ["reversal_result", "reversal_timeout"],
  outcomes: "reversal",
});
