import { readPng } from "@mteja/simulated-daraja";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { C2B_LOST_CONFIRMATION_AMOUNT, SANDBOX_SHORTCODE } from "../src/index.js";
import { raw, rawToken, simClient, startReceiver, startSimulator } from "./harness.js";
import type { Receiver, RunningSimulator } from "./harness.js";

let sim: RunningSimulator;
let receiver: Receiver;

beforeAll(async () => {
  sim = await startSimulator({ callbackDelayMs: 10, pullPageSize: 3 });
  receiver = await startReceiver();
  await post("/mpesa/c2b/v2/registerurl", {
    ShortCode: SANDBOX_SHORTCODE,
    ResponseType: "Completed",
    ConfirmationURL: `${receiver.url}/c2b/confirmation`,
    ValidationURL: `${receiver.url}/c2b/validation`,
  });
});

afterAll(async () => {
  await receiver.close();
  await sim.close();
});

async function post(path: string, body: unknown) {
  const headers = { authorization: `Bearer ${await rawToken(sim.url)}`, "content-type": "application/json" };
  return raw(`${sim.url}${path}`, { headers, body: JSON.stringify(body) });
}

const registerBody = (shortCode = SANDBOX_SHORTCODE) => ({
  ShortCode: shortCode,
  RequestType: "Pull",
  NominatedNumber: "254722000000",
  CallBackURL: "https://shop.example.co.ke/hooks/pull",
});

const pay = (body: Record<string, unknown>) => raw(`${sim.url}/sim/c2b/pay`, { body: JSON.stringify(body) });

describe("Pull Transactions", () => {
  it("answers the first register 1000 and the next 1001 with spaced keys; refuses a short code it does not have", async () => {
    const first = await post("/pulltransactions/v1/register", registerBody());
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ "Response Status": "1000", ShortCode: SANDBOX_SHORTCODE, "Response Description": "Shortcode Registered Successfully" });
    const again = await post("/pulltransactions/v1/register", registerBody());
    expect(again.json).toMatchObject({ "Response Status": "1001", "Response Description": "ShortCode already Registered" });
    const other = await post("/pulltransactions/v1/register", registerBody("999999"));
    expect(other.status).toBe(400);
    expect(other.json).toMatchObject({ errorCode: "400.001", errorMessage: "Invalid ShortCode" });
    const wrongType = await post("/pulltransactions/v1/register", { ...registerBody(), RequestType: "Incremental" });
    expect(wrongType.json).toMatchObject({ errorCode: "400.002.02", errorMessage: "Bad Request - Invalid RequestType" });
    const get = await raw(`${sim.url}/pulltransactions/v1/query`, { method: "GET" });
    expect(get.json).toMatchObject({ errorCode: "405.001" });
  });

  it("lists completed payments of the window, a lost confirmation included, paged by row offset; the client reads every page", async () => {
    const receipts: string[] = [];
    for (const amount of [10, 11, 12, 13]) {
      const paid = await pay({ account: `ORD${amount}`, amount, validation: false });
      receipts.push((paid.json as { trans_id: string }).trans_id);
    }
    const lost = await pay({ account: "LOST1", amount: C2B_LOST_CONFIRMATION_AMOUNT, validation: false });
    expect(lost.json).toMatchObject({ status: "completed", confirmation_lost: true, confirmation: null });
    expect(receiver.on("/c2b/confirmation")).toHaveLength(4);
    receipts.push((lost.json as { trans_id: string }).trans_id);

    const now = new Date();
    const client = simClient(sim.url);
    const pulled = await client.pullTransactions({ shortCode: SANDBOX_SHORTCODE, from: new Date(now.getTime() - 3_600_000), to: new Date(now.getTime() + 60_000) });
    expect(pulled.transactions.map((row) => row.transactionId)).toEqual(expect.arrayContaining(receipts));
    expect(pulled.pages).toBeGreaterThanOrEqual(2);
    const row = pulled.transactions.find((candidate) => candidate.transactionId === receipts[4])!;
    expect(row).toMatchObject({ transactionType: "c2b-pay-bill-debit", billReference: "LOST1", amount: 41, amountText: "41.00", msisdn: "254708374149" });
    expect(row.trxDate).toMatch(/\+03:00$/);

    const page = await post("/pulltransactions/v1/query", { ShortCode: SANDBOX_SHORTCODE, StartDate: "2020-01-01 00:00:00", EndDate: "2020-01-02 00:00:00", OffSetValue: "0" });
    expect(page.json).toMatchObject({ ResponseCode: "1001", ResponseMessage: "No records found or Organization Name not available" });
    const badDate = await post("/pulltransactions/v1/query", { ShortCode: SANDBOX_SHORTCODE, StartDate: "2020-01-01T00:00:00Z", EndDate: "2020-01-02 00:00:00", OffSetValue: "0" });
    expect(badDate.json).toMatchObject({ errorMessage: "Bad Request - Invalid StartDate" });
  });
});

describe("Dynamic QR", () => {
  it("answers the sandbox's shape with a real PNG of the size asked; a scan pays the paybill with the RefNo as account", async () => {
    const client = simClient(sim.url);
    const qr = await client.dynamicQr({ merchantName: "Duka", refNo: "ORD77", amount: 770, trxCode: "PB", cpi: SANDBOX_SHORTCODE, size: 120 });
    expect(qr.responseCode).toBe("00");
    const png = readPng(Buffer.from(qr.qrCode, "base64"));
    expect(png).toMatchObject({ width: 120, height: 120 });

    const scanned = await raw(`${sim.url}/sim/qr/scan`, { body: JSON.stringify({ qr_code: qr.qrCode, validation: false }) });
    expect(scanned.status).toBe(200);
    expect(scanned.json).toMatchObject({ status: "completed", qr: { refNo: "ORD77", amount: 770, cpi: SANDBOX_SHORTCODE } });
    const confirmations = await receiver.waitFor("/c2b/confirmation", 5);
    expect(confirmations.at(-1)!.body).toMatchObject({ BillRefNumber: "ORD77", TransAmount: "770.00", BusinessShortCode: SANDBOX_SHORTCODE, TransactionType: "Pay Bill" });

    const numberSize = await post("/mpesa/qrcode/v1/generate", { MerchantName: "Duka", RefNo: "X", Amount: 1, TrxCode: "PB", CPI: SANDBOX_SHORTCODE, Size: 300 });
    expect(numberSize.json).toMatchObject({ errorCode: "400.002.02", errorMessage: "Bad Request - Invalid Size" });
    const notPng = await raw(`${sim.url}/sim/qr/scan`, { body: JSON.stringify({ qr_code: "aGVsbG8=" }) });
    expect(notPng.status).toBe(400);
  });
});
