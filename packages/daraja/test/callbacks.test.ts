import { describe, expect, it } from "vitest";
import {
  parseAccountBalanceResult,
  parseAccountBalances,
  parseAccountBalanceTimeout,
  classifyReversalResultCode,
  classifyTransactionStatusResult,
  parseB2cResult,
  parseB2cTimeout,
  parseReversalResult,
  parseReversalTimeout,
  parseStkCallback,
  parseTransactionStatusResult,
} from "../src/index.js";
import type { ParseResult } from "../src/index.js";

function value<T>(result: ParseResult<T>): T {
  if (!result.ok) throw new Error(`expected ok, got: ${result.error}`);
  return result.value;
}

const stk = (callback: Record<string, unknown>) => ({ Body: { stkCallback: callback } });

// docs/daraja-wire-format.md#stk-callback
const portalSuccess = stk({
  MerchantRequestID: "29115-34620561-1",
  CheckoutRequestID: "ws_CO_191220191020363925",
  ResultCode: 0,
  ResultDesc: "The service request is processed successfully.",
  CallbackMetadata: {
    Item: [
      { Name: "Amount", Value: 1.0 },
      { Name: "MpesaReceiptNumber", Value: "NLJ7RT61SV" },
      { Name: "TransactionDate", Value: 20191219102115 },
      { Name: "PhoneNumber", Value: 254708374149 },
    ],
  },
});

describe("parseStkCallback", () => {
  it("reads the portal success sample", () => {
    expect(value(parseStkCallback(portalSuccess))).toEqual({
      merchantRequestId: "29115-34620561-1",
      checkoutRequestId: "ws_CO_191220191020363925",
      resultCode: "0",
      resultDesc: "The service request is processed successfully.",
      amount: 1,
      mpesaReceiptNumber: "NLJ7RT61SV",
      transactionDate: "20191219102115",
      phoneNumber: "254708374149",
    });
  });

  it("reads a failure without CallbackMetadata", () => {
    const parsed = value(
      parseStkCallback(
        stk({
          MerchantRequestID: "f1e2-4b95-a71d-b30d3cdbb7a7942864",
          CheckoutRequestID: "ws_CO_21072024125243250722943992",
          ResultCode: 1032,
          ResultDesc: "Request cancelled by user",
        }),
      ),
    );
    expect(parsed).toEqual({
      merchantRequestId: "f1e2-4b95-a71d-b30d3cdbb7a7942864",
      checkoutRequestId: "ws_CO_21072024125243250722943992",
      resultCode: "1032",
      resultDesc: "Request cancelled by user",
    });
  });

  it("finds items by Name in any order, with Balance lacking a Value and string values", () => {
    const parsed = value(
      parseStkCallback(
        stk({
          MerchantRequestID: "m-1",
          CheckoutRequestID: "ws_CO_1",
          ResultCode: "0",
          ResultDesc: "ok",
          CallbackMetadata: {
            Item: [
              { Name: "PhoneNumber", Value: "254712345678" },
              { Name: "Balance" },
              { Name: "TransactionDate", Value: "20240706224852" },
              { Name: "MpesaReceiptNumber", Value: "SG632NMUAB" },
              { Name: "Amount", Value: "10500.00" },
            ],
          },
        }),
      ),
    );
    expect(parsed).toMatchObject({
      resultCode: "0",
      amount: 10500,
      mpesaReceiptNumber: "SG632NMUAB",
      transactionDate: "20240706224852",
      phoneNumber: "254712345678",
    });
    expect(parsed).not.toHaveProperty("balance");
  });

  it("tolerates missing items and a single Item object", () => {
    const parsed = value(
      parseStkCallback(
        stk({
          MerchantRequestID: "m-2",
          CheckoutRequestID: "ws_CO_2",
          ResultCode: 0,
          ResultDesc: "ok",
          CallbackMetadata: { Item: { Name: "MpesaReceiptNumber", Value: "NLJ7RT61SV" } },
        }),
      ),
    );
    expect(parsed.mpesaReceiptNumber).toBe("NLJ7RT61SV");
    expect(parsed.amount).toBeUndefined();
    expect(parsed.phoneNumber).toBeUndefined();
  });

  it("reads a numeric Balance when present", () => {
    const body = structuredClone(portalSuccess);
    body.Body.stkCallback["CallbackMetadata"] = { Item: [{ Name: "Balance", Value: 25.5 }, { Name: "Amount", Value: 1 }] };
    expect(value(parseStkCallback(body)).balance).toBe(25.5);
  });

  it.each([
    ["null", null],
    ["a string", "Body"],
    ["no Body", { stkCallback: {} }],
    ["no stkCallback", { Body: {} }],
    ["no CheckoutRequestID", stk({ MerchantRequestID: "m", ResultCode: 0, ResultDesc: "x" })],
    ["an empty CheckoutRequestID", stk({ MerchantRequestID: "m", CheckoutRequestID: "", ResultCode: 0, ResultDesc: "x" })],
    ["no ResultCode", stk({ MerchantRequestID: "m", CheckoutRequestID: "c", ResultDesc: "x" })],
    ["an empty ResultCode", stk({ MerchantRequestID: "m", CheckoutRequestID: "c", ResultCode: " ", ResultDesc: "x" })],
    ["ResultCode as an object", stk({ MerchantRequestID: "m", CheckoutRequestID: "c", ResultCode: { v: 0 }, ResultDesc: "x" })],
    ["Item without Name", stk({ MerchantRequestID: "m", CheckoutRequestID: "c", ResultCode: 0, ResultDesc: "x", CallbackMetadata: { Item: [{ Value: 1 }] } })],
  ])("rejects %s", (_label, body) => {
    const result = parseStkCallback(body);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).not.toBe("");
  });
});

// docs/daraja-wire-format.md#b2c-result
const b2cSuccess = {
  Result: {
    ResultType: 0,
    ResultCode: 0,
    ResultDesc: "The service request is processed successfully.",
    OriginatorConversationID: "53e3-4aa8-9fe0-8fb5e4092cdd3533373",
    ConversationID: "AG_20240706_2010364430d9bbdaf872",
    TransactionID: "SG632NMUAB",
    ResultParameters: {
      ResultParameter: [
        { Key: "TransactionAmount", Value: 10 },
        { Key: "TransactionReceipt", Value: "SG632NMUAB" },
        { Key: "ReceiverPartyPublicName", Value: "254705912645 - NICHOLAS JOHN SONGOK" },
        { Key: "TransactionCompletedDateTime", Value: "06.07.2024 22:48:52" },
        { Key: "B2CUtilityAccountAvailableFunds", Value: 8959269.6 },
        { Key: "B2CWorkingAccountAvailableFunds", Value: 1199371.0 },
        { Key: "B2CRecipientIsRegisteredCustomer", Value: "Y" },
        { Key: "B2CChargesPaidAccountAvailableFunds", Value: -1980.0 },
      ],
    },
    ReferenceData: {
      ReferenceItem: { Key: "QueueTimeoutURL", Value: "https://internalsandbox.safaricom.co.ke/mpesa/b2cresults/v1/submit" },
    },
  },
};

describe("parseB2cResult", () => {
  it("reads the portal success sample (ResultParameter array, ReferenceItem object)", () => {
    const parsed = value(parseB2cResult(b2cSuccess));
    expect(parsed).toMatchObject({
      resultType: "0",
      resultCode: "0",
      originatorConversationId: "53e3-4aa8-9fe0-8fb5e4092cdd3533373",
      conversationId: "AG_20240706_2010364430d9bbdaf872",
      transactionId: "SG632NMUAB",
      amount: 10,
      receipt: "SG632NMUAB",
      receiverName: "254705912645 - NICHOLAS JOHN SONGOK",
      completedAt: "06.07.2024 22:48:52",
      recipientIsRegisteredCustomer: true,
      utilityAccountAvailableFunds: 8959269.6,
      workingAccountAvailableFunds: 1199371,
      chargesPaidAccountAvailableFunds: -1980,
    });
    expect(parsed.referenceData).toEqual({ QueueTimeoutURL: "https://internalsandbox.safaricom.co.ke/mpesa/b2cresults/v1/submit" });
    expect(parsed.parameters["TransactionReceipt"]).toBe("SG632NMUAB");
  });

  it("reads a failure without ResultParameters", () => {
    const parsed = value(
      parseB2cResult({
        Result: {
          ResultType: 0,
          ResultCode: 2001,
          ResultDesc: "The initiator information is invalid.",
          OriginatorConversationID: "53e3-4aa8-9fe0-8fb5e4092cdd3544366",
          ConversationID: "AG_20240707_201062f6f6f5804f7a33",
          TransactionID: "SG722NMVXQ",
          ReferenceData: { ReferenceItem: { Key: "QueueTimeoutURL", Value: "https://internalsandbox.safaricom.co.ke/mpesa/b2cresults/v1/submit" } },
        },
      }),
    );
    expect(parsed.resultCode).toBe("2001");
    expect(parsed.parameters).toEqual({});
    expect(parsed.amount).toBeUndefined();
  });

  it("reads ResultParameter as a single object and ReferenceItem as an array, ResultCode as a string", () => {
    const parsed = value(
      parseB2cResult({
        Result: {
          ResultType: "0",
          ResultCode: "2001",
          ResultDesc: "The initiator information is invalid.",
          OriginatorConversationID: "o-1",
          ConversationID: "AG_1",
          TransactionID: "OFP0000000",
          ResultParameters: { ResultParameter: { Key: "BOCompletedTime", Value: 20200625232427 } },
          ReferenceData: { ReferenceItem: [{ Key: "QueueTimeoutURL", Value: "https://x/y" }, { Key: "Occasion" }] },
        },
      }),
    );
    expect(parsed.resultCode).toBe("2001");
    expect(parsed.parameters).toEqual({ BOCompletedTime: 20200625232427 });
    expect(parsed.referenceData).toEqual({ QueueTimeoutURL: "https://x/y", Occasion: null });
  });

  it.each([
    ["no Result", { ResultCode: 0 }],
    ["no ConversationID", { Result: { ResultCode: 0, ResultDesc: "x", OriginatorConversationID: "o" } }],
    ["no ResultCode", { Result: { ResultDesc: "x", OriginatorConversationID: "o", ConversationID: "c" } }],
    ["a parameter without Key", { Result: { ResultCode: 0, ResultDesc: "x", OriginatorConversationID: "o", ConversationID: "c", ResultParameters: { ResultParameter: [{ Value: 1 }] } } }],
    ["an array body", [b2cSuccess]],
  ])("rejects %s", (_label, body) => {
    expect(parseB2cResult(body).ok).toBe(false);
  });
});

describe("parseB2cTimeout", () => {
  it("reads the timeout envelope", () => {
    expect(
      value(
        parseB2cTimeout({
          Result: {
            ResultType: 0,
            ResultCode: 1,
            ResultDesc: "The service request has timed out.",
            OriginatorConversationID: "o-2",
            ConversationID: "AG_2",
          },
        }),
      ),
    ).toEqual({
      resultType: "0",
      resultCode: "1",
      resultDesc: "The service request has timed out.",
      originatorConversationId: "o-2",
      conversationId: "AG_2",
      transactionId: null,
    });
  });

  it("rejects a body without ids", () => {
    expect(parseB2cTimeout({ Result: { ResultCode: 1, ResultDesc: "x" } }).ok).toBe(false);
  });
});

describe("parseTransactionStatusResult", () => {
  const body = {
    Result: {
      ConversationID: "AG_20180223_0000493344ae97d86f75",
      OriginatorConversationID: "3213-416199-2",
      ReferenceData: { ReferenceItem: { Key: "Occasion" } },
      ResultCode: 0,
      ResultDesc: "The service request is processed successfully.",
      ResultParameters: {
        ResultParameter: [
          { Key: "DebitPartyName", Value: "600310 - Safaricom333" },
          { Key: "CreditPartyName", Value: "254708374149 - John Doe" },
          { Key: "OriginatorConversationID", Value: "3211-416020-3" },
          { Key: "InitiatedTime", Value: 20180223054112 },
          { Key: "DebitAccountType", Value: "Utility Account" },
          { Key: "DebitPartyCharges", Value: "Fee For B2C Payment|KES|22.40" },
          { Key: "TransactionReason" },
          { Key: "ReasonType", Value: "Business Payment to Customer via API" },
          { Key: "TransactionStatus", Value: "Completed" },
          { Key: "FinalisedTime", Value: 20180223054112 },
          { Key: "Amount", Value: 300 },
          { Key: "ConversationID", Value: "AG_20180223_000041b09c22e613d6c9" },
          { Key: "ReceiptNo", Value: "MBN31H462N" },
        ],
      },
      ResultType: 0,
      TransactionID: "MBN0000000",
    },
  };

  it("separates the query's ids from the queried transaction's", () => {
    const parsed = value(parseTransactionStatusResult(body));
    expect(parsed.originatorConversationId).toBe("3213-416199-2");
    expect(parsed.transaction).toEqual({
      receiptNo: "MBN31H462N",
      status: "Completed",
      amount: 300,
      originatorConversationId: "3211-416020-3",
      conversationId: "AG_20180223_000041b09c22e613d6c9",
      debitPartyName: "600310 - Safaricom333",
      creditPartyName: "254708374149 - John Doe",
      reasonType: "Business Payment to Customer via API",
      initiatedTime: "20180223054112",
      finalisedTime: "20180223054112",
    });
    expect(parsed.parameters["TransactionReason"]).toBeNull();
    expect(classifyTransactionStatusResult(parsed)).toBe("SUCCESS");
  });

  it("accepts the older spaced keys and string values", () => {
    const parsed = value(
      parseTransactionStatusResult({
        Result: {
          ResultType: 0,
          ResultCode: "0",
          ResultDesc: "ok",
          OriginatorConversationID: "q-1",
          ConversationID: "AG_q",
          ResultParameters: {
            ResultParameter: [
              { Key: "Originator Conversation ID", Value: "19455-773836-1" },
              { Key: "Conversation ID", Value: "AG_20170727_00004492b1b6d0078fbe" },
              { Key: "Amount", Value: "10" },
              { Key: "TransactionStatus", Value: "Failed" },
            ],
          },
        },
      }),
    );
    expect(parsed.transaction).toMatchObject({ originatorConversationId: "19455-773836-1", conversationId: "AG_20170727_00004492b1b6d0078fbe", amount: 10 });
    expect(classifyTransactionStatusResult(parsed)).toBe("FAILED");
  });

  it("says UNKNOWN when the query itself failed", () => {
    const parsed = value(
      parseTransactionStatusResult({ Result: { ResultCode: 2001, ResultDesc: "The initiator information is invalid.", OriginatorConversationID: "q", ConversationID: "c" } }),
    );
    expect(classifyTransactionStatusResult(parsed)).toBe("UNKNOWN");
  });
});

// Reversal result samples (docs/mpesa.md "Reversals"): the portal's success (ResultCode the number 0,
// numeric Amount/Charge/TransCompletedTime) and failure (ResultCode the string "R000002", no
// ResultParameters), and the time-out body modelled by mpesakit (the portal shows none).
const reversalSuccess = {
  Result: {
    ResultType: 0,
    ResultCode: 0,
    ResultDesc: "The service request is processed successfully.",
    OriginatorConversationID: "dad6-4c34-8787-c8cb963a496d1268232",
    ConversationID: "AG_20211114_201018edbbf9f1582eaa",
    TransactionID: "SKE52PAWR9",
    ResultParameters: {
      ResultParameter: [
        { Key: "DebitAccountBalance", Value: "Utility Account|KES|7722179.62|7722179.62|0.00|0.00" },
        { Key: "Amount", Value: 1.0 },
        { Key: "TransCompletedTime", Value: 20211114132711 },
        { Key: "OriginalTransactionID", Value: "SKC82PACB8" },
        { Key: "Charge", Value: 0.0 },
        { Key: "CreditPartyPublicName", Value: "254705912645 - NICHOLAS JOHN SONGOK" },
        { Key: "DebitPartyPublicName", Value: "600992 - Safaricom Daraja 992" },
      ],
    },
    ReferenceData: { ReferenceItem: { Key: "QueueTimeoutURL", Value: "https://internalsandbox.safaricom.co.ke/mpesa/reversalresults/v1/submit" } },
  },
};

const reversalFailure = {
  Result: {
    ResultType: 0,
    ResultCode: "R000002",
    ResultDesc: "The OriginalTransactionID is invalid.",
    OriginatorConversationID: "dad6-4c34-8787-c8cb963a496d1268232",
    ConversationID: "AG_20211114_201018edbbf9f1582eaa",
    TransactionID: "SKE0000000",
    ReferenceData: { ReferenceItem: { Key: "QueueTimeoutURL", Value: "https://internalsandbox.safaricom.co.ke/mpesa/reversalresults/v1/submit" } },
  },
};

describe("parseReversalResult", () => {
  it("reads the portal's success sample: the reversal's own receipt and the reversed one", () => {
    const r = value(parseReversalResult(reversalSuccess));
    expect(r).toMatchObject({
      resultCode: "0",
      originatorConversationId: "dad6-4c34-8787-c8cb963a496d1268232",
      conversationId: "AG_20211114_201018edbbf9f1582eaa",
      transactionId: "SKE52PAWR9",
      amount: 1,
      originalTransactionId: "SKC82PACB8",
      completedAt: "20211114132711",
      charge: 0,
      creditPartyName: "254705912645 - NICHOLAS JOHN SONGOK",
      debitPartyName: "600992 - Safaricom Daraja 992",
    });
    expect(classifyReversalResultCode(r.resultCode)).toBe("SUCCESS");
  });

  it("reads the portal's failure sample (string ResultCode, no ResultParameters)", () => {
    const r = value(parseReversalResult(reversalFailure));
    expect(r.resultCode).toBe("R000002");
    expect(r.amount).toBeUndefined();
    expect(r.originalTransactionId).toBeUndefined();
    expect(classifyReversalResultCode(r.resultCode)).toBe("FAILED");
  });

  it("classifies 0 as a number or a string alike, and an unlisted code as UNKNOWN", () => {
    expect(classifyReversalResultCode(0)).toBe("SUCCESS");
    expect(classifyReversalResultCode("0")).toBe("SUCCESS");
    expect(classifyReversalResultCode("R000001")).toBe("FAILED");
    expect(classifyReversalResultCode(5555)).toBe("UNKNOWN");
    expect(classifyReversalResultCode(null)).toBe("UNKNOWN");
  });

  it("reads a time-out body (mpesakit's model) and refuses a body without the ids", () => {
    const timeout = value(
      parseReversalTimeout({
        Result: { ResultType: 1, ResultCode: "1", ResultDesc: "The service request timed out.", OriginatorConversationID: "dad6-4c34", ConversationID: "AG_20211114_x" },
      }),
    );
    expect(timeout).toMatchObject({ resultCode: "1", originatorConversationId: "dad6-4c34", conversationId: "AG_20211114_x", transactionId: null });
    expect(parseReversalResult({ Result: { ResultCode: 0, ResultDesc: "ok" } }).ok).toBe(false);
  });
});

// docs/daraja-wire-format.md#account-balance: the portal's success sample, and the sandbox's failure.
const balanceString = [
  "Working Account|KES|700000.00|700000.00|0.00|0.00",
  "Float Account|KES|0.00|0.00|0.00|0.00",
  "Utility Account|KES|228037.00|228037.00|0.00|0.00",
  "Charges Paid Account|KES|-1540.00|-1540.00|0.00|0.00",
  "Organization Settlement Account|KES|0.00|0.00|0.00|0.00",
].join("&");
const queueTimeoutReference = {
  Key: "QueueTimeoutURL",
  Value: "https://internalsandbox.safaricom.co.ke/mpesa/abresults/v1/submit",
};

const amounts = (current: number, available: number, reserved: number, uncleared: number) => ({
  current,
  available,
  reserved,
  uncleared,
});

describe("Account Balance", () => {
  it("reads the portal's result, its balance string kept as sent", () => {
    const parsed = value(
      parseAccountBalanceResult({
        Result: {
          ResultType: "0",
          ResultCode: "0",
          ResultDesc: "The service request is processed successfully",
          OriginatorConversationID: "16917-22577599-3",
          ConversationID: "AG_20200206_00005e091a8ec6b9eac5",
          TransactionID: "OA90000000",
          ResultParameters: {
            ResultParameter: [
              { Key: "AccountBalance", Value: balanceString },
              { Key: "BOCompletedTime", Value: "20200109125710" },
            ],
          },
          ReferenceData: { ReferenceItem: queueTimeoutReference },
        },
      }),
    );
    expect(parsed).toMatchObject({ resultCode: "0", originatorConversationId: "16917-22577599-3" });
    expect(parsed.balance).toBe(balanceString);
    expect(parsed.completedAt).toBe("20200109125710");
  });

  it("reads the sandbox's failure (numbers, a Key without Value) with no balance", () => {
    const parsed = value(
      parseAccountBalanceResult({
        Result: {
          ResultType: 0,
          ResultCode: 8006,
          ResultDesc: "The security credential is locked.",
          OriginatorConversationID: "f1e2-4b95-a71d-b30d3cdbb7a7736371",
          ConversationID: "AG_20240211_2010325b025970fbc403",
          TransactionID: "SBB0000000",
          ResultParameters: {
            ResultParameter: [
              { Key: "ActionType", Value: "AccountBalance" },
              { Key: "ErrorMsg", Value: "API Password is locked. " },
              { Key: "BOCompletedTime", Value: 20240211133412 },
            ],
          },
          ReferenceData: { ReferenceItem: { Key: "QueueTimeoutURL" } },
        },
      }),
    );
    expect(parsed).toMatchObject({ resultCode: "8006", resultDesc: "The security credential is locked." });
    expect(parsed.completedAt).toBe("20240211133412");
    expect(parsed.balance).toBeUndefined();
  });

  it("reads a time-out notice like B2C's", () => {
    const notice = { ResultType: 1, ResultCode: "1", ResultDesc: "The service request timed out." };
    const ids = { OriginatorConversationID: "o-1", ConversationID: "AG_1" };
    const timeout = value(parseAccountBalanceTimeout({ Result: { ...notice, ...ids } }));
    expect(timeout).toMatchObject({ resultCode: "1", originatorConversationId: "o-1" });
  });

  it("reads the balance string as current, available, reserved, uncleared, negative amounts included", () => {
    const accounts = value(parseAccountBalances(balanceString));
    expect(accounts).toHaveLength(5);
    expect(accounts[0]).toEqual({ name: "Working Account", currency: "KES", ...amounts(700000, 700000, 0, 0) });
    expect(accounts[3]).toEqual({ name: "Charges Paid Account", currency: "KES", ...amounts(-1540, -1540, 0, 0) });
    // The B2B sample whose arithmetic fixes the order: current = available + reserved + uncleared.
    expect(value(parseAccountBalances("Working Account|KES|346568.83|6186.83|340382.00|0.00"))).toEqual([
      { name: "Working Account", currency: "KES", ...amounts(346568.83, 6186.83, 340382, 0) },
    ]);
  });

  it("refuses an entry that is not six parts, or an amount that is not a decimal", () => {
    expect(parseAccountBalances("Working Account|KES|700000.00").ok).toBe(false);
    expect(parseAccountBalances("Working Account|KES|1.00|1.00|0.00|0.00|extra").ok).toBe(false);
    expect(parseAccountBalances("Working Account|KES|1,000.00|1.00|0.00|0.00").ok).toBe(false);
    expect(parseAccountBalances("|KES|1.00|1.00|0.00|0.00").ok).toBe(false);
  });
});
