import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_INITIATOR_NAME, SANDBOX_SHORTCODE, SIM_CONSUMER_KEY, SIM_CONSUMER_SECRET } from "../src/index.js";
import { simClient, startReceiver, startSimulator } from "./harness.js";
import type { Receiver, RunningSimulator } from "./harness.js";

let sim: RunningSimulator;
let receiver: Receiver;

beforeAll(async () => {
  sim = await startSimulator({ callbackDelayMs: 10 });
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver.close();
  await sim.close();
});

async function token(): Promise<string> {
  const basic = Buffer.from(`${SIM_CONSUMER_KEY}:${SIM_CONSUMER_SECRET}`).toString("base64");
  const response = await fetch(`${sim.url}/oauth/v1/generate?grant_type=client_credentials`, { headers: { authorization: `Basic ${basic}` } });
  return ((await response.json()) as { access_token: string }).access_token;
}

async function reversal(body: Record<string, unknown>) {
  const response = await fetch(`${sim.url}/mpesa/reversal/v1/request`, {
    method: "POST",
    headers: { authorization: `Bearer ${await token()}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const request = () => ({
  Initiator: SANDBOX_INITIATOR_NAME,
  SecurityCredential: "c2VjcmV0",
  CommandID: "TransactionReversal",
  TransactionID: "SKC82PACB8",
  Amount: 200,
  ReceiverParty: SANDBOX_SHORTCODE,
  RecieverIdentifierType: "11",
  ResultURL: `${receiver.url}/result`,
  QueueTimeOutURL: `${receiver.url}/timeout`,
  Remarks: "Refund",
});

describe("Reversal", () => {
  it("reads only the misspelled RecieverIdentifierType, and only 11", async () => {
    const { RecieverIdentifierType: _misspelled, ...rest } = request();
    const english = await reversal({ ...rest, ReceiverIdentifierType: "11" });
    expect(english).toMatchObject({ status: 400, body: { errorCode: "400.002.02", errorMessage: "Bad Request - Invalid RecieverIdentifierType" } });
    expect((await reversal({ ...request(), RecieverIdentifierType: "4" })).status).toBe(400);
    expect((await reversal({ ...request(), RecieverIdentifierType: 11 })).status).toBe(200);
  });

  it("acknowledges the client's request with both ids, then reports an unknown receipt as R000002 without parameters", async () => {
    const ack = await simClient(sim.url).reversal({ transactionId: "NOSUCH0001", amount: 200, remarks: "Refund", resultUrl: `${receiver.url}/result`, queueTimeoutUrl: `${receiver.url}/timeout` });
    expect(ack).toMatchObject({ responseCode: "0", originatorConversationId: expect.any(String), conversationId: expect.any(String) });
    await receiver.waitFor("/result", 2);
    const callback = receiver.on("/result").find((c) => (c.body as any)?.Result?.OriginatorConversationID === ack.originatorConversationId);
    expect((callback!.body as any).Result).toMatchObject({ ResultCode: "R000002", ResultDesc: "The OriginalTransactionID is invalid." });
    expect((callback!.body as any).Result.ResultParameters).toBeUndefined();
    expect(receiver.on("/timeout")).toEqual([]);
  });
});

describe("Reversal of a C2B payment", () => {
  const params = (body: any): Record<string, unknown> =>
    Object.fromEntries(((body?.Result?.ResultParameters?.ResultParameter ?? []) as { Key: string; Value: unknown }[]).map((p) => [p.Key, p.Value]));
  const resultFor = (path: string, originatorConversationId: string) =>
    receiver.on(path).find((c) => (c.body as any)?.Result?.OriginatorConversationID === originatorConversationId)?.body as any;

  it("knows a TransID paid through /sim/c2b/pay: refunds the payer, then refuses a second reversal with R000001", async () => {
    const paid = await fetch(`${sim.url}/sim/c2b/pay`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ account: "NOBODY", amount: 750, phone: "0712345678" }),
    });
    const { trans_id: transId, status } = (await paid.json()) as { trans_id: string; status: string };
    expect(status).toBe("completed");
    const client = simClient(sim.url);
    const urls = { resultUrl: `${receiver.url}/c2b-result`, queueTimeoutUrl: `${receiver.url}/c2b-timeout` };

    const first = await client.reversal({ transactionId: transId, amount: 750, remarks: "Refund", ...urls });
    await receiver.waitFor("/c2b-result", 1);
    const reversed = resultFor("/c2b-result", first.originatorConversationId);
    expect(reversed.Result).toMatchObject({ ResultCode: 0 });
    expect(params(reversed)).toMatchObject({ OriginalTransactionID: transId, Amount: 750, CreditPartyPublicName: expect.stringMatching(/^254712345678 - /) });

    const second = await client.reversal({ transactionId: transId, amount: 750, remarks: "Refund", ...urls });
    await receiver.waitFor("/c2b-result", 2);
    expect(resultFor("/c2b-result", second.originatorConversationId).Result).toMatchObject({ ResultCode: "R000001" });

    // Reconciling by the original receipt: Transaction Status describes the C2B payment, now reversed.
    await client.transactionStatus({ transactionId: transId, resultUrl: `${receiver.url}/c2b-status`, queueTimeoutUrl: `${receiver.url}/c2b-timeout`, remarks: "Check" });
    const [statusCallback] = await receiver.waitFor("/c2b-status", 1);
    expect((statusCallback!.body as any).Result).toMatchObject({ ResultCode: 0, TransactionID: transId });
    expect(params(statusCallback!.body)).toMatchObject({ TransactionStatus: "Reversed", Amount: 750, DebitPartyName: expect.stringMatching(/^254712345678 - /) });
    expect(receiver.on("/c2b-timeout")).toEqual([]);
  });
});
