import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  classifyB2cResultCode,
  classifyTransactionStatusResult,
  DarajaError,
  parseB2cResult,
  parseB2cTimeout,
  parseTransactionStatusResult,
  securityCredentialFromCertificate,
} from "@mteja/daraja";
import type { ParseResult } from "@mteja/daraja";
import { createSimulatorKeyFiles, decryptSecurityCredential, SANDBOX_INITIATOR_PASSWORD } from "../src/index.js";
import type { SimulatorKeyPair } from "../src/index.js";
import { simClient, sleep, startReceiver, startSimulator } from "./harness.js";
import type { Receiver, RunningSimulator } from "./harness.js";

function value<T>(result: ParseResult<T>): T {
  if (!result.ok) throw new Error(result.error);
  return result.value;
}

let dir: string;
let keys: SimulatorKeyPair;
let credential: string;
let sim: RunningSimulator;
let receiver: Receiver;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "daraja-sim-"));
  keys = createSimulatorKeyFiles({ privateKeyPath: join(dir, "sim-private.pem"), publicKeyPath: join(dir, "sim-public.pem") });
  // What the service does with MOMO_INITIATOR_PASSWORD + MOMO_CERTIFICATE_PATH.
  credential = securityCredentialFromCertificate(readFileSync(join(dir, "sim-public.pem")), SANDBOX_INITIATOR_PASSWORD);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  receiver = await startReceiver();
  sim = await startSimulator({ privateKey: keys.privateKeyPem });
});

afterEach(async () => {
  await sim.close();
  await receiver.close();
});

const RESULT = "/api/momo/callback/b2c/result";
const TIMEOUT = "/api/momo/callback/b2c/timeout";
const STATUS_RESULT = "/api/momo/callback/status/result";

let serial = 0;
function payout(amount: number) {
  return {
    originatorConversationId: `mteja-test-${++serial}-${Date.now()}`,
    commandId: "BusinessPayment" as const,
    amount,
    phone: "254705912645",
    remarks: "Refund",
    occasion: "Order 42",
    resultUrl: `${receiver.url}${RESULT}?token=abc123`,
    queueTimeoutUrl: `${receiver.url}${TIMEOUT}?token=abc123`,
  };
}

describe("key files", () => {
  it("reuses an existing private key and writes a public key the client can encrypt with", () => {
    const again = createSimulatorKeyFiles({ privateKeyPath: join(dir, "sim-private.pem"), publicKeyPath: join(dir, "again.pem") });
    expect(again.privateKeyPem).toBe(keys.privateKeyPem);
    expect(readFileSync(join(dir, "again.pem"), "utf8")).toBe(keys.publicKeyPem);
    expect(decryptSecurityCredential(keys.privateKeyPem, credential)).toBe(SANDBOX_INITIATOR_PASSWORD);
  });
});

describe("B2C", () => {
  it("acknowledges, then POSTs the success Result with its parameters to the ResultURL as given", async () => {
    const request = payout(150);
    const ack = await simClient(sim.url, { securityCredential: credential }).b2cPayment(request);
    expect(ack).toMatchObject({ originatorConversationId: request.originatorConversationId, responseCode: "0", responseDescription: "Accept the service request successfully." });
    expect(ack.conversationId).toMatch(/^AG_\d{8}_[0-9a-f]{20}$/);

    const [callback] = await receiver.waitFor(RESULT);
    expect(callback?.query).toEqual({ token: "abc123" });
    const result = value(parseB2cResult(callback?.body));
    expect(result).toMatchObject({
      resultType: "0",
      resultCode: "0",
      originatorConversationId: request.originatorConversationId,
      conversationId: ack.conversationId,
      amount: 150,
      receiverName: "254705912645 - SIM CUSTOMER",
      recipientIsRegisteredCustomer: true,
    });
    expect(result.receipt).toBe(result.transactionId);
    expect(result.completedAt).toMatch(/^\d{2}\.\d{2}\.\d{4} \d{2}:\d{2}:\d{2}$/);
    expect(result.referenceData["QueueTimeoutURL"]).toBe(request.queueTimeoutUrl);
    expect(classifyB2cResultCode(result.resultCode)).toBe("SUCCESS");
    expect(receiver.on(TIMEOUT)).toEqual([]);
  });

  it("reports insufficient funds (amount 11) as ResultCode 1 without parameters", async () => {
    await simClient(sim.url, { securityCredential: credential }).b2cPayment(payout(11));
    const [callback] = await receiver.waitFor(RESULT);
    const result = value(parseB2cResult(callback?.body));
    expect(result.resultCode).toBe("1");
    expect(result.parameters).toEqual({});
    expect(classifyB2cResultCode(result.resultCode)).toBe("FAILED");
  });

  it("answers 2001 when the SecurityCredential does not decrypt to the initiator password", async () => {
    const wrong = securityCredentialFromCertificate(keys.publicKeyPem, "not-the-password");
    await simClient(sim.url, { securityCredential: wrong }).b2cPayment(payout(150));
    const [callback] = await receiver.waitFor(RESULT);
    expect(value(parseB2cResult(callback?.body))).toMatchObject({ resultCode: "2001", resultDesc: "The initiator information is invalid." });
  });

  it("on timeout (amount 12) calls the QueueTimeOutURL only; a Transaction Status query then reports the payout completed", async () => {
    const daraja = simClient(sim.url, { securityCredential: credential });
    const request = payout(12);
    const ack = await daraja.b2cPayment(request);
    const [timeoutCallback] = await receiver.waitFor(TIMEOUT);
    expect(value(parseB2cTimeout(timeoutCallback?.body))).toMatchObject({
      originatorConversationId: request.originatorConversationId,
      conversationId: ack.conversationId,
      resultDesc: "The service request has timed out.",
    });
    await sleep(40);
    expect(receiver.on(RESULT)).toEqual([]);

    const query = await daraja.transactionStatus({
      originatorConversationId: request.originatorConversationId,
      resultUrl: `${receiver.url}${STATUS_RESULT}?token=abc123`,
      queueTimeoutUrl: `${receiver.url}/api/momo/callback/status/timeout?token=abc123`,
      remarks: "Reconcile payout",
    });
    expect(query.responseCode).toBe("0");
    const [statusCallback] = await receiver.waitFor(STATUS_RESULT);
    const status = value(parseTransactionStatusResult(statusCallback?.body));
    expect(status).toMatchObject({
      resultCode: "0",
      originatorConversationId: query.originatorConversationId,
      conversationId: query.conversationId,
      transaction: { status: "Completed", amount: 12, originatorConversationId: request.originatorConversationId, conversationId: ack.conversationId },
    });
    expect(status.transaction.receiptNo).toBe(status.transactionId);
    expect(classifyTransactionStatusResult(status)).toBe("SUCCESS");
  });

  it("reports a failed payout as Failed when queried by receipt", async () => {
    const daraja = simClient(sim.url, { securityCredential: credential });
    await daraja.b2cPayment(payout(11));
    const [resultCallback] = await receiver.waitFor(RESULT);
    const receipt = value(parseB2cResult(resultCallback?.body)).transactionId ?? "";
    await daraja.transactionStatus({ transactionId: receipt, resultUrl: `${receiver.url}${STATUS_RESULT}`, queueTimeoutUrl: `${receiver.url}/t`, remarks: "Check" });
    const [statusCallback] = await receiver.waitFor(STATUS_RESULT);
    expect(classifyTransactionStatusResult(value(parseTransactionStatusResult(statusCallback?.body)))).toBe("FAILED");
  });

  it("in no-callback mode (amount 13) sends nothing at all", async () => {
    await simClient(sim.url, { securityCredential: credential }).b2cPayment(payout(13));
    await sleep(150);
    expect(receiver.received).toEqual([]);
  });

  it("rejects a repeated OriginatorConversationID with 500.002.1001", async () => {
    const daraja = simClient(sim.url, { securityCredential: credential });
    const request = payout(150);
    await daraja.b2cPayment(request);
    const error = await daraja.b2cPayment(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DarajaError);
    expect(error).toMatchObject({ kind: "provider_error", reason: "duplicate_originator_conversation_id", httpStatus: 500, errorCode: "500.002.1001", errorMessage: "Duplicate OriginatorConversationID." });
    await receiver.waitFor(RESULT);
    await sleep(40);
    expect(receiver.on(RESULT)).toHaveLength(1);
  });

  it("rejects a SecurityCredential that is not base64, and an unknown transaction in a status query", async () => {
    const daraja = simClient(sim.url, { securityCredential: "not base64!" });
    await expect(daraja.b2cPayment(payout(150))).rejects.toMatchObject({ httpStatus: 400, errorMessage: "Bad Request - Invalid SecurityCredential" });
    await expect(
      simClient(sim.url, { securityCredential: credential }).transactionStatus({ transactionId: "ZZZ0000000", resultUrl: `${receiver.url}/r`, queueTimeoutUrl: `${receiver.url}/t`, remarks: "Check" }),
    ).rejects.toMatchObject({ httpStatus: 400, errorMessage: "Bad Request - Invalid TransactionID" });
  });
});
