/**
 * Transaction Status queries (docs/daraja-simulator.md#transaction-status): a payout or a reversal by
 * its OriginatorConversationID, or any transaction the simulator knows by its receipt (a payout, a
 * reversal, an STK payment, a C2B payment). The Result describes it as it stands when the Result is
 * sent, so a payout that settled meanwhile shows its final state.
 */
import { accepted, invalidField, type DarajaAnswer, type JsonBody } from "./answers.js";
import {
  describeB2cPayout,
  describeC2bPayment,
  describeReversal,
  describeStkPayment,
  transactionStatusResultBody,
} from "./callback-bodies.js";
import type { QueriedTransaction } from "./callback-bodies.js";
import type { SimulationContext } from "./context.js";
import { isAcceptableCallbackUrl, text } from "./fields.js";
import { initiatorIsValid, isWellFormedCredential } from "./initiator.js";
import { RESULT_INITIATOR_INVALID, RESULT_SUCCESS } from "./outcomes.js";
import { isReversed } from "./reversal.js";
import type { SimRecordKind } from "./records.js";
import { newConversationId, newOriginatorConversationId } from "./wire.js";
import { simulatedApi } from "./api.js";

/** The transaction a query names: read again when the Result is sent. */
interface Queried {
  kind: Extract<SimRecordKind, "stk" | "b2c" | "reversal" | "c2b">;
  id: string;
}

export type TransactionStatusOperation = (body: JsonBody) => Promise<DarajaAnswer>;

export function createTransactionStatusOperation(context: SimulationContext): TransactionStatusOperation {
  const { options, records, callbacks } = context;

  async function find(transactionId: string | null, originatorConversationId: string | null): Promise<Queried | null> {
    if (originatorConversationId) {
      const payout = await records.get("b2c", originatorConversationId);
      if (payout && (!transactionId || payout.transactionId === transactionId))
        return { kind: "b2c", id: originatorConversationId };
      const reversal = await records.get("reversal", originatorConversationId);
      if (reversal && (!transactionId || reversal.transactionId === transactionId))
        return { kind: "reversal", id: originatorConversationId };
    }
    if (!transactionId) return null;
    const [payout] = await records.find("b2c", { receipt: transactionId });
    if (payout) return { kind: "b2c", id: payout.originatorConversationId };
    const reversal = (await records.find("reversal", { receipt: transactionId })).find((r) => r.result.code === 0);
    if (reversal) return { kind: "reversal", id: reversal.originatorConversationId };
    const [payment] = await records.find("stk", { receipt: transactionId });
    if (payment) return { kind: "stk", id: payment.checkoutRequestId };
    const c2b = await records.get("c2b", transactionId);
    return c2b?.completed ? { kind: "c2b", id: transactionId } : null;
  }

  async function describe(queried: Queried): Promise<QueriedTransaction | null> {
    switch (queried.kind) {
      case "b2c": {
        const payout = await records.get("b2c", queried.id);
        return payout && describeB2cPayout(payout, options.b2cShortcode);
      }
      case "reversal": {
        const reversal = await records.get("reversal", queried.id);
        return reversal && describeReversal(reversal);
      }
      case "stk": {
        const payment = await records.get("stk", queried.id);
        if (!payment?.receipt) return null;
        return describeStkPayment(
          { ...payment, receipt: payment.receipt },
          options.shortcode,
          await isReversed(records, payment.receipt),
        );
      }
      case "c2b": {
        const payment = await records.get("c2b", queried.id);
        return payment && describeC2bPayment(payment, await isReversed(records, payment.transId));
      }
    }
  }

  return async (body) => {
    const initiator = text(body["Initiator"]);
    if (!initiator) return invalidField("Initiator");
    const credential = body["SecurityCredential"];
    if (!isWellFormedCredential(credential)) return invalidField("SecurityCredential");
    if (body["CommandID"] !== "TransactionStatusQuery") return invalidField("CommandID");
    // A payout is queried on the B2C short code, a reversal on the paybill or till it returned money from.
    const partyA = text(body["PartyA"]);
    if (!partyA || ![options.b2cShortcode, options.shortcode, options.tillNumber].includes(partyA))
      return invalidField("PartyA");
    if (!["1", "2", "4"].includes(text(body["IdentifierType"]) ?? "")) return invalidField("IdentifierType");
    const resultUrl = body["ResultURL"];
    if (!isAcceptableCallbackUrl(resultUrl, options.blockCallbackKeywords)) return invalidField("ResultURL");
    if (!isAcceptableCallbackUrl(body["QueueTimeOutURL"], options.blockCallbackKeywords))
      return invalidField("QueueTimeOutURL");
    if (!text(body["Remarks"])) return invalidField("Remarks");
    const transactionId = text(body["TransactionID"]) || null;
    const queried = await find(transactionId, text(body["OriginatorConversationID"]) || null);
    if (!queried) return invalidField("TransactionID");

    const query = {
      originatorConversationId: newOriginatorConversationId(),
      conversationId: newConversationId(options.now()),
      occasion: text(body["Occasion"] ?? body["Occassion"]) || null,
    };
    const result = initiatorIsValid(options, initiator, credential) ? RESULT_SUCCESS : RESULT_INITIATOR_INVALID;
    callbacks.later(async () => {
      const transaction = await describe(queried);
      await callbacks.deliver("transaction_status", resultUrl, transactionStatusResultBody(query, result, transaction));
    });
    return accepted({
      ConversationID: query.conversationId,
      OriginatorConversationID: query.originatorConversationId,
      ResponseCode: "0",
      ResponseDescription: "Accept the service request successfully.",
    });
  };
}

/** Transaction Status: POST /mpesa/transactionstatus/v1/query, its Result by callback. */
export const transactionStatusApi = simulatedApi({
  endpoints: [
    {
      path: "/mpesa/transactionstatus/v1/query",
      operation: "transactionstatus",
      firstField: "Initiator",
      create: (context) => ({ answer: createTransactionStatusOperation(context) }),
    },
  ],
  callbackKinds: ["transaction_status"],
});
