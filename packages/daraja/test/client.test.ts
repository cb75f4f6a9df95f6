import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDarajaClient, DarajaError } from "../src/index.js";
import type { DarajaClientConfig } from "../src/index.js";
import { SANDBOX, startFakeDaraja } from "./fake-daraja.js";
import type { FakeDaraja, FakeDarajaOptions } from "./fake-daraja.js";

const STK_PUSH = "/mpesa/stkpush/v1/processrequest";
const STK_QUERY = "/mpesa/stkpushquery/v1/query";
const B2C = "/mpesa/b2c/v3/paymentrequest";
const STATUS = "/mpesa/transactionstatus/v1/query";

const PORTAL_PASSWORD =
  "MTc0Mzc5YmZiMjc5ZjlhYTliZGJjZjE1OGU5N2RkNzFhNDY3Y2QyZTBjODkzMDU5YjEwZjc4ZTZiNzJhZGExZWQyYzkxOTIwMjEwNjI4MDkyNDA4";

let fake: FakeDaraja;
let clock: Date;

async function useFake(options?: FakeDarajaOptions) {
  await fake?.close();
  fake = await startFakeDaraja(options);
}

beforeEach(async () => {
  clock = new Date("2021-06-28T06:24:08Z");
  await useFake();
});

afterEach(async () => {
  await fake.close();
});

function client(overrides: Partial<DarajaClientConfig> = {}) {
  return createDarajaClient({
    baseUrl: fake.url,
    consumerKey: SANDBOX.consumerKey,
    consumerSecret: SANDBOX.consumerSecret,
    shortcode: SANDBOX.shortcode,
    passkey: SANDBOX.passkey,
    transactionType: "CustomerPayBillOnline",
    b2cShortcode: SANDBOX.b2cShortcode,
    initiatorName: SANDBOX.initiatorName,
    securityCredential: SANDBOX.securityCredential,
    timeoutMs: 2_000,
    retryDelaysMs: [5, 5],
    now: () => clock,
    ...overrides,
  });
}

const push = {
  phone: "254708374149",
  amount: 10,
  accountReference: "ORDER-12345",
  transactionDesc: "Payment",
  callbackUrl: "https://shop.example/api/momo/callback/stkpush?token=abc",
};

async function caught(promise: Promise<unknown>): Promise<DarajaError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(DarajaError);
    return error as DarajaError;
  }
  throw new Error("expected a DarajaError");
}

const calls = (path: string) => fake.calls[path]?.length ?? 0;

describe("stkPush", () => {
  it("sends every field Daraja checks, with the Password of the Nairobi timestamp", async () => {
    const response = await client().stkPush(push);
    expect(fake.rejected).toEqual([]);
    expect(response).toEqual({
      merchantRequestId: expect.any(String),
      checkoutRequestId: expect.stringMatching(/^ws_CO_/),
      responseCode: "0",
      responseDescription: "Success. Request accepted for processing",
      customerMessage: "Success. Request accepted for processing",
    });
    expect(fake.calls[STK_PUSH]?.[0]).toEqual({
      BusinessShortCode: "174379",
      Password: PORTAL_PASSWORD,
      Timestamp: "20210628092408",
      TransactionType: "CustomerPayBillOnline",
      Amount: 10,
      PartyA: "254708374149",
      PartyB: "174379",
      PhoneNumber: "254708374149",
      CallBackURL: push.callbackUrl,
      AccountReference: "ORDER-12345",
      TransactionDesc: "Payment",
    });
  });

  it("sends the till as PartyB for BuyGoods", async () => {
    await client({ transactionType: "CustomerBuyGoodsOnline", partyB: "5432101" }).stkPush(push);
    expect(fake.calls[STK_PUSH]?.[0]).toMatchObject({ TransactionType: "CustomerBuyGoodsOnline", PartyB: "5432101", BusinessShortCode: "174379" });
  });

  it("surfaces Daraja's validation envelope as a provider_error", async () => {
    const error = await caught(client().stkPush({ ...push, phone: "0708374149" }));
    expect(error).toMatchObject({ kind: "provider_error", outcome: "refused", reason: "invalid_request", httpStatus: 400, errorCode: "400.002.02", errorMessage: "Bad Request - Invalid PhoneNumber", requestId: "fake-1" });
  });

  it("maps a wrong passkey to wrong_credentials", async () => {
    const error = await caught(client({ passkey: "not-the-passkey" }).stkPush(push));
    // A 5xx proves nothing, even with Daraja's envelope: the outcome is unknown.
    expect(error).toMatchObject({ kind: "provider_error", outcome: "unknown", reason: "wrong_credentials", httpStatus: 500, errorCode: "500.001.1001" });
  });

  it("is not retried on a 5xx without envelope", async () => {
    fake.script[STK_PUSH] = [() => ({ status: 503, body: "<html>Service Unavailable</html>" })];
    const error = await caught(client().stkPush(push));
    expect(error).toMatchObject({ kind: "unavailable", outcome: "unknown", httpStatus: 503, errorCode: null });
    expect(calls(STK_PUSH)).toBe(1);
  });

  it("leaves the outcome unknown on a gateway's HTML 502, an unparseable 2xx and a 4xx without Daraja's envelope", async () => {
    fake.script[STK_PUSH] = [
      () => ({ status: 502, body: "<html><body><h1>502 Bad Gateway</h1></body></html>" }),
      () => ({ status: 200, body: "<html>OK</html>" }),
      () => ({ status: 403, body: "<html>Forbidden</html>" }),
    ];
    for (let i = 0; i < 3; i++) expect((await caught(client().stkPush(push))).outcome).toBe("unknown");
    expect(calls(STK_PUSH)).toBe(3);
  });

  it("reads a ResponseCode other than 0 as a refusal", async () => {
    fake.script[STK_PUSH] = [() => ({ status: 200, body: { MerchantRequestID: "m", CheckoutRequestID: "c", ResponseCode: "1", ResponseDescription: "Rejected" } })];
    expect(await caught(client().stkPush(push))).toMatchObject({ outcome: "refused", errorCode: "1", errorMessage: "Rejected" });
  });

  it("is not retried on a locked subscriber, which is a provider error", async () => {
    fake.script[STK_PUSH] = [
      () => ({ status: 500, body: { requestId: "r", errorCode: "500.001.1001", errorMessage: "Unable to lock subscriber, a transaction is already in process for the current subscriber" } }),
    ];
    const error = await caught(client().stkPush(push));
    expect(error).toMatchObject({ kind: "provider_error", reason: "subscriber_locked" });
    expect(calls(STK_PUSH)).toBe(1);
  });

  it("treats spike arrest as unavailable, without retrying the push", async () => {
    fake.script[STK_PUSH] = [() => ({ status: 500, body: { requestId: "r", errorCode: "500.003.02", errorMessage: "Error Occurred: Spike Arrest Violation" } })];
    const error = await caught(client().stkPush(push));
    expect(error).toMatchObject({ kind: "unavailable", reason: "system_busy", errorCode: "500.003.02" });
    expect(calls(STK_PUSH)).toBe(1);
  });

  it("gives up after timeoutMs with 'unavailable' and does not send again", async () => {
    fake.delayMs[STK_PUSH] = 300;
    const started = Date.now();
    const error = await caught(client({ timeoutMs: 80 }).stkPush(push));
    expect(Date.now() - started).toBeLessThan(290);
    expect(error).toMatchObject({ kind: "unavailable", outcome: "unknown", reason: "timeout", httpStatus: null });
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(calls(STK_PUSH)).toBe(1);
  });
});

describe("when Daraja is down", () => {
  it("fails with 'unavailable' on a closed port", async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const error = await caught(client({ baseUrl: `http://127.0.0.1:${port}` }).stkPush(push));
    expect(error).toMatchObject({ kind: "unavailable", outcome: "not_sent", reason: "network", httpStatus: null });
  });
});

describe("access token", () => {
  it("shares one token request among concurrent callers", async () => {
    await useFake({ tokenDelayMs: 50 });
    const daraja = client();
    const results = await Promise.all(Array.from({ length: 5 }, () => daraja.stkQuery({ checkoutRequestId: "ws_CO_1" })));
    expect(results.map((r) => r.status)).toEqual(Array(5).fill("SUCCESS"));
    expect(fake.tokenRequests).toBe(1);
    expect(fake.rejected).toEqual([]);
  });

  it("reuses the cached token until shortly before expiry, then fetches a new one", async () => {
    const daraja = client();
    await daraja.stkQuery({ checkoutRequestId: "ws_CO_1" });
    clock = new Date(clock.getTime() + 3_500_000);
    await daraja.stkQuery({ checkoutRequestId: "ws_CO_1" });
    expect(fake.tokenRequests).toBe(1);
    clock = new Date(clock.getTime() + 60_000); // 3560 s: inside the 60 s margin of "3599"
    await daraja.stkQuery({ checkoutRequestId: "ws_CO_1" });
    expect(fake.tokenRequests).toBe(2);
  });

  it("accepts expires_in as a number", async () => {
    await useFake({ expiresIn: 120 });
    const daraja = client();
    await daraja.stkQuery({ checkoutRequestId: "ws_CO_1" });
    clock = new Date(clock.getTime() + 55_000);
    await daraja.stkQuery({ checkoutRequestId: "ws_CO_1" });
    expect(fake.tokenRequests).toBe(1);
    clock = new Date(clock.getTime() + 10_000);
    await daraja.stkQuery({ checkoutRequestId: "ws_CO_1" });
    expect(fake.tokenRequests).toBe(2);
  });

  it("on 404.001.03 refreshes once and retries once", async () => {
    const daraja = client();
    await daraja.stkPush(push);
    fake.rotateToken();
    const response = await daraja.stkPush(push);
    expect(response.responseCode).toBe("0");
    expect(fake.tokenRequests).toBe(2);
    expect(calls(STK_PUSH)).toBe(3);
  });

  it("stops after one refresh when the new token is rejected too", async () => {
    fake.rejectEveryToken = true;
    const error = await caught(client().stkPush(push));
    expect(error).toMatchObject({ kind: "provider_error", reason: "invalid_access_token", httpStatus: 404, errorCode: "404.001.03" });
    expect(fake.tokenRequests).toBe(2);
    expect(calls(STK_PUSH)).toBe(2);
  });

  it("maps wrong consumer credentials to a push that was never sent, and does not retry them", async () => {
    const error = await caught(client({ consumerSecret: "wrong" }).stkPush(push));
    expect(error).toMatchObject({ kind: "unavailable", outcome: "not_sent", reason: "invalid_client_credentials", httpStatus: 400 });
    expect(fake.tokenRequests).toBe(1);
    expect(calls(STK_PUSH)).toBe(0);
  });
});

describe("stkQuery", () => {
  it("sends the credentials and CheckoutRequestID and classifies the final answer", async () => {
    const result = await client().stkQuery({ checkoutRequestId: "ws_CO_13012021093521236557" });
    expect(result).toEqual({
      status: "SUCCESS",
      resultCode: "0",
      resultDesc: "The service request is processed successfully.",
      merchantRequestId: "fake-merchant",
      checkoutRequestId: "ws_CO_13012021093521236557",
    });
    expect(fake.calls[STK_QUERY]?.[0]).toEqual({
      BusinessShortCode: "174379",
      Password: PORTAL_PASSWORD,
      Timestamp: "20210628092408",
      CheckoutRequestID: "ws_CO_13012021093521236557",
    });
  });

  it("reads the classic HTTP 500 'being processed' answer as PENDING", async () => {
    fake.script[STK_QUERY] = [
      (body) => ({ status: 500, body: { requestId: String(body["CheckoutRequestID"]), errorCode: "500.001.1001", errorMessage: "The transaction is being processed" } }),
    ];
    const result = await client().stkQuery({ checkoutRequestId: "ws_CO_20022018230142206" });
    expect(result).toMatchObject({ status: "PENDING", resultCode: null, checkoutRequestId: "ws_CO_20022018230142206" });
    expect(calls(STK_QUERY)).toBe(1);
  });

  it("reads HTTP 200 ResultCode 4999 as PENDING", async () => {
    fake.script[STK_QUERY] = [
      () => ({ status: 200, body: { ResponseCode: "0", ResponseDescription: "accepted", MerchantRequestID: "m", CheckoutRequestID: "ws_CO_1", ResultCode: "4999", ResultDesc: "The transaction is still under processing" } }),
    ];
    expect(await client().stkQuery({ checkoutRequestId: "ws_CO_1" })).toMatchObject({ status: "PENDING", resultCode: "4999" });
  });

  it.each([
    ["1032", "CANCELLED"],
    ["1037", "TIMEOUT"],
    ["1", "FAILED"],
    ["5555", "UNKNOWN"],
  ])("classifies ResultCode %s as %s whatever the ResultDesc says", async (code, status) => {
    fake.script[STK_QUERY] = [
      () => ({ status: 200, body: { ResponseCode: "0", MerchantRequestID: "m", CheckoutRequestID: "ws_CO_1", ResultCode: code, ResultDesc: "The service request is processed successfully." } }),
    ];
    expect(await client().stkQuery({ checkoutRequestId: "ws_CO_1" })).toMatchObject({ status, resultCode: code });
  });

  it("maps other 500.001.1001 messages to a provider_error", async () => {
    fake.script[STK_QUERY] = [() => ({ status: 500, body: { requestId: "r", errorCode: "500.001.1001", errorMessage: "Merchant does not exist" } })];
    const error = await caught(client().stkQuery({ checkoutRequestId: "ws_CO_1" }));
    expect(error).toMatchObject({ kind: "provider_error", reason: "merchant_does_not_exist" });
    expect(calls(STK_QUERY)).toBe(1);
  });

  it("is never repeated once it may have reached Daraja (a 5xx, a busy answer)", async () => {
    fake.script[STK_QUERY] = [() => ({ status: 503, body: "" })];
    expect(await caught(client().stkQuery({ checkoutRequestId: "ws_CO_1" }))).toMatchObject({ kind: "unavailable", outcome: "unknown", httpStatus: 503 });
    expect(calls(STK_QUERY)).toBe(1);

    const busy = () => ({ status: 500, body: { requestId: "r", errorCode: "500.003.02", errorMessage: "System is busy. Please try again in few minutes." } });
    fake.script[STK_QUERY] = [busy, busy];
    const error = await caught(client().stkQuery({ checkoutRequestId: "ws_CO_1" }));
    expect(error).toMatchObject({ kind: "unavailable", reason: "system_busy" });
    expect(calls(STK_QUERY)).toBe(2);
  });
});

describe("b2cPayment", () => {
  const payout = {
    originatorConversationId: "mteja-7f3c2a",
    commandId: "BusinessPayment" as const,
    amount: 150,
    phone: "254705912645",
    remarks: "Refund order 42",
    occasion: "Refund",
    resultUrl: "https://shop.example/api/momo/callback/b2c/result?token=abc",
    queueTimeoutUrl: "https://shop.example/api/momo/callback/b2c/timeout?token=abc",
  };

  it("posts the v3 request with Daraja's field names, including Occassion", async () => {
    const ack = await client().b2cPayment(payout);
    expect(fake.rejected).toEqual([]);
    expect(ack).toEqual({
      conversationId: "AG_20240706_fake",
      originatorConversationId: "mteja-7f3c2a",
      responseCode: "0",
      responseDescription: "Accept the service request successfully.",
    });
    expect(fake.calls[B2C]?.[0]).toEqual({
      OriginatorConversationID: "mteja-7f3c2a",
      InitiatorName: "testapi",
      SecurityCredential: SANDBOX.securityCredential,
      CommandID: "BusinessPayment",
      Amount: 150,
      PartyA: "600992",
      PartyB: "254705912645",
      Remarks: "Refund order 42",
      QueueTimeOutURL: payout.queueTimeoutUrl,
      ResultURL: payout.resultUrl,
      Occassion: "Refund",
    });
  });

  it("rejects a repeated OriginatorConversationID and never retries on its own", async () => {
    const daraja = client();
    await daraja.b2cPayment(payout);
    const error = await caught(daraja.b2cPayment(payout));
    expect(error).toMatchObject({ kind: "provider_error", reason: "duplicate_originator_conversation_id", errorCode: "500.002.1001", httpStatus: 500 });

    fake.script[B2C] = [() => ({ status: 502, body: "Bad Gateway" })];
    const unavailable = await caught(daraja.b2cPayment({ ...payout, originatorConversationId: "mteja-other" }));
    expect(unavailable).toMatchObject({ kind: "unavailable", outcome: "unknown" });
    expect(calls(B2C)).toBe(3);
  });

  it("refuses to run without B2C settings", async () => {
    await expect(client({ securityCredential: undefined }).b2cPayment(payout)).rejects.toThrow(/securityCredential/);
    expect(calls(B2C)).toBe(0);
  });
});

describe("transactionStatus", () => {
  it("queries by OriginatorConversationID with IdentifierType 4 and the B2C shortcode", async () => {
    const ack = await client().transactionStatus({
      originatorConversationId: "mteja-7f3c2a",
      resultUrl: "https://shop.example/status/result",
      queueTimeoutUrl: "https://shop.example/status/timeout",
      remarks: "Reconcile payout",
    });
    expect(fake.rejected).toEqual([]);
    expect(ack.conversationId).toBe("AG_20240706_query");
    expect(fake.calls[STATUS]?.[0]).toEqual({
      Initiator: "testapi",
      SecurityCredential: SANDBOX.securityCredential,
      CommandID: "TransactionStatusQuery",
      OriginatorConversationID: "mteja-7f3c2a",
      PartyA: "600992",
      IdentifierType: "4",
      ResultURL: "https://shop.example/status/result",
      QueueTimeOutURL: "https://shop.example/status/timeout",
      Remarks: "Reconcile payout",
      Occasion: "",
    });
  });

  it("needs a transaction id or an originator conversation id", async () => {
    await expect(client().transactionStatus({ resultUrl: "https://x/r", queueTimeoutUrl: "https://x/t", remarks: "r" })).rejects.toThrow(TypeError);
  });
});

const REVERSAL = "/mpesa/reversal/v1/request";

describe("reversal", () => {
  const reversal = {
    transactionId: "SKC82PACB8",
    amount: 200,
    resultUrl: "https://shop.example/api/momo/callback/reversal/result?token=abc",
    queueTimeoutUrl: "https://shop.example/api/momo/callback/reversal/timeout?token=abc",
    remarks: "Refund order 42",
  };

  it("posts the portal's fields, the misspelled RecieverIdentifierType \"11\" and the paybill as ReceiverParty; reads the portal's answer", async () => {
    const ack = await client().reversal(reversal);
    expect(fake.rejected).toEqual([]);
    expect(ack).toEqual({
      conversationId: "AG_20210706_20106e9209f64bebd05b",
      originatorConversationId: "f1e2-4b95-a71d-b30d3cdbb7a7735297",
      responseCode: "0",
      responseDescription: "Accept the service request successfully.",
    });
    expect(fake.calls[REVERSAL]?.[0]).toEqual({
      Initiator: "testapi",
      SecurityCredential: SANDBOX.securityCredential,
      CommandID: "TransactionReversal",
      TransactionID: "SKC82PACB8",
      Amount: 200,
      ReceiverParty: SANDBOX.shortcode,
      RecieverIdentifierType: "11",
      ResultURL: reversal.resultUrl,
      QueueTimeOutURL: reversal.queueTimeoutUrl,
      Remarks: "Refund order 42",
      Occasion: "",
    });
    expect(fake.calls[REVERSAL]?.[0]).not.toHaveProperty("ReceiverIdentifierType");
  });

  it("reverses from the till for Buy Goods", async () => {
    await client({ transactionType: "CustomerBuyGoodsOnline", partyB: "5432100" }).reversal(reversal);
    expect(fake.calls[REVERSAL]?.[0]?.ReceiverParty).toBe("5432100");
  });

  it("reads an acknowledgement that spells it OriginatorCoversationID", async () => {
    fake.script[REVERSAL] = [
      () => ({ status: 200, body: { OriginatorCoversationID: "6e86-45dd-91ac-fd5d4178ab523408729", ConversationID: "AG_1", ResponseCode: "0", ResponseDescription: "Success" } }),
    ];
    const ack = await client().reversal(reversal);
    expect(ack.originatorConversationId).toBe("6e86-45dd-91ac-fd5d4178ab523408729");
  });

  it("is never retried: a gateway page is an unknown outcome after one call", async () => {
    fake.script[REVERSAL] = [() => ({ status: 502, body: "Bad Gateway" })];
    const error = await caught(client().reversal(reversal));
    expect(error).toMatchObject({ kind: "unavailable", outcome: "unknown" });
    expect(calls(REVERSAL)).toBe(1);
  });

  it("queries a reversal's status on the paybill when asked to", async () => {
    await client().transactionStatus({ transactionId: "SKE52PAWR9", partyA: SANDBOX.shortcode, resultUrl: "https://x/r", queueTimeoutUrl: "https://x/t", remarks: "Reversal status" });
    expect(fake.calls[STATUS]?.[0]).toMatchObject({ TransactionID: "SKE52PAWR9", PartyA: SANDBOX.shortcode, IdentifierType: "4" });
  });
});

const BALANCE = "/mpesa/accountbalance/v1/query";

describe("accountBalance", () => {
  const request = {
    resultUrl: "https://shop.example/api/momo/callback/balance/result?token=abc",
    queueTimeoutUrl: "https://shop.example/api/momo/callback/balance/timeout?token=abc",
    remarks: "Account balance",
  };

  it("asks about the B2C short code by its initiator, type 4, the JSON spelling QueueTimeOutURL", async () => {
    const ack = await client().accountBalance(request);
    expect(fake.rejected).toEqual([]);
    expect(ack).toEqual({
      originatorConversationId: "515-5258779-3",
      conversationId: "AG_20200123_0000417fed8ed666e976",
      responseCode: "0",
      responseDescription: "Accept the service request successfully",
    });
    expect(fake.calls[BALANCE]?.[0]).toEqual({
      Initiator: "testapi",
      SecurityCredential: SANDBOX.securityCredential,
      CommandID: "AccountBalance",
      PartyA: SANDBOX.b2cShortcode,
      IdentifierType: "4",
      Remarks: "Account balance",
      QueueTimeOutURL: request.queueTimeoutUrl,
      ResultURL: request.resultUrl,
    });
  });

  it("is never retried: a gateway page is an unknown outcome after one call", async () => {
    fake.script[BALANCE] = [() => ({ status: 502, body: "Bad Gateway" })];
    const error = await caught(client().accountBalance(request));
    expect(error).toMatchObject({ kind: "unavailable", outcome: "unknown" });
    expect(calls(BALANCE)).toBe(1);
  });

  it("says which short code it asks about, and needs one", async () => {
    expect(client().b2cShortcode).toBe(SANDBOX.b2cShortcode);
    await expect(client({ b2cShortcode: undefined }).accountBalance(request)).rejects.toThrow(/b2cShortcode/);
  });
});
