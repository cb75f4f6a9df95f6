/**
 * POST /mpesa/reversal/v1/request (docs/daraja-simulator.md#reversals): checks the request as Daraja
 * does (the misspelled RecieverIdentifierType = 11, CommandID TransactionReversal, Remarks 2-100,
 * the callback URLs), answers with both ids, then sends exactly one Result: reversed (0), the receipt
 * unknown (R000002), already reversed (R000001), a wrong initiator (2001), or what a magic amount or
 * a queued outcome chooses, including a time-out (only the QueueTimeOutURL is called) and silence.
 */
import type { FastifyInstance } from "fastify";
import { reversalResultBody, reversalTimeoutBody, simCustomerParty } from "../callback-bodies.js";
import type { CallbackSender } from "../callback-sender.js";
import { badRequest, isAcceptableCallbackUrl, readJsonBody, requireAccessToken, text, wholeAmount } from "../http.js";
import { initiatorIsValid, isWellFormedCredential } from "../initiator.js";
import type { ResolvedSimulatorOptions } from "../options.js";
import {
  RESULT_INITIATOR_INVALID,
  REVERSAL_ALREADY_REVERSED,
  REVERSAL_MAGIC_AMOUNTS,
  REVERSAL_OUTCOMES,
  REVERSAL_TIMEOUT_RESULT,
  REVERSAL_UNKNOWN_RECEIPT,
  reversalResultFor,
} from "../outcomes.js";
import type { ResultCodeText } from "../outcomes.js";
import { takeQueuedOutcome } from "../state.js";
import type { SimReversal, SimulatorState } from "../state.js";
import { newConversationId, newOriginatorConversationId, newReceipt } from "../wire.js";

/** The payment a receipt names, as the simulator knows it (STK payments it settled successfully, completed C2B payments). */
function paidBy(state: SimulatorState, receipt: string): { phone: string } | null {
  const c2b = state.c2bPayments.get(receipt);
  if (c2b) return { phone: c2b.phone };
  for (const payment of state.stkPayments.values()) {
    if (payment.receipt === receipt && payment.result.code === 0) return { phone: payment.phone };
  }
  return null;
}

function alreadyReversed(state: SimulatorState, receipt: string): boolean {
  return [...state.reversals.values()].some((r) => r.originalTransactionId === receipt && r.settled && (r.result.code === 0 || r.outcome === "unknown_result"));
}

export function registerReversalRoute(app: FastifyInstance, options: ResolvedSimulatorOptions, state: SimulatorState, callbacks: CallbackSender): void {
  function deliverOutcome(reversal: SimReversal): Promise<void> | void {
    reversal.settled = true;
    reversal.settledAt = options.now();
    if (reversal.result.code === 0) state.utilityBalance = Math.round((state.utilityBalance - reversal.amount) * 100) / 100;
    switch (reversal.outcome) {
      case "no_callback":
        return;
      case "timeout":
        // The money moved; only the notice of it was lost. A Transaction Status query tells the truth.
        return callbacks.deliver("reversal_timeout", reversal.queueTimeoutUrl, reversalTimeoutBody(reversal, REVERSAL_TIMEOUT_RESULT));
      case "duplicate_callback":
        return callbacks
          .deliver("reversal_result", reversal.resultUrl, reversalResultBody(reversal, state.utilityBalance))
          .then(() => callbacks.deliver("reversal_result", reversal.resultUrl, reversalResultBody(reversal, state.utilityBalance)));
      default:
        return callbacks.deliver("reversal_result", reversal.resultUrl, reversalResultBody(reversal, state.utilityBalance));
    }
  }

  app.post("/mpesa/reversal/v1/request", async (request, reply) => {
    if (!requireAccessToken(request, reply, options, state)) return reply;
    const body = readJsonBody(request, reply, "Initiator");
    if (!body) return reply;
    const initiator = text(body["Initiator"]);
    if (!initiator) return badRequest(reply, "Initiator");
    const credential = body["SecurityCredential"];
    if (!isWellFormedCredential(credential)) return badRequest(reply, "SecurityCredential");
    if (body["CommandID"] !== "TransactionReversal") return badRequest(reply, "CommandID");
    const receipt = text(body["TransactionID"]);
    if (!receipt) return badRequest(reply, "TransactionID");
    const amount = wholeAmount(body["Amount"]);
    if (amount === null) return badRequest(reply, "Amount");
    const receiverParty = text(body["ReceiverParty"]);
    if (!receiverParty || ![options.shortcode, options.tillNumber].includes(receiverParty)) return badRequest(reply, "ReceiverParty");
    // Daraja reads the misspelled key only; 11 as a string or a number.
    if (text(body["RecieverIdentifierType"]) !== "11") return badRequest(reply, "RecieverIdentifierType");
    const remarks = text(body["Remarks"]);
    if (!remarks || remarks.length < 2 || remarks.length > 100) return badRequest(reply, "Remarks");
    const resultUrl = body["ResultURL"];
    if (!isAcceptableCallbackUrl(resultUrl, options.blockCallbackKeywords)) return badRequest(reply, "ResultURL");
    const queueTimeoutUrl = body["QueueTimeOutURL"];
    if (!isAcceptableCallbackUrl(queueTimeoutUrl, options.blockCallbackKeywords)) return badRequest(reply, "QueueTimeOutURL");

    const paid = paidBy(state, receipt);
    const outcome = takeQueuedOutcome(state, "reversal", paid?.phone ?? "", REVERSAL_OUTCOMES) ?? REVERSAL_MAGIC_AMOUNTS[amount] ?? "success";
    const result: ResultCodeText = !initiatorIsValid(options, initiator, credential)
      ? RESULT_INITIATOR_INVALID
      : !paid
        ? REVERSAL_UNKNOWN_RECEIPT
        : alreadyReversed(state, receipt)
          ? REVERSAL_ALREADY_REVERSED
          : reversalResultFor(outcome);
    const now = options.now();
    const reversal: SimReversal = {
      originatorConversationId: newOriginatorConversationId(),
      conversationId: newConversationId(now),
      transactionId: newReceipt(),
      originalTransactionId: receipt,
      amount,
      creditParty: simCustomerParty(paid?.phone ?? "254700000000"),
      receiverParty,
      // A refusal is reported in a Result whatever the amount chose.
      outcome: result === RESULT_INITIATOR_INVALID || result === REVERSAL_UNKNOWN_RECEIPT || result === REVERSAL_ALREADY_REVERSED ? "success" : outcome,
      result,
      resultUrl,
      queueTimeoutUrl,
      createdAt: now,
      settled: false,
      settledAt: null,
    };
    state.reversals.set(reversal.originatorConversationId, reversal);
    callbacks.later(() => deliverOutcome(reversal));
    return {
      OriginatorConversationID: reversal.originatorConversationId,
      ConversationID: reversal.conversationId,
      ResponseCode: "0",
      ResponseDescription: "Accept the service request successfully.",
    };
  });
}
