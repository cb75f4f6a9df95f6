/**
 * The Africa's Talking client against answers recorded from the API (docs/sms.md): a success, a
 * per-recipient refusal, a request refused as a whole (no recipients), the plain-text 401 — and the
 * request it writes, read by a real HTTP server.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAfricasTalkingClient, readSendAnswer, SmsDeliveryError } from "../src/index.js";

/** Africa's Talking's documented success answer (HTTP 201). */
const SENT = `{"SMSMessageData":{"Message":"Sent to 1/1 Total Cost: KES 0.8000","Recipients":[{"statusCode":101,"number":"+254711XXXYYY","status":"Success","cost":"KES 0.8000","messageId":"ATPid_SampleTxnId123"}]}}`;
/** A live app's answer for a number that dialled the opt-out code. */
const BLACKLISTED = `{"SMSMessageData":{"Message":"Sent to 0/1 Total Cost: 0","Recipients":[{"cost":"0","messageId":"None","number":"+2547214141xx","status":"UserInBlacklist","statusCode":406}]}}`;
/** A request refused as a whole: the reason in Message, no recipients. */
const INVALID_SENDER = `{"SMSMessageData": {"Message": "InvalidSenderId", "Recipients": []}}`;
const UNAUTHORIZED = "The supplied authentication is invalid";

function rejectionOf(run: () => unknown): SmsDeliveryError {
  try {
    run();
  } catch (error) {
    if (error instanceof SmsDeliveryError) return error;
    throw error;
  }
  throw new Error("expected an SmsDeliveryError");
}

describe("readSendAnswer", () => {
  it("accepts 101 Success with its messageId (accepted is not delivered)", () => {
    expect(readSendAnswer(201, SENT)).toEqual({ outcome: "accepted", messageId: "ATPid_SampleTxnId123", status: "Success" });
    expect(readSendAnswer(200, SENT).outcome).toBe("accepted");
  });

  it("a per-recipient refusal is final, with no messageId", () => {
    expect(readSendAnswer(201, BLACKLISTED)).toEqual({ outcome: "rejected", messageId: null, status: "406 UserInBlacklist" });
  });

  it("a request refused with no recipients is retried, and stops the batch", () => {
    const error = rejectionOf(() => readSendAnswer(201, INVALID_SENDER));
    expect(error.message).toContain("InvalidSenderId");
    expect(error.providerUnavailable).toBe(true);
  });

  it("the plain-text 401 is retried, and stops the batch", () => {
    const error = rejectionOf(() => readSendAnswer(401, UNAUTHORIZED));
    expect(error.message).toContain("401");
    expect(error.providerUnavailable).toBe(true);
  });

  it("Africa's Talking's own errors per recipient are retried, this text only", () => {
    const gateway = SENT.replace('"statusCode":101', '"statusCode":500').replace('"Success"', '"InternalServerError"');
    expect(rejectionOf(() => readSendAnswer(201, gateway)).providerUnavailable).toBe(false);
  });

  it("an unparseable 2xx and a 5xx are retried", () => {
    expect(rejectionOf(() => readSendAnswer(201, "<html>bad gateway</html>")).providerUnavailable).toBe(true);
    expect(rejectionOf(() => readSendAnswer(503, "Service Unavailable")).providerUnavailable).toBe(true);
  });
});

describe("createAfricasTalkingClient", () => {
  const received: { url: string; headers: IncomingMessage["headers"]; body: string }[] = [];
  let answer = { status: 201, type: "application/json", body: SENT };
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      received.push({ url: request.url ?? "", headers: request.headers, body });
      response.writeHead(answer.status, { "content-type": answer.type }).end(answer.body);
    });
  });
  let baseUrl = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("posts the form Africa's Talking reads, with the key in the apiKey header", async () => {
    const client = createAfricasTalkingClient({ baseUrl, username: "sandbox", apiKey: "atsk_test_key", senderId: "MTEJA" });
    const result = await client.send({ to: "+254712345678", message: "Code 123456 & more" });
    expect(result.messageId).toBe("ATPid_SampleTxnId123");
    const request = received.at(-1)!;
    expect(request.url).toBe("/version1/messaging");
    expect(request.headers["apikey"]).toBe("atsk_test_key");
    expect(request.headers["accept"]).toBe("application/json");
    expect(request.headers["content-type"]).toContain("application/x-www-form-urlencoded");
    expect(Object.fromEntries(new URLSearchParams(request.body))).toEqual({
      username: "sandbox",
      to: "+254712345678",
      message: "Code 123456 & more",
      from: "MTEJA",
    });
  });

  it("reads the plain-text 401 as a refused key", async () => {
    answer = { status: 401, type: "text/plain", body: UNAUTHORIZED };
    const client = createAfricasTalkingClient({ baseUrl, username: "sandbox", apiKey: "wrong" });
    await expect(client.send({ to: "+254712345678", message: "x" })).rejects.toThrow(/401: The supplied authentication is invalid/);
    expect(new URLSearchParams(received.at(-1)!.body).has("from")).toBe(false);
  });

  it("an address nobody answers is the provider unavailable", async () => {
    const client = createAfricasTalkingClient({ baseUrl: "http://127.0.0.1:1", username: "sandbox", apiKey: "k" });
    const error = await client.send({ to: "+254712345678", message: "x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SmsDeliveryError);
    expect((error as SmsDeliveryError).providerUnavailable).toBe(true);
  });
});
