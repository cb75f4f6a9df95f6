import { parseAccountBalanceResult, parseAccountBalances } from "@mteja/daraja";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_B2C_SHORTCODE, SANDBOX_INITIATOR_NAME } from "../src/index.js";
import { raw, rawToken, simClient, sleep, startReceiver, startSimulator } from "./harness.js";
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

const urls = () => ({
  resultUrl: `${receiver.url}/balance/result`,
  queueTimeoutUrl: `${receiver.url}/balance/timeout`,
  remarks: "Balance",
});

const originatorOf = (callback: { body: unknown }) => (callback.body as any)?.Result?.OriginatorConversationID;

async function post(body: Record<string, unknown>) {
  const headers = { authorization: `Bearer ${await rawToken(sim.url)}`, "content-type": "application/json" };
  return raw(`${sim.url}/mpesa/accountbalance/v1/query`, { headers, body: JSON.stringify(body) });
}

const request = () => ({
  Initiator: SANDBOX_INITIATOR_NAME,
  SecurityCredential: "c2VjcmV0",
  CommandID: "AccountBalance",
  PartyA: SANDBOX_B2C_SHORTCODE,
  IdentifierType: "4",
  Remarks: "ok",
  QueueTimeOutURL: `${receiver.url}/balance/timeout`,
  ResultURL: `${receiver.url}/balance/result`,
});

/** The callback on `path` that names the request `originatorConversationId` acknowledged. */
async function callbackFor(path: string, originatorConversationId: string) {
  await receiver.waitFor(path);
  for (let attempt = 0; attempt < 100; attempt++) {
    const found = receiver.on(path).filter((c) => originatorOf(c) === originatorConversationId);
    if (found.length > 0) return found;
    await sleep(20);
  }
  throw new Error(`no callback on ${path} for ${originatorConversationId}`);
}

async function queue(outcome: string) {
  const answer = await raw(`${sim.url}/sim/next-outcome`, { body: JSON.stringify({ outcome, api: "balance" }) });
  expect(answer.status).toBe(200);
}

describe("Account Balance", () => {
  it("acknowledges with fresh ids, then posts the ledger's accounts in the portal's format", async () => {
    const ack = await simClient(sim.url).accountBalance(urls());
    expect(ack).toMatchObject({ responseCode: "0", conversationId: expect.stringMatching(/^AG_/) });
    expect(ack.originatorConversationId).toEqual(expect.any(String));
    const [callback] = await callbackFor("/balance/result", ack.originatorConversationId);
    const result = parseAccountBalanceResult(callback!.body);
    if (!result.ok) throw new Error(result.error);
    expect(result.value).toMatchObject({ resultCode: "0", conversationId: ack.conversationId });
    expect(result.value.completedAt).toMatch(/^\d{14}$/);
    const accounts = parseAccountBalances(result.value.balance!);
    if (!accounts.ok) throw new Error(accounts.error);
    expect(accounts.value.map((account) => account.name)).toContain("Utility Account");
    const utility = accounts.value.find((account) => account.name === "Utility Account");
    expect(utility).toMatchObject({ currency: "KES", current: 8_959_269.6 });
  });

  it("checks the request as Daraja does", async () => {
    expect((await post(request())).status).toBe(200);
    for (const [field, value] of [
      ["CommandID", "TransactionStatusQuery"],
      ["PartyA", "999999"],
      ["IdentifierType", "1"],
      ["Remarks", "x".repeat(101)],
      ["ResultURL", "https://shop.example/mpesa/result"],
      ["QueueTimeOutURL", "not a url"],
      ["SecurityCredential", "not base64!"],
    ] as const) {
      const refused = await post({ ...request(), [field]: value });
      const json = { errorCode: "400.002.02", errorMessage: `Bad Request - Invalid ${field}` };
      expect(refused, field).toMatchObject({ status: 400, json });
    }
  });

  it("reports a wrong initiator as 2001 in a Result without parameters", async () => {
    const ack = await simClient(sim.url, { initiatorName: "someone-else" }).accountBalance(urls());
    const [callback] = await callbackFor("/balance/result", ack.originatorConversationId);
    const invalid = { ResultCode: 2001, ResultDesc: "The initiator information is invalid." };
    expect((callback!.body as any).Result).toMatchObject(invalid);
    expect((callback!.body as any).Result.ResultParameters).toBeUndefined();
  });

  it("sends only the time-out notice, or the Result twice, when a queued outcome says so", async () => {
    await queue("timeout");
    const timedOut = await simClient(sim.url).accountBalance(urls());
    const [notice] = await callbackFor("/balance/timeout", timedOut.originatorConversationId);
    const timeout = { ResultType: 1, ResultCode: "1", ConversationID: timedOut.conversationId };
    expect((notice!.body as any).Result).toMatchObject(timeout);

    await queue("duplicate_callback");
    const twice = await simClient(sim.url).accountBalance(urls());
    await callbackFor("/balance/result", twice.originatorConversationId);
    await sleep(100);
    const results = receiver.on("/balance/result").filter((c) => originatorOf(c) === twice.originatorConversationId);
    expect(results).toHaveLength(2);
  });
});
