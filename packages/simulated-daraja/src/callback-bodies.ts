import type { ResultCodeText } from "./outcomes.js";
import type { B2cPayout, C2bPayment, SimReversal, StkPayment } from "./records.js";
import { eatCompletedDateTime, eatTimestamp } from "./wire.js";

const SIM_CUSTOMER_NAME = "SIM CUSTOMER";
const SIM_BUSINESS_NAME = "MTEJA SIM SHOP";

/** docs/daraja-wire-format.md#stk-callback: metadata only on success; failures carry no CallbackMetadata at all. */
export function stkCallbackBody(payment: StkPayment): unknown {
  const callback: Record<string, unknown> = {
    MerchantRequestID: payment.merchantRequestId,
    CheckoutRequestID: payment.checkoutRequestId,
    ResultCode: payment.result.code,
    ResultDesc: payment.result.desc,
  };
  if (payment.result.code === 0 && payment.receipt && payment.settledAt) {
    callback["CallbackMetadata"] = {
      Item: [
        { Name: "Amount", Value: payment.amount },
        { Name: "MpesaReceiptNumber", Value: payment.receipt },
        { Name: "TransactionDate", Value: Number(eatTimestamp(new Date(payment.settledAt))) },
        { Name: "PhoneNumber", Value: Number(payment.phone) },
      ],
    };
  }
  return { Body: { stkCallback: callback } };
}

const queueTimeoutReference = (url: string) => ({ ReferenceItem: { Key: "QueueTimeoutURL", Value: url } });

/** docs/daraja-wire-format.md#b2c-result. */
export function b2cResultBody(payout: B2cPayout, utilityBalance: number): unknown {
  const result: Record<string, unknown> = {
    ResultType: 0,
    ResultCode: payout.result.code,
    ResultDesc: payout.result.desc,
    OriginatorConversationID: payout.originatorConversationId,
    ConversationID: payout.conversationId,
    TransactionID: payout.transactionId,
  };
  if (payout.result.code === 0 && payout.settledAt) {
    result["ResultParameters"] = {
      ResultParameter: [
        { Key: "TransactionAmount", Value: payout.amount },
        { Key: "TransactionReceipt", Value: payout.transactionId },
        { Key: "ReceiverPartyPublicName", Value: `${payout.phone} - ${SIM_CUSTOMER_NAME}` },
        { Key: "TransactionCompletedDateTime", Value: eatCompletedDateTime(new Date(payout.settledAt)) },
        { Key: "B2CUtilityAccountAvailableFunds", Value: utilityBalance },
        { Key: "B2CWorkingAccountAvailableFunds", Value: 1_199_371.0 },
        { Key: "B2CRecipientIsRegisteredCustomer", Value: "Y" },
        { Key: "B2CChargesPaidAccountAvailableFunds", Value: -1980.0 },
      ],
    };
  }
  result["ReferenceData"] = queueTimeoutReference(payout.queueTimeoutUrl);
  return { Result: result };
}

/** docs/daraja-wire-format.md#b2c-timeout: the Result envelope with the ids and no ResultParameters. */
export function b2cTimeoutBody(payout: B2cPayout, timeout: ResultCodeText): unknown {
  return {
    Result: {
      ResultType: 0,
      ResultCode: timeout.code,
      ResultDesc: timeout.desc,
      OriginatorConversationID: payout.originatorConversationId,
      ConversationID: payout.conversationId,
      TransactionID: payout.transactionId,
      ReferenceData: queueTimeoutReference(payout.queueTimeoutUrl),
    },
  };
}

export interface QueriedTransaction {
  receipt: string;
  /** `Completed`, `Failed` or `Pending`; a reversed payment (a simulator convention): `Reversed`. */
  status: string;
  amount: number;
  originatorConversationId: string;
  conversationId: string;
  debitPartyName: string;
  creditPartyName: string;
  reasonType: string;
  debitAccountType: string;
  initiatedAt: Date;
  finalisedAt: Date;
}

export interface StatusQuery {
  originatorConversationId: string;
  conversationId: string;
  occasion: string | null;
}

export function describeB2cPayout(payout: B2cPayout, b2cShortcode: string): QueriedTransaction {
  const status = !payout.settled
    ? "Pending"
    : payout.result.code === 0 || payout.outcome === "unknown_result"
      ? "Completed"
      : "Failed";
  return {
    receipt: payout.transactionId,
    status,
    amount: payout.amount,
    originatorConversationId: payout.originatorConversationId,
    conversationId: payout.conversationId,
    debitPartyName: `${b2cShortcode} - ${SIM_BUSINESS_NAME}`,
    creditPartyName: `${payout.phone} - ${SIM_CUSTOMER_NAME}`,
    reasonType:
      payout.commandId === "SalaryPayment" ? "Salary Payment via API" : "Business Payment to Customer via API",
    debitAccountType: "Utility Account",
    initiatedAt: new Date(payout.createdAt),
    finalisedAt: new Date(payout.settledAt ?? payout.createdAt),
  };
}

export function describeStkPayment(
  payment: StkPayment & { receipt: string },
  shortcode: string,
  reversed = false,
): QueriedTransaction {
  return {
    receipt: payment.receipt,
    status: reversed ? "Reversed" : "Completed",
    amount: payment.amount,
    originatorConversationId: payment.merchantRequestId,
    conversationId: payment.checkoutRequestId,
    debitPartyName: `${payment.phone} - ${SIM_CUSTOMER_NAME}`,
    creditPartyName: `${payment.partyB === shortcode ? shortcode : payment.partyB} - ${SIM_BUSINESS_NAME}`,
    reasonType: payment.transactionType === "CustomerBuyGoodsOnline" ? "Buy Goods Online" : "Pay Bill Online",
    debitAccountType: "MMF Account For Customer",
    initiatedAt: new Date(payment.createdAt),
    finalisedAt: new Date(payment.settledAt ?? payment.createdAt),
  };
}

export function describeC2bPayment(payment: C2bPayment, reversed = false): QueriedTransaction {
  return {
    receipt: payment.transId,
    status: reversed ? "Reversed" : "Completed",
    amount: payment.amount,
    // A payment from the M-Pesa menu has no API request ids.
    originatorConversationId: "",
    conversationId: "",
    debitPartyName: `${payment.phone} - ${SIM_CUSTOMER_NAME}`,
    creditPartyName: `${payment.shortCode} - ${SIM_BUSINESS_NAME}`,
    reasonType: payment.command === "CustomerBuyGoodsOnline" ? "Buy Goods" : "Pay Bill",
    debitAccountType: "MMF Account For Customer",
    initiatedAt: new Date(payment.at),
    finalisedAt: new Date(payment.at),
  };
}

/** The Transaction Status result, in the portal's parameter order. */
export function transactionStatusResultBody(
  query: StatusQuery,
  result: ResultCodeText,
  transaction: QueriedTransaction | null,
): unknown {
  const body: Record<string, unknown> = {
    ResultType: 0,
    ResultCode: result.code,
    ResultDesc: result.desc,
    OriginatorConversationID: query.originatorConversationId,
    ConversationID: query.conversationId,
    TransactionID: transaction?.receipt ?? "",
  };
  if (transaction && result.code === 0) {
    body["ResultParameters"] = {
      ResultParameter: [
        { Key: "DebitPartyName", Value: transaction.debitPartyName },
        { Key: "CreditPartyName", Value: transaction.creditPartyName },
        { Key: "OriginatorConversationID", Value: transaction.originatorConversationId },
        { Key: "InitiatedTime", Value: Number(eatTimestamp(transaction.initiatedAt)) },
        { Key: "DebitAccountType", Value: transaction.debitAccountType },
        { Key: "DebitPartyCharges", Value: "" },
        { Key: "TransactionReason" },
        { Key: "ReasonType", Value: transaction.reasonType },
        { Key: "TransactionStatus", Value: transaction.status },
        { Key: "FinalisedTime", Value: Number(eatTimestamp(transaction.finalisedAt)) },
        { Key: "Amount", Value: transaction.amount },
        { Key: "ConversationID", Value: transaction.conversationId },
        { Key: "ReceiptNo", Value: transaction.receipt },
      ],
    };
  }
  body["ReferenceData"] = {
    ReferenceItem: query.occasion ? { Key: "Occasion", Value: query.occasion } : { Key: "Occasion" },
  };
  return { Result: body };
}

/** The portal's Reversal result: seven parameters on success, none on failure; ResultCode as the outcome has it. */
export function reversalResultBody(reversal: SimReversal, utilityBalance: number): unknown {
  const success = reversal.result.code === 0;
  const result: Record<string, unknown> = {
    ResultType: 0,
    ResultCode: reversal.result.code,
    ResultDesc: reversal.result.desc,
    OriginatorConversationID: reversal.originatorConversationId,
    ConversationID: reversal.conversationId,
    TransactionID: success ? reversal.transactionId : "SKE0000000",
  };
  if (success) {
    const balance = utilityBalance.toFixed(2);
    result["ResultParameters"] = {
      ResultParameter: [
        { Key: "DebitAccountBalance", Value: `Utility Account|KES|${balance}|${balance}|0.00|0.00` },
        { Key: "Amount", Value: reversal.amount },
        { Key: "TransCompletedTime", Value: Number(eatTimestamp(new Date(reversal.settledAt ?? reversal.createdAt))) },
        { Key: "OriginalTransactionID", Value: reversal.originalTransactionId },
        { Key: "Charge", Value: 0 },
        { Key: "CreditPartyPublicName", Value: reversal.creditParty },
        { Key: "DebitPartyPublicName", Value: `${reversal.receiverParty} - ${SIM_BUSINESS_NAME}` },
      ],
    };
  }
  result["ReferenceData"] = queueTimeoutReference(reversal.queueTimeoutUrl);
  return { Result: result };
}

export function reversalTimeoutBody(reversal: SimReversal, timeout: ResultCodeText): unknown {
  return {
    Result: {
      ResultType: 1,
      ResultCode: timeout.code,
      ResultDesc: timeout.desc,
      OriginatorConversationID: reversal.originatorConversationId,
      ConversationID: reversal.conversationId,
    },
  };
}

export function describeReversal(reversal: SimReversal): QueriedTransaction {
  const status = !reversal.settled
    ? "Pending"
    : reversal.result.code === 0 || reversal.outcome === "unknown_result"
      ? "Completed"
      : "Failed";
  return {
    receipt: reversal.transactionId,
    status,
    amount: reversal.amount,
    originatorConversationId: reversal.originatorConversationId,
    conversationId: reversal.conversationId,
    debitPartyName: `${reversal.receiverParty} - ${SIM_BUSINESS_NAME}`,
    creditPartyName: reversal.creditParty,
    reasonType: "Reversal",
    debitAccountType: "Utility Account",
    initiatedAt: new Date(reversal.createdAt),
    finalisedAt: new Date(reversal.settledAt ?? reversal.createdAt),
  };
}

export const simCustomerParty = (phone: string) => `${phone} - ${SIM_CUSTOMER_NAME}`;
