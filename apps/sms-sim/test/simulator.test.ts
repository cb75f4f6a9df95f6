/**
 * The simulator answers as Africa's Talking does, read by the service's own client (@mteja/sms):
 * success with a messageId and delivery reports, both failure shapes, the plain-text 401.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAfricasTalkingClient } from "@mteja/sms";
import { buildSmsSimulator, partsOf, smsSimulatorDefaults } from "../src/index.js";

describe("SMS simulator", () => {
  const sim = buildSmsSimulator({ dlrDelayMs: 5 });
  const reports: Record<string, string>[] = [];
  const receiver = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      reports.push(Object.fromEntries(new URLSearchParams(body)));
      response.end();
    });
  });
  let url = "";
  beforeAll(async () => {
    url = await sim.listen({ host: "127.0.0.1", port: 0 });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    sim.setDeliveryReportUrl(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/dlr`);
  });
  afterAll(async () => {
    await sim.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });
  const client = () => createAfricasTalkingClient({ baseUrl: url, username: smsSimulatorDefaults.username, apiKey: smsSimulatorDefaults.apiKey, senderId: "MTEJA" });

  it("accepts a text, keeps it for the test and reports its delivery", async () => {
    const result = await client().send({ to: "+254712345678", message: "123456 is your code" });
    expect(result.outcome).toBe("accepted");
    expect(result.messageId).toMatch(/^ATXid_[0-9a-f]{32}$/);
    expect(sim.texts.at(-1)).toMatchObject({ to: "+254712345678", from: "MTEJA", message: "123456 is your code", statusCode: 101 });
    await expect.poll(() => reports.filter((r) => r.id === result.messageId).map((r) => r.status)).toEqual(["Submitted", "Success"]);
    expect(reports.at(-1)).toMatchObject({ phoneNumber: "+254712345678", networkCode: "63902", retryCount: "0" });
  });

  it("refuses an unregistered sender ID as a whole request, and a wrong key with plain text", async () => {
    const other = createAfricasTalkingClient({ baseUrl: url, username: "sandbox", apiKey: smsSimulatorDefaults.apiKey, senderId: "OTHER" });
    await expect(other.send({ to: "+254712345678", message: "x" })).rejects.toThrow(/InvalidSenderId/);
    const wrongKey = createAfricasTalkingClient({ baseUrl: url, username: "sandbox", apiKey: "nope" });
    await expect(wrongKey.send({ to: "+254712345678", message: "x" })).rejects.toThrow(/401: The supplied authentication is invalid/);
  });

  it("scripts per-recipient refusals and failed deliveries", async () => {
    sim.script({ kind: "recipient", statusCode: 406 });
    expect(await client().send({ to: "+254712345678", message: "x" })).toEqual({ outcome: "rejected", messageId: null, status: "406 UserInBlacklist" });
    sim.script({ kind: "delivery", status: "Failed" });
    const sent = await client().send({ to: "+254712345679", message: "x" });
    await expect.poll(() => reports.find((r) => r.id === sent.messageId && r.status === "Failed")?.failureReason).toBe("DeliveryFailure");
  });

  it("counts parts as GSM-7 or UCS-2 (an assumption, documented)", () => {
    expect(partsOf("a".repeat(160))).toBe(1);
    expect(partsOf("a".repeat(161))).toBe(2);
    expect(partsOf("🙂".repeat(36))).toBe(2);
  });
});
