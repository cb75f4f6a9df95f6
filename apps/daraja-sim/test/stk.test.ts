import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { classifyStkResultCode, DarajaError, parseStkCallback, stkPassword, darajaTimestamp } from "@mteja/daraja";
import type { StkCallback } from "@mteja/daraja";
import { SANDBOX_PASSKEY, SANDBOX_SHORTCODE } from "../src/index.js";
import { raw, rawToken, simClient, sleep, startReceiver, startSimulator } from "./harness.js";
import type { Receiver, RunningSimulator } from "./harness.js";

let sim: RunningSimulator;
let receiver: Receiver;

beforeEach(async () => {
  receiver = await startReceiver();
});

afterEach(async () => {
  await sim?.close();
  await receiver.close();
});

const CALLBACK_PATH = "/api/momo/callback/stkpush";

function push(phone = "254708374149", amount = 10) {
  return {
    phone,
    amount,
    accountReference: "ORDER-42",
    transactionDesc: "Payment",
    callbackUrl: `${receiver.url}${CALLBACK_PATH}?token=s3cr3t-hex-0f9a`,
  };
}

function parsedCallback(body: unknown): StkCallback {
  const result = parseStkCallback(body);
  if (!result.ok) throw new Error(result.error);
  return result.value;
}

describe("STK push", () => {
  it("accepts the prompt, then POSTs the success callback with metadata to the URL as given", async () => {
    sim = await startSimulator();
    const daraja = simClient(sim.url);
    const ack = await daraja.stkPush(push("254708374149", 10));
    expect(ack).toMatchObject({ responseCode: "0", customerMessage: "Success. Request accepted for processing" });
    expect(ack.checkoutRequestId).toMatch(/^ws_CO_\d{27}$/);

    const [callback] = await receiver.waitFor(CALLBACK_PATH);
    expect(callback?.query).toEqual({ token: "s3cr3t-hex-0f9a" });
    const stk = callback?.body as { Body: { stkCallback: { ResultCode: unknown; CallbackMetadata: { Item: { Name: string; Value: unknown }[] } } } };
    expect(stk.Body.stkCallback.ResultCode).toBe(0);
    expect(stk.Body.stkCallback.CallbackMetadata.Item.map((item) => item.Name)).toEqual(["Amount", "MpesaReceiptNumber", "TransactionDate", "PhoneNumber"]);
    expect(typeof stk.Body.stkCallback.CallbackMetadata.Item[3]?.Value).toBe("number");

    const parsed = parsedCallback(callback?.body);
    expect(parsed).toMatchObject({
      merchantRequestId: ack.merchantRequestId,
      checkoutRequestId: ack.checkoutRequestId,
      resultCode: "0",
      amount: 10,
      phoneNumber: "254708374149",
    });
    expect(parsed.mpesaReceiptNumber).toMatch(/^[A-Z][A-Z0-9]{9}$/);
    expect(parsed.transactionDate).toMatch(/^20\d{12}$/);

    expect(await daraja.stkQuery({ checkoutRequestId: ack.checkoutRequestId })).toMatchObject({ status: "SUCCESS", resultCode: "0" });
  });

  it.each([
    [2, "1032", "CANCELLED"],
    [3, "1037", "TIMEOUT"],
    [4, "1", "FAILED"],
    [5, "2001", "FAILED"],
    [9, "5555", "UNKNOWN"],
  ])("amount %i ends with ResultCode %s and no metadata", async (amount, code, status) => {
    sim = await startSimulator();
    const daraja = simClient(sim.url);
    const ack = await daraja.stkPush(push("254712345678", amount));
    const [callback] = await receiver.waitFor(CALLBACK_PATH);
    const parsed = parsedCallback(callback?.body);
    expect(parsed).toEqual({ merchantRequestId: ack.merchantRequestId, checkoutRequestId: ack.checkoutRequestId, resultCode: code, resultDesc: expect.any(String) });
    expect(classifyStkResultCode(parsed.resultCode)).toBe(status);
    expect(await daraja.stkQuery({ checkoutRequestId: ack.checkoutRequestId })).toMatchObject({ status, resultCode: code });
  });

  it("takes the next outcome from the control endpoint, only for the phone named", async () => {
    sim = await startSimulator();
    const queued = await raw(`${sim.url}/sim/next-outcome`, { headers: { "Content-Type": "application/json" }, body: JSON.stringify({ outcome: "cancelled", phone: "0711000111" }) });
    expect(queued.status).toBe(200);
    const daraja = simClient(sim.url);
    await daraja.stkPush(push("254722000000", 10));
    await daraja.stkPush(push("254711000111", 10));
    await daraja.stkPush(push("254711000111", 10));
    const callbacks = (await receiver.waitFor(CALLBACK_PATH, 3)).map((c) => parsedCallback(c.body));
    const byPhoneAndCode = callbacks.map((c) => `${c.phoneNumber ?? "-"}:${c.resultCode}`).sort();
    expect(byPhoneAndCode).toEqual(["-:1032", "254711000111:0", "254722000000:0"]);
  });

  it("rejects an unknown outcome on the control endpoint", async () => {
    sim = await startSimulator();
    const answer = await raw(`${sim.url}/sim/next-outcome`, { headers: { "Content-Type": "application/json" }, body: JSON.stringify({ outcome: "explode" }) });
    expect(answer.status).toBe(400);
  });

  it("in no-callback mode sends nothing, yet the query settles", async () => {
    sim = await startSimulator();
    const daraja = simClient(sim.url);
    const ack = await daraja.stkPush(push("254708374149", 6));
    await sleep(150);
    expect(receiver.received).toEqual([]);
    expect(await daraja.stkQuery({ checkoutRequestId: ack.checkoutRequestId })).toMatchObject({ status: "SUCCESS", resultCode: "0" });
  });

  it("in duplicate mode delivers the same callback twice", async () => {
    sim = await startSimulator();
    const ack = await simClient(sim.url).stkPush(push("254708374149", 7));
    const callbacks = await receiver.waitFor(CALLBACK_PATH, 2);
    expect(callbacks[0]?.body).toEqual(callbacks[1]?.body);
    expect(parsedCallback(callbacks[0]?.body).checkoutRequestId).toBe(ack.checkoutRequestId);
    await sleep(60);
    expect(receiver.on(CALLBACK_PATH)).toHaveLength(2);
  });

  it("refuses a locked subscriber (amount 8) up front", async () => {
    sim = await startSimulator();
    const error = await simClient(sim.url).stkPush(push("254708374149", 8)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DarajaError);
    expect(error).toMatchObject({ kind: "provider_error", reason: "subscriber_locked", httpStatus: 500, errorCode: "500.001.1001" });
  });
});

describe("STK query while the prompt is open", () => {
  async function queryBody(simUrl: string, checkoutRequestId: string) {
    const timestamp = darajaTimestamp(new Date());
    return raw(`${simUrl}/mpesa/stkpushquery/v1/query`, {
      headers: { Authorization: `Bearer ${await rawToken(simUrl)}`, "Content-Type": "application/json" },
      body: JSON.stringify({ BusinessShortCode: SANDBOX_SHORTCODE, Password: stkPassword(SANDBOX_SHORTCODE, SANDBOX_PASSKEY, timestamp), Timestamp: timestamp, CheckoutRequestID: checkoutRequestId }),
    });
  }

  it("answers the classic HTTP 500 'being processed', then the final code as a string", async () => {
    sim = await startSimulator({ callbackDelayMs: 500 });
    const daraja = simClient(sim.url);
    const ack = await daraja.stkPush(push("254708374149", 2));
    const pending = await queryBody(sim.url, ack.checkoutRequestId);
    expect(pending.status).toBe(500);
    expect(pending.json).toEqual({ requestId: ack.checkoutRequestId, errorCode: "500.001.1001", errorMessage: "The transaction is being processed" });
    expect(await daraja.stkQuery({ checkoutRequestId: ack.checkoutRequestId })).toMatchObject({ status: "PENDING", resultCode: null });

    await receiver.waitFor(CALLBACK_PATH);
    const final = await queryBody(sim.url, ack.checkoutRequestId);
    expect(final.status).toBe(200);
    expect(final.json).toMatchObject({ ResponseCode: "0", CheckoutRequestID: ack.checkoutRequestId, ResultCode: "1032" });
    expect(await daraja.stkQuery({ checkoutRequestId: ack.checkoutRequestId })).toMatchObject({ status: "CANCELLED", resultCode: "1032" });
  });

  it("answers HTTP 200 ResultCode 4999 in the '4999' mode", async () => {
    sim = await startSimulator({ callbackDelayMs: 500, queryPendingMode: "4999" });
    const daraja = simClient(sim.url);
    const ack = await daraja.stkPush(push());
    const pending = await queryBody(sim.url, ack.checkoutRequestId);
    expect(pending.status).toBe(200);
    expect(pending.json).toMatchObject({ ResultCode: "4999", ResultDesc: "The transaction is still under processing" });
    expect(await daraja.stkQuery({ checkoutRequestId: ack.checkoutRequestId })).toMatchObject({ status: "PENDING", resultCode: "4999" });
    await receiver.waitFor(CALLBACK_PATH);
    expect(await daraja.stkQuery({ checkoutRequestId: ack.checkoutRequestId })).toMatchObject({ status: "SUCCESS", resultCode: "0" });
  });
});

describe("STK validation", () => {
  it("rejects a wrong passkey with Daraja's envelope", async () => {
    sim = await startSimulator();
    const error = await simClient(sim.url, { passkey: "0".repeat(64) }).stkPush(push()).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "provider_error", reason: "wrong_credentials", httpStatus: 500, errorCode: "500.001.1001", errorMessage: "[MerchantValidate] - Wrong credentials" });
    expect((error as DarajaError).requestId).toMatch(/^\d{4}-\d{8}-1$/);
  });

  it.each([
    ["a local-format phone", { phone: "0712345678" }, "Bad Request - Invalid PhoneNumber"],
    ["a Tanzanian phone", { phone: "255712345678" }, "Bad Request - Invalid PhoneNumber"],
    ["a 13-character AccountReference", { accountReference: "ORDER-1234567" }, "Bad Request - Invalid AccountReference"],
    ["a 14-character TransactionDesc", { transactionDesc: "Payment for 42" }, "Bad Request - Invalid TransactionDesc"],
    ["a fractional amount", { amount: 1.5 }, "Bad Request - Invalid Amount"],
    ["a zero amount", { amount: 0 }, "Bad Request - Invalid Amount"],
    ["an amount over 250,000", { amount: 250_001 }, "Bad Request - Invalid Amount"],
    ["a callback URL with a blocked word", { callbackUrl: "https://shop.example/mpesa/callback" }, "Bad Request - Invalid CallBackURL"],
  ])("rejects %s with 400.002.02", async (_label, change, message) => {
    sim = await startSimulator();
    const error = await simClient(sim.url).stkPush({ ...push(), ...change }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "provider_error", httpStatus: 400, errorCode: "400.002.02", errorMessage: message });
    expect(receiver.received).toEqual([]);
  });

  it("rejects a malformed Timestamp, a missing Content-Type, wrong methods and unknown paths as Daraja does", async () => {
    sim = await startSimulator();
    const token = await rawToken(sim.url);
    const auth = { Authorization: `Bearer ${token}` };
    const body = {
      BusinessShortCode: SANDBOX_SHORTCODE,
      Password: stkPassword(SANDBOX_SHORTCODE, SANDBOX_PASSKEY, "2021062809240"),
      Timestamp: "2021062809240",
      TransactionType: "CustomerPayBillOnline",
      Amount: 1,
      PartyA: "254708374149",
      PartyB: SANDBOX_SHORTCODE,
      PhoneNumber: "254708374149",
      CallBackURL: `${receiver.url}/cb`,
      AccountReference: "ref",
      TransactionDesc: "desc",
    };
    const badTimestamp = await raw(`${sim.url}/mpesa/stkpush/v1/processrequest`, { headers: { ...auth, "Content-Type": "application/json" }, body: JSON.stringify(body) });
    expect(badTimestamp).toMatchObject({ status: 400, json: { errorCode: "400.002.02", errorMessage: "Bad Request - Invalid Timestamp" } });

    const noContentType = await raw(`${sim.url}/mpesa/stkpush/v1/processrequest`, { headers: auth, body: JSON.stringify(body) });
    expect(noContentType).toMatchObject({ status: 400, json: { errorCode: "400.002.02", errorMessage: "Bad Request - Invalid BusinessShortCode" } });

    const wrongMethod = await raw(`${sim.url}/mpesa/stkpush/v1/processrequest`, { method: "GET", headers: auth });
    expect(wrongMethod).toMatchObject({ status: 405, json: { errorCode: "405.001", errorMessage: "Method Not Allowed" } });

    const unknownPath = await raw(`${sim.url}/mpesa/stkpush/v9/processrequest`, { headers: auth });
    expect(unknownPath).toMatchObject({ status: 404, json: { errorCode: "404.001.01", errorMessage: "Resource not found" } });
    expect(Object.keys(unknownPath.json as object).sort()).toEqual(["errorCode", "errorMessage", "requestId"]);
  });

  it("refuses a second prompt to a phone with an open one when lockSubscriberWhilePending is on", async () => {
    sim = await startSimulator({ callbackDelayMs: 500, lockSubscriberWhilePending: true });
    const daraja = simClient(sim.url);
    await daraja.stkPush(push("254708374149"));
    await expect(daraja.stkPush(push("254708374149"))).rejects.toMatchObject({ reason: "subscriber_locked" });
    await expect(daraja.stkPush(push("254711222333"))).resolves.toMatchObject({ responseCode: "0" });
  });

  it("answers 2028 when PayBill's PartyB is not the shortcode", async () => {
    sim = await startSimulator();
    await simClient(sim.url, { partyB: "999999" }).stkPush(push());
    const [callback] = await receiver.waitFor(CALLBACK_PATH);
    expect(parsedCallback(callback?.body).resultCode).toBe("2028");
  });
});
