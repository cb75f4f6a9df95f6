/**
 * The simulated provider as the domain uses it: a Daraja client answered in this process (no HTTP
 * listener anywhere: callbacks are captured by the fetch the simulation is given), deciding outcomes
 * by amount, refusing what Daraja refuses, and remembering in its store what a query, a second
 * request or a reversal needs.
 */
import { afterEach, describe, expect, it } from "vitest";
import { DarajaError, parseB2cResult, parseReversalResult, parseStkCallback, type DarajaClient } from "@mteja/daraja";
import {
  createDarajaSimulation,
  createMemoryStore,
  createSimulatedDarajaClient,
  simulationDefaults,
  type DarajaSimulation,
} from "../src/index.js";

interface Posted {
  url: string;
  body: unknown;
}

/** Stands in for the service's callback routes: every callback POSTed, answered 200. */
function callbackCatcher() {
  const posted: Posted[] = [];
  const fetch = (async (url: string | URL | Request, init?: RequestInit) => {
    posted.push({ url: String(url), body: JSON.parse(String(init?.body)) as unknown });
    return new Response(JSON.stringify({ ResultCode: 0, ResultDesc: "Accepted" }), { status: 200 });
  }) as typeof globalThis.fetch;
  return {
    posted,
    fetch,
    on: (path: string) => posted.filter((p) => new URL(p.url).pathname === path).map((p) => p.body),
  };
}

const account = {
  consumerKey: simulationDefaults.consumerKey,
  consumerSecret: simulationDefaults.consumerSecret,
  shortcode: simulationDefaults.shortcode,
  passkey: simulationDefaults.passkey,
  transactionType: "CustomerPayBillOnline",
  b2cShortcode: simulationDefaults.b2cShortcode,
  initiatorName: simulationDefaults.initiatorName,
  securityCredential: Buffer.from("any base64 without the simulator's key").toString("base64"),
  retryDelaysMs: [],
} as const;

const urls = {
  resultUrl: "https://shop.example/api/momo/callback/result",
  queueTimeoutUrl: "https://shop.example/api/momo/callback/timeout",
};
const payoutOf = (originatorConversationId: string) =>
  ({
    originatorConversationId,
    commandId: "BusinessPayment",
    amount: 100,
    phone: "254708374149",
    remarks: "Payout",
    ...urls,
  }) as const;
const prompt = (amount: number) => ({
  phone: "254708374149",
  amount,
  accountReference: "ORDER-42",
  transactionDesc: "Payment",
  callbackUrl: "https://shop.example/api/momo/callback/stkpush?token=t",
});

let simulation: DarajaSimulation | undefined;
afterEach(() => simulation?.close());

function start() {
  const catcher = callbackCatcher();
  simulation = createDarajaSimulation({ callbackDelayMs: 5, fetch: catcher.fetch }, { store: createMemoryStore() });
  const daraja: DarajaClient = createSimulatedDarajaClient(simulation, account);
  return { catcher, daraja };
}

describe("the simulated provider", () => {
  it("accepts a prompt, sends the success callback in Daraja's wire format, then the query answers it", async () => {
    const { catcher, daraja } = start();
    const ack = await daraja.stkPush(prompt(10));
    expect(ack).toMatchObject({ responseCode: "0", checkoutRequestId: expect.stringMatching(/^ws_CO_\d{27}$/) });
    await expect.poll(() => catcher.on("/api/momo/callback/stkpush")).toHaveLength(1);
    const parsed = parseStkCallback(catcher.on("/api/momo/callback/stkpush")[0]);
    const paid = { checkoutRequestId: ack.checkoutRequestId, resultCode: "0", amount: 10, phoneNumber: "254708374149" };
    expect(parsed).toMatchObject({ ok: true, value: paid });
    const query = daraja.stkQuery({ checkoutRequestId: ack.checkoutRequestId });
    await expect(query).resolves.toMatchObject({ status: "SUCCESS", resultCode: "0" });
  });

  it("lets the amount decide: 2 is cancelled, 6 is paid without a callback, and the query tells both", async () => {
    const { catcher, daraja } = start();
    const cancelled = await daraja.stkPush(prompt(2));
    const silent = await daraja.stkPush(prompt(6));
    const status = async (checkoutRequestId: string) => (await daraja.stkQuery({ checkoutRequestId })).status;
    await expect.poll(() => status(silent.checkoutRequestId)).toBe("SUCCESS");
    await expect(status(cancelled.checkoutRequestId)).resolves.toBe("CANCELLED");
    const callbacks = catcher.on("/api/momo/callback/stkpush");
    expect(callbacks).toEqual([
      {
        Body: {
          stkCallback: expect.objectContaining({ CheckoutRequestID: cancelled.checkoutRequestId, ResultCode: 1032 }),
        },
      },
    ]);
  });

  it("refuses as Daraja does: a field, an unknown prompt, a repeated OriginatorConversationID", async () => {
    const { daraja } = start();
    const refusal = await daraja
      .stkPush({ ...prompt(10), accountReference: "THIRTEEN-CHAR" })
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(DarajaError);
    expect(refusal).toMatchObject({
      outcome: "refused",
      errorCode: "400.002.02",
      errorMessage: "Bad Request - Invalid AccountReference",
    });
    const unknown = daraja.stkQuery({ checkoutRequestId: "ws_CO_unknown" });
    await expect(unknown).rejects.toMatchObject({ errorMessage: "Bad Request - Invalid CheckoutRequestID" });

    const payout = payoutOf("oc-1");
    await expect(daraja.b2cPayment(payout)).resolves.toMatchObject({
      originatorConversationId: "oc-1",
      responseCode: "0",
    });
    await expect(daraja.b2cPayment(payout)).rejects.toMatchObject({ reason: "duplicate_originator_conversation_id" });
  });

  it("checks the account as Daraja does: a wrong consumer secret never gets a token", async () => {
    start();
    const wrong = createSimulatedDarajaClient(simulation!, { ...account, consumerSecret: "nope" });
    await expect(wrong.stkPush(prompt(10))).rejects.toMatchObject({
      outcome: "not_sent",
      reason: "invalid_client_credentials",
    });
  });

  it("pays out, reverses a payment it settled once, and refuses the second reversal (R000001)", async () => {
    const { catcher, daraja } = start();
    await daraja.b2cPayment(payoutOf("oc-2"));
    await expect.poll(() => catcher.on("/api/momo/callback/result")).toHaveLength(1);
    const paidOut = parseB2cResult(catcher.on("/api/momo/callback/result")[0]);
    expect(paidOut).toMatchObject({ ok: true, value: { resultCode: "0", originatorConversationId: "oc-2" } });

    await daraja.stkPush(prompt(40));
    await expect.poll(() => catcher.on("/api/momo/callback/stkpush")).toHaveLength(1);
    const paid = parseStkCallback(catcher.on("/api/momo/callback/stkpush")[0]);
    const receipt = paid.ok ? paid.value.mpesaReceiptNumber! : "";
    const reversal = { transactionId: receipt, amount: 40, remarks: "Refund", ...urls };
    await daraja.reversal(reversal);
    await expect.poll(() => catcher.on("/api/momo/callback/result")).toHaveLength(2);
    await daraja.reversal(reversal);
    await expect.poll(() => catcher.on("/api/momo/callback/result")).toHaveLength(3);
    const [, first, second] = catcher.on("/api/momo/callback/result").map((body) => parseReversalResult(body));
    expect(first).toMatchObject({ ok: true, value: { resultCode: "0", originalTransactionId: receipt, amount: 40 } });
    expect(second).toMatchObject({ ok: true, value: { resultCode: "R000001" } });
  });
});
