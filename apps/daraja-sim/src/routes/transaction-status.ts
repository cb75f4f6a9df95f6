import type { FastifyInstance } from "fastify";
import { describeB2cPayout, describeC2bPayment, describeReversal, describeStkPayment, transactionStatusResultBody } from "../callback-bodies.js";
import type { QueriedTransaction } from "../callback-bodies.js";
import type { CallbackSender } from "../callback-sender.js";
import { badRequest, isAcceptableCallbackUrl, readJsonBody, requireAccessToken, text } from "../http.js";
import { initiatorIsValid, isWellFormedCredential } from "../initiator.js";
import type { ResolvedSimulatorOptions } from "../options.js";
import { RESULT_INITIATOR_INVALID, RESULT_SUCCESS } from "../outcomes.js";
import type { SimulatorState } from "../state.js";
import { newConversationId, newOriginatorConversationId } from "../wire.js";

export function registerTransactionStatusRoute(app: FastifyInstance, options: ResolvedSimulatorOptions, state: SimulatorState, callbacks: CallbackSender): void {
  /** Whether a reversal of this receipt went through (its payment then reads `Reversed`). */
  const reversedReceipt = (receipt: string) =>
    [...state.reversals.values()].some((r) => r.originalTransactionId === receipt && r.settled && (r.result.code === 0 || r.outcome === "unknown_result"));

  /** Finds the queried transaction again at answer time, so a payout that settled meanwhile shows its final state. */
  function describe(transactionId: string | null, originatorConversationId: string | null): (() => QueriedTransaction) | null {
    if (originatorConversationId) {
      const payout = state.b2cPayouts.get(originatorConversationId);
      if (payout && (!transactionId || payout.transactionId === transactionId)) return () => describeB2cPayout(payout, options.b2cShortcode);
      const reversal = state.reversals.get(originatorConversationId);
      if (reversal && (!transactionId || reversal.transactionId === transactionId)) return () => describeReversal(reversal);
    }
    if (transactionId) {
      const payout = [...state.b2cPayouts.values()].find((p) => p.transactionId === transactionId);
      if (payout) return () => describeB2cPayout(payout, options.b2cShortcode);
      const reversal = [...state.reversals.values()].find((r) => r.transactionId === transactionId && r.result.code === 0);
      if (reversal) return () => describeReversal(reversal);
      const payment = [...state.stkPayments.values()].find((p) => p.receipt === transactionId);
      if (payment) return () => describeStkPayment({ ...payment, receipt: transactionId }, options.shortcode, reversedReceipt(transactionId));
      const c2b = state.c2bPayments.get(transactionId);
      if (c2b) return () => describeC2bPayment(c2b, reversedReceipt(transactionId));
    }
    return null;
  }

  app.post("/mpesa/transactionstatus/v1/query", async (request, reply) => {
    if (!requireAccessToken(request, reply, options, state)) return reply;
    const body = readJsonBody(request, reply, "Initiator");
    if (!body) return reply;
    const initiator = text(body["Initiator"]);
    if (!initiator) return badRequest(reply, "Initiator");
    const credential = body["SecurityCredential"];
    if (!isWellFormedCredential(credential)) return badRequest(reply, "SecurityCredential");
    if (body["CommandID"] !== "TransactionStatusQuery") return badRequest(reply, "CommandID");
    // A payout is queried on the B2C short code, a reversal on the paybill or till it returned money from.
    const partyA = text(body["PartyA"]);
    if (!partyA || ![options.b2cShortcode, options.shortcode, options.tillNumber].includes(partyA)) return badRequest(reply, "PartyA");
    if (!["1", "2", "4"].includes(text(body["IdentifierType"]) ?? "")) return badRequest(reply, "IdentifierType");
    const resultUrl = body["ResultURL"];
    if (!isAcceptableCallbackUrl(resultUrl, options.blockCallbackKeywords)) return badRequest(reply, "ResultURL");
    if (!isAcceptableCallbackUrl(body["QueueTimeOutURL"], options.blockCallbackKeywords)) return badRequest(reply, "QueueTimeOutURL");
    if (!text(body["Remarks"])) return badRequest(reply, "Remarks");
    const transactionId = text(body["TransactionID"]) || null;
    const queriedOriginatorId = text(body["OriginatorConversationID"]) || null;
    const found = describe(transactionId, queriedOriginatorId);
    if (!found) return badRequest(reply, "TransactionID");

    const query = {
      originatorConversationId: newOriginatorConversationId(),
      conversationId: newConversationId(options.now()),
      occasion: text(body["Occasion"] ?? body["Occassion"]) || null,
    };
    const result = initiatorIsValid(options, initiator, credential) ? RESULT_SUCCESS : RESULT_INITIATOR_INVALID;
    callbacks.later(() => callbacks.deliver("transaction_status", resultUrl, transactionStatusResultBody(query, result, found())));
    return {
      ConversationID: query.conversationId,
      OriginatorConversationID: query.originatorConversationId,
      ResponseCode: "0",
      ResponseDescription: "Accept the service request successfully.",
    };
  });
}
