/**
 * Account Balance requests (docs/daraja-simulator.md#account-balance): checks the request as Daraja
 * does (Initiator and SecurityCredential, CommandID AccountBalance, the organisation's own short code
 * as PartyA with IdentifierType 4, Remarks up to 100 characters, the callback URLs), answers with fresh
 * ids, then posts one Result: the balances of the simulation's ledger (the Utility Account moves with
 * its payouts and reversals), or 2001 for a wrong initiator. A chosen outcome (api "balance") sends a
 * time-out notice instead (QueueTimeOutURL only), nothing, or the Result twice.
 */
import { ACCOUNT_BALANCE_PATH } from "@mteja/daraja";
import { accepted, invalidField, type DarajaAnswer, type JsonBody } from "./answers.js";
import type { SimulationContext } from "./context.js";
import { isAcceptableCallbackUrl, text } from "./fields.js";
import { initiatorIsValid, isWellFormedCredential } from "./initiator.js";
import {
  RESULT_INITIATOR_INVALID,
  RESULT_SUCCESS,
  REVERSAL_TIMEOUT_RESULT,
  type ResultCodeText,
  type SimOutcome,
} from "./outcomes.js";
import { eatTimestamp, newConversationId, newOriginatorConversationId } from "./wire.js";
import { simulatedApi } from "./api.js";

/** An Account Balance request, until its Result (or time-out notice) is sent. */
interface BalanceQuery {
  originatorConversationId: string;
  conversationId: string;
  result: ResultCodeText;
  outcome: SimOutcome;
  resultUrl: string;
  queueTimeoutUrl: string;
}

/** What a queued outcome may make of an Account Balance request; every other one is the Result. */
const BALANCE_OUTCOMES: readonly SimOutcome[] = ["success", "timeout", "no_callback", "duplicate_callback"];

/** An Account Balance time-out notice: no portal sample, the shape of a reversal's. */
const BALANCE_TIMEOUT_RESULT: ResultCodeText = REVERSAL_TIMEOUT_RESULT;

/** The simulation's accounts besides the Utility Account. */
const WORKING_ACCOUNT = 1_199_371.0;
const CHARGES_PAID_ACCOUNT = -1980.0;

const balanceEntry = (name: string, amount: number) => {
  const value = amount.toFixed(2);
  return `${name}|KES|${value}|${value}|0.00|0.00`;
};

/**
 * The portal's Account Balance Result: the accounts as one `&`-joined string of
 * `Name|KES|current|available|reserved|uncleared`, and BOCompletedTime as a number (as the sandbox
 * sends it); a failure carries no parameters.
 */
function resultBody(query: BalanceQuery, utilityBalance: number, at: Date): unknown {
  const result: Record<string, unknown> = {
    ResultType: 0,
    ResultCode: query.result.code,
    ResultDesc: query.result.desc,
    OriginatorConversationID: query.originatorConversationId,
    ConversationID: query.conversationId,
    TransactionID: "OA90000000",
  };
  if (query.result.code === 0) {
    const balance = [
      balanceEntry("Working Account", WORKING_ACCOUNT),
      balanceEntry("Float Account", 0),
      balanceEntry("Utility Account", utilityBalance),
      balanceEntry("Charges Paid Account", CHARGES_PAID_ACCOUNT),
      balanceEntry("Organization Settlement Account", 0),
    ].join("&");
    result["ResultParameters"] = {
      ResultParameter: [
        { Key: "AccountBalance", Value: balance },
        { Key: "BOCompletedTime", Value: Number(eatTimestamp(at)) },
      ],
    };
  }
  result["ReferenceData"] = { ReferenceItem: { Key: "QueueTimeoutURL", Value: query.queueTimeoutUrl } };
  return { Result: result };
}

/** A time-out notice, to the QueueTimeOutURL: the ids, no parameters. */
function timeoutBody(query: BalanceQuery): unknown {
  const { code, desc } = BALANCE_TIMEOUT_RESULT;
  const ids = { OriginatorConversationID: query.originatorConversationId, ConversationID: query.conversationId };
  return { Result: { ResultType: 1, ResultCode: code, ResultDesc: desc, ...ids } };
}

export type AccountBalanceOperation = (body: JsonBody) => Promise<DarajaAnswer>;

export function createAccountBalanceOperation(context: SimulationContext): AccountBalanceOperation {
  const { options, callbacks } = context;
  // The balance is read when the Result is sent, so a payout settled meanwhile shows in it.
  const result = async (query: BalanceQuery) => resultBody(query, await context.balance(0), options.now());

  async function deliver(query: BalanceQuery): Promise<void> {
    switch (query.outcome) {
      case "no_callback":
        return;
      case "timeout":
        return callbacks.deliver("balance_timeout", query.queueTimeoutUrl, timeoutBody(query));
      case "duplicate_callback":
        await callbacks.deliver("balance_result", query.resultUrl, await result(query));
        return callbacks.deliver("balance_result", query.resultUrl, await result(query));
      default:
        return callbacks.deliver("balance_result", query.resultUrl, await result(query));
    }
  }

  return async (body) => {
    const initiator = text(body["Initiator"]);
    if (!initiator) return invalidField("Initiator");
    const credential = body["SecurityCredential"];
    if (!isWellFormedCredential(credential)) return invalidField("SecurityCredential");
    if (body["CommandID"] !== "AccountBalance") return invalidField("CommandID");
    // Only the organisation's own short codes can be asked about.
    const partyA = text(body["PartyA"]);
    const ownShortCodes = [options.b2cShortcode, options.shortcode, options.tillNumber];
    if (!partyA || !ownShortCodes.includes(partyA)) return invalidField("PartyA");
    if (text(body["IdentifierType"]) !== "4") return invalidField("IdentifierType");
    const remarks = body["Remarks"] === undefined ? "" : text(body["Remarks"]);
    if (remarks === null || remarks.length > 100) return invalidField("Remarks");
    const acceptable = (url: unknown): url is string => isAcceptableCallbackUrl(url, options.blockCallbackKeywords);
    const resultUrl = body["ResultURL"];
    if (!acceptable(resultUrl)) return invalidField("ResultURL");
    const queueTimeoutUrl = body["QueueTimeOutURL"];
    if (!acceptable(queueTimeoutUrl)) return invalidField("QueueTimeOutURL");

    const query: BalanceQuery = {
      originatorConversationId: newOriginatorConversationId(),
      conversationId: newConversationId(options.now()),
      // A wrong initiator is reported in the Result, whatever was chosen.
      result: initiatorIsValid(options, initiator, credential) ? RESULT_SUCCESS : RESULT_INITIATOR_INVALID,
      outcome: context.chooseOutcome("balance", "", BALANCE_OUTCOMES) ?? "success",
      resultUrl,
      queueTimeoutUrl,
    };
    callbacks.later(() => deliver(query));
    return accepted({
      OriginatorConversationID: query.originatorConversationId,
      ConversationID: query.conversationId,
      ResponseCode: "0",
      ResponseDescription: "Accept the service request successfully.",
    });
  };
}

/** Account Balance: POST /mpesa/accountbalance/v1/query, its Result or time-out by callback. */
export const accountBalanceApi = simulatedApi({
  endpoints: [
    {
      path: ACCOUNT_BALANCE_PATH,
      operation: "accountbalance",
      firstField: "Initiator",
      create: (context) => ({ answer: createAccountBalanceOperation(context) }),
    },
  ],
  callbackKinds: ["balance_result", "balance_timeout"],
  outcomes: "balance",
});
