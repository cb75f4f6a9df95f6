/**
 * When Daraja fails: down (closed port), slow past MOMO_TIMEOUT_MS, or answering an error. Every
 * payment is stored before Daraja is called. It ends FAILED only when nothing can have happened:
 * PAYMENT_PROVIDER_ERROR (502, Daraja's refusal in details) or PAYMENT_PROVIDER_UNAVAILABLE (503,
 * never sent). Otherwise its outcome is unknown: 202, PENDING until its callback or TIMEOUT.
 */
import { createServer } from "node:net";
import { afterAll, describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import type { Simulator } from "./support/simulator.js";
import { registerUser, RestClient, type TestApp } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { postCallback, stkCallbackBody, uniqueReceipt, type DarajaApp } from "./support/daraja.js";

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === "object" && address ? address.port : 1;
}

const daraja = (status: number, errorCode: string, errorMessage: string) => ({ status, body: { requestId: "r-1", errorCode, errorMessage } });

describe.skipIf(skipThisTarget)("Daraja down", () => {
  let t: DarajaApp;
  it.beforeAll(async ({ launch }) => {
    t = await launch.momo({ darajaUrl: `http://127.0.0.1:${await closedPort()}` });
  });

  it("answers 503 and leaves the stored payment FAILED; a retry with the key answers the same", async () => {
    const user = await t.customer();
    const headers = { "idempotency-key": "down-1" };
    const first = await t.rest.request("POST", "/api/momo/stkpush", { body: { phone: "0712345678", amount: 100 }, token: user.accessToken, headers });
    expect(first.status).toBe(503);
    expect(first.body).toMatchObject({ success: false, error: { code: "PAYMENT_PROVIDER_UNAVAILABLE" } });
    const rows = await t.deps.db.unscoped("test").payment.findMany({ where: { userId: user.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: "FAILED", amount: 100, phone: "254712345678", checkoutRequestId: null, tenantId: "default" });
    expect(rows[0]!.lastError).toMatch(/^provider unavailable: network/);
    expect(rows[0]!.settledAt).not.toBeNull();

    const retry = await t.rest.request("POST", "/api/momo/stkpush", { body: { phone: "0712345678", amount: 100 }, token: user.accessToken, headers });
    expect(retry.status).toBe(503);
    expect(await t.deps.db.unscoped("test").payment.count({ where: { userId: user.id } })).toBe(1);
  });
});

describe.skipIf(skipThisTarget)("M-Pesa not configured", () => {
  let t: TestApp;
  it.beforeAll(async ({ launch }) => {
    t = await launch.app();
  });

  it("answers PAYMENT_PROVIDER_UNAVAILABLE and stores nothing; callbacks are rejected (no secret)", async () => {
    const rest = new RestClient(t.url);
    const user = await registerUser(rest);
    const pushed = await rest.post("/api/momo/stkpush", { phone: "0712345678", amount: 100 }, user.accessToken);
    expect(pushed.status).toBe(503);
    expect(pushed.body.error.code).toBe("PAYMENT_PROVIDER_UNAVAILABLE");
    expect(await t.deps.db.unscoped("test").payment.count()).toBe(0);
    expect((await postCallback(`${t.url}/api/momo/callback/stkpush?token=anything-at-all-0123456789abcdef`, {})).status).toBe(403);
  });
});

describe.skipIf(skipThisTarget)("Daraja errors and slowness (scripted simulator)", () => {
  let fake: Simulator;
  let t: DarajaApp;
  it.beforeAll(async ({ launch }) => {
    fake = await launch.sim({ callbacks: false });
    t = await launch.momo({ darajaUrl: fake.url, env: { MOMO_TIMEOUT_MS: "400" } });
  });
  afterAll(async () => {
    expect(fake.violations).toEqual([]);
  });

  const push = (token: string, body: unknown, headers: Record<string, string> = {}) => t.rest.request("POST", "/api/momo/stkpush", { body, token, headers });

  it("answers PAYMENT_PROVIDER_ERROR with Daraja's errorCode/errorMessage, FAILED row; a keyed retry replays it without a second push", async () => {
    const user = await t.customer();
    fake.script("stkpush", () => daraja(400, "400.002.02", "Bad Request - Invalid PhoneNumber"));
    const pushesBefore = fake.count("stkpush");
    const headers = { "idempotency-key": "refused-1" };
    const refused = await push(user.accessToken, { phone: "0712345678", amount: 100 }, headers);
    expect(refused.status).toBe(502);
    expect(refused.body).toEqual({
      success: false,
      message: expect.any(String),
      error: { code: "PAYMENT_PROVIDER_ERROR", details: [{ errorCode: "400.002.02", errorMessage: "Bad Request - Invalid PhoneNumber" }] },
    });
    const row = await t.deps.db.unscoped("test").payment.findFirstOrThrow({ where: { userId: user.id } });
    expect(row).toMatchObject({ status: "FAILED", lastError: "provider error 400.002.02: Bad Request - Invalid PhoneNumber" });

    const replay = await push(user.accessToken, { phone: "0712345678", amount: 100 }, headers);
    expect(replay.status).toBe(502);
    expect(replay.body.error).toEqual(refused.body.error);
    expect(fake.count("stkpush")).toBe(pushesBefore + 1);
  });

  it("leaves the outcome of a push answered with an HTTP 500 unknown (202 PENDING), Daraja's envelope or not", async () => {
    const user = await t.customer();
    fake.script("stkpush", () => daraja(500, "500.001.1001", "[MerchantValidate] - Wrong credentials"));
    expect((await push(user.accessToken, { phone: "0712345678", amount: 100 })).status).toBe(202);
    fake.script("stkpush", () => daraja(500, "500.003.02", "Error Occurred: Spike Arrest Violation"));
    const busy = await push(user.accessToken, { phone: "0712345678", amount: 101 });
    expect(busy.status).toBe(202);
    expect(busy.body.data).toMatchObject({ checkoutRequestId: null, status: "PENDING" });
    const rows = await t.deps.db.unscoped("test").payment.findMany({ where: { userId: user.id }, orderBy: { amount: "asc" } });
    expect(rows.map((r) => r.status)).toEqual(["PENDING", "PENDING"]);
  });

  it("gives up waiting on a push slower than MOMO_TIMEOUT_MS (202 PENDING); the late prompt's callback settles the payment", async () => {
    const user = await t.customer();
    let late: { url: string; ids: { checkoutRequestId: string; merchantRequestId: string } } | undefined;
    fake.script("stkpush", async (request, defaults) => {
      await new Promise((resolve) => setTimeout(resolve, 900));
      const body = defaults.body as { CheckoutRequestID: string; MerchantRequestID: string };
      late = { url: request.body.CallBackURL, ids: { checkoutRequestId: body.CheckoutRequestID, merchantRequestId: body.MerchantRequestID } };
    });
    const started = Date.now();
    const slow = await push(user.accessToken, { phone: "0712345678", amount: 250 });
    expect(slow.status).toBe(202);
    expect(Date.now() - started).toBeLessThan(900);
    const row = await t.deps.db.unscoped("test").payment.findFirstOrThrow({ where: { userId: user.id } });
    expect(row).toMatchObject({ status: "PENDING", checkoutRequestId: null });
    expect(row.lastError).toMatch(/^outcome unknown: provider unavailable: timeout/);

    // Daraja did start the prompt and the customer paid: its callback matches the payment.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(late).toBeDefined();
    const receipt = uniqueReceipt();
    const answer = await postCallback(late!.url, stkCallbackBody(late!.ids, 0, { amount: 250, receipt, phone: "254712345678" }));
    expect(answer.status).toBe(200);
    const stored = await t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ where: { correlationId: late!.ids.checkoutRequestId } });
    expect(stored).toMatchObject({ outcome: "applied", paymentId: row.id });
    expect(await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ status: "SUCCESS", mpesaReceipt: receipt, checkoutRequestId: late!.ids.checkoutRequestId });
  });

  it("stkquery passes Daraja's error on (502) and leaves the payment PENDING; a final answer settles it through the apply-once path", async () => {
    const user = await t.customer();
    const pushed = await push(user.accessToken, { phone: "0712345678", amount: 77 });
    const { checkoutRequestId, merchantRequestId } = pushed.body.data;
    fake.queryAnswers.set(checkoutRequestId, daraja(400, "400.002.02", "Bad Request - Invalid CheckoutRequestID"));
    const refused = await t.rest.post("/api/momo/stkquery", { checkoutRequestId }, user.accessToken);
    expect(refused.status).toBe(502);
    expect(refused.body.error.details).toEqual([{ errorCode: "400.002.02", errorMessage: "Bad Request - Invalid CheckoutRequestID" }]);
    expect((await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { checkoutRequestId } })).status).toBe("PENDING");

    fake.queryAnswers.set(checkoutRequestId, {
      status: 200,
      body: { ResponseCode: "0", ResponseDescription: "The service request has been accepted successfully", MerchantRequestID: merchantRequestId, CheckoutRequestID: checkoutRequestId, ResultCode: "1032", ResultDesc: "Request canceled by the user" },
    });
    const answered = await t.rest.post("/api/momo/stkquery", { checkoutRequestId }, user.accessToken);
    expect(answered.body.data).toEqual({ checkoutRequestId, resultCode: "1032", resultDesc: "Request canceled by the user", status: "CANCELLED" });
    // A success callback arriving afterwards cannot flip it.
    await postCallback(t.callbackUrl("stkpush"), stkCallbackBody({ checkoutRequestId, merchantRequestId }, 0, { amount: 77, receipt: uniqueReceipt() }));
    expect((await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { checkoutRequestId } })).status).toBe("CANCELLED");
    const queriesBefore = fake.count("stkquery");
    expect((await t.rest.post("/api/momo/stkquery", { checkoutRequestId }, user.accessToken)).body.data.status).toBe("CANCELLED");
    expect(fake.count("stkquery")).toBe(queriesBefore);
  });

  it("sends Daraja exactly what it checks (the simulator found no violation)", async () => {
    const user = await t.customer();
    expect((await push(user.accessToken, { phone: "0112345678", amount: 250_000, reference: "INV 2026/11", description: "Order 42" })).status).toBe(200);
    const sent = fake.received.filter((r) => r.operation === "stkpush").at(-1)!.body;
    expect(sent).toMatchObject({ BusinessShortCode: "174379", TransactionType: "CustomerPayBillOnline", Amount: 250_000, PartyA: "254112345678", PartyB: "174379", PhoneNumber: "254112345678", AccountReference: "INV 2026/11", TransactionDesc: "Order 42" });
    expect(fake.violations).toEqual([]);
  });
});
