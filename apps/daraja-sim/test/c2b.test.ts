/**
 * The simulator's C2B (docs/daraja-simulator.md#c2b): register URL v1/v2, and /sim/c2b/pay running
 * validation then confirmation as M-Pesa does: the validation's answer, its absence and ResponseType.
 */
import Fastify from "fastify";
import { parseC2bNotification } from "@mteja/daraja";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { raw, rawToken, simClient, startSimulator } from "./harness.js";
import type { RunningSimulator } from "./harness.js";

interface Shop {
  url: string;
  received: { path: string; body: any }[];
  /** What the validation URL does: answer this (status, body) or wait this long first. */
  validation: { status?: number; body?: unknown; delayMs?: number };
  close(): Promise<void>;
}

async function startShop(): Promise<Shop> {
  const app = Fastify({ logger: false, forceCloseConnections: true });
  const shop: Shop = { url: "", received: [], validation: { body: { ResultCode: "0", ResultDesc: "Accepted" } }, close: () => app.close() };
  app.post("/c2b/:leaf", async (request, reply) => {
    const leaf = (request.params as { leaf: string }).leaf;
    shop.received.push({ path: leaf, body: request.body });
    if (leaf === "confirmation") return { ResultCode: 0, ResultDesc: "Success" };
    if (shop.validation.delayMs) await new Promise((resolve) => setTimeout(resolve, shop.validation.delayMs));
    return reply.code(shop.validation.status ?? 200).send(shop.validation.body);
  });
  shop.url = await app.listen({ host: "127.0.0.1", port: 0 });
  return shop;
}

let sim: RunningSimulator;
let shop: Shop;

beforeEach(async () => {
  sim = await startSimulator({ c2bValidationTimeoutMs: 300 });
  shop = await startShop();
});
afterEach(async () => {
  await sim.close();
  await shop.close();
});

const register = (responseType: "Completed" | "Cancelled" = "Completed", shortCode = "600984") =>
  simClient(sim.url).registerC2bUrls({ shortCode, responseType, confirmationUrl: `${shop.url}/c2b/confirmation?token=t`, validationUrl: `${shop.url}/c2b/validation?token=t` });
const pay = async (body: Record<string, unknown>) => {
  const answer = await raw(`${sim.url}/sim/c2b/pay`, { headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(answer.status).toBe(200);
  return answer.json as { trans_id: string; status: string; reason: string; validation: any; confirmation: any };
};

describe("C2B register URL", () => {
  it("answers both versions with Daraja's spelling; a version the app lacks is 401.003.01", async () => {
    expect(await register()).toMatchObject({ responseCode: "0", responseDescription: "Success", version: "v2" });
    const token = await rawToken(sim.url);
    const v1 = await raw(`${sim.url}/mpesa/c2b/v1/registerurl`, {
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ ShortCode: "600984", ResponseType: "Completed", ConfirmationURL: `${shop.url}/c2b/confirmation`, ValidationURL: `${shop.url}/c2b/validation` }),
    });
    expect(v1.json).toEqual({ OriginatorCoversationID: expect.any(String), ResponseCode: "0", ResponseDescription: "Success" });
    const v2Only = await startSimulator({ c2bRegisterVersions: ["v2"] });
    try {
      const refused = await simClient(v2Only.url, { c2bRegisterVersion: "v1" }).registerC2bUrls({ shortCode: "600984", responseType: "Completed", confirmationUrl: `${shop.url}/c`, validationUrl: `${shop.url}/v` });
      expect(refused.version).toBe("v2"); // the client tried v1, got 401.003.01, then v2
    } finally {
      await v2Only.close();
    }
  });

  it("refuses a misspelt ResponseType and a URL with a word Daraja blocks", async () => {
    const token = await rawToken(sim.url);
    const post = (body: object) => raw(`${sim.url}/mpesa/c2b/v2/registerurl`, { headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    const base = { ShortCode: "600984", ResponseType: "Completed", ConfirmationURL: `${shop.url}/c`, ValidationURL: `${shop.url}/v` };
    expect((await post({ ...base, ResponseType: "Canceled" })).json).toMatchObject({ errorCode: "400.002.02", errorMessage: "Bad Request - Invalid ResponseType" });
    expect((await post({ ...base, ValidationURL: `${shop.url}/mpesa/v` })).json).toMatchObject({ errorMessage: "Bad Request - Invalid ValidationURL" });
  });
});

describe("/sim/c2b/pay", () => {
  it("validates, then confirms in Daraja's format: string amount, masked MSISDN, new balance, echoed ThirdPartyTransID", async () => {
    await register();
    shop.validation.body = { ResultCode: "0", ResultDesc: "Accepted", ThirdPartyTransID: "shop-77" };
    const paid = await pay({ short_code: "600984", account: "ORD1042", amount: 750, phone: "0712345678" });
    expect(paid).toMatchObject({ status: "completed", reason: "accepted", validation: { verdict: "accepted", status: 200 }, confirmation: { status: 200 } });
    expect(shop.received.map((r) => r.path)).toEqual(["validation", "confirmation"]);
    const [validation, confirmation] = shop.received.map((r) => r.body);
    expect(validation).toMatchObject({ TransactionType: "Pay Bill", TransID: paid.trans_id, TransAmount: "750.00", BusinessShortCode: "600984", BillRefNumber: "ORD1042", MSISDN: "2547 ***** 678", OrgAccountBalance: "", ThirdPartyTransID: "" });
    expect(confirmation).toMatchObject({ TransID: paid.trans_id, ThirdPartyTransID: "shop-77", OrgAccountBalance: expect.stringMatching(/^\d+\.\d{2}$/) });
    // What the service's parser makes of it.
    const parsed = parseC2bNotification(confirmation);
    expect(parsed.ok && parsed.value).toMatchObject({ amount: 750, msisdnForm: "masked", maskedMsisdn: "2547*****678" });
  });

  it("cancels on a rejection code: no confirmation", async () => {
    await register();
    shop.validation.body = { ResultCode: "C2B00012", ResultDesc: "Rejected" };
    const paid = await pay({ short_code: "600984", account: "NOPE", amount: 10 });
    expect(paid).toMatchObject({ status: "cancelled", reason: "rejected with C2B00012", confirmation: null });
    expect(shop.received.map((r) => r.path)).toEqual(["validation"]);
  });

  it("lets ResponseType decide when validation does not answer in time or fails: Completed confirms, Cancelled does not", async () => {
    await register("Completed");
    shop.validation.delayMs = 1_000;
    expect(await pay({ short_code: "600984", account: "A1", amount: 10 })).toMatchObject({ status: "completed", reason: "no validation answer; ResponseType Completed", confirmation: { status: 200 } });
    await register("Cancelled");
    expect(await pay({ short_code: "600984", account: "A1", amount: 10 })).toMatchObject({ status: "cancelled", confirmation: null });
    shop.validation = { status: 500, body: "oops" };
    expect(await pay({ short_code: "600984", account: "A1", amount: 10 })).toMatchObject({ status: "cancelled", reason: "no validation answer; ResponseType Cancelled" });
    await register("Completed");
    shop.validation = { status: 200, body: "not json" };
    expect(await pay({ short_code: "600984", account: "A1", amount: 10 })).toMatchObject({ status: "cancelled", reason: "unreadable validation answer" });
  });

  it("skips validation when it is not enabled, tells nobody without registration, and repeats the confirmation on request", async () => {
    expect(await pay({ short_code: "600984", account: "A1", amount: 10 })).toMatchObject({ status: "completed", reason: "no URLs registered for this short code", validation: null, confirmation: null });
    expect(shop.received).toEqual([]);
    await register();
    const paid = await pay({ short_code: "600984", account: "A1", amount: 10, validation: false, repeat_confirmation: true, msisdn: "hashed" });
    expect(paid).toMatchObject({ status: "completed", validation: null });
    expect(shop.received.map((r) => r.path)).toEqual(["confirmation", "confirmation"]);
    expect(shop.received[0]!.body).toEqual(shop.received[1]!.body);
    expect(shop.received[0]!.body.MSISDN).toMatch(/^[0-9a-f]{64}$/);
  });
});
