/**
 * Daraja answers that prove nothing (docs/mpesa.md "Unknown outcomes"): a gateway's HTML 502, a 5xx,
 * a body that does not parse, a time-out after sending. The request may have been acted on, so it is
 * never marked FAILED and never sent again: a payout becomes UNKNOWN (202) and is settled by
 * Transaction Status; a prompt stays PENDING without ids (202) and is settled by the callback its
 * phone, amount and reference match, or becomes TIMEOUT. Only "never sent" (no connection, no OAuth
 * token) is 503, and only Daraja's own refusal is 502.
 */
import type { SqlQuery } from "@mteja/db";
import { afterAll, beforeEach, describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { testClock } from "./support/clock.js";
import { skipThisTarget } from "./support/database.js";
import { postCallback, stkCallbackBody, uniqueReceipt, type DarajaApp } from "./support/daraja.js";
import { gatewayPage, type ReceivedRequest, type Simulator } from "./support/simulator.js";
import { wrapPlainTransactions } from "./support/plain-transactions.js";

const ACCEPTED = { ResultCode: 0, ResultDesc: "Accepted" };
const WINDOW_SECONDS = 300;

describe.skipIf(skipThisTarget)("unknown outcomes (scripted simulator)", () => {
  let fake: Simulator;
  let t: DarajaApp;
  const clock = testClock();
  let user: { id: string; accessToken: string };
  let admin: { id: string; accessToken: string };
  it.beforeAll(async ({ launch }) => {
    fake = await launch.sim({ callbacks: false });
    t = await launch.momo({
      darajaUrl: fake.url,
      now: clock.now,
      b2c: { securityCredential: Buffer.from("credential").toString("base64") },
      env: { MOMO_TIMEOUT_MS: "400", MOMO_UNKNOWN_PROMPT_WINDOW_SECONDS: String(WINDOW_SECONDS), RATE_LIMITS: "off" },
    });
  });
  // Access tokens follow the service clock, which some tests move: fresh users per test.
  beforeEach(async () => {
    user = await t.customer();
    admin = await t.admin();
  });
  afterAll(async () => {
    expect(fake.violations).toEqual([]);
  });

  const push = (body: Record<string, unknown>, headers: Record<string, string> = {}) => t.rest.request("POST", "/api/momo/stkpush", { body, token: user.accessToken, headers });
  const payout = (body: Record<string, unknown>, headers: Record<string, string> = {}) => t.rest.request("POST", "/api/momo/b2c", { body, token: admin.accessToken, headers });
  const paymentById = (id: string) => t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { id } });
  const lastPush = (): ReceivedRequest => fake.received.filter((r) => r.operation === "stkpush").at(-1)!;
  /** The callback Daraja would send for a prompt it did start, to the CallBackURL the push carried. */
  const darajaCallback = (request: ReceivedRequest, resultCode: number, metadata: { amount?: number; phone?: string; receipt?: string }) => {
    const ids = { checkoutRequestId: `ws_CO_unknown${Date.now()}${Math.floor(Math.random() * 1e6)}`, merchantRequestId: `mr-${Date.now()}` };
    return { ids, send: () => postCallback(request.body.CallBackURL, stkCallbackBody(ids, resultCode, metadata)) };
  };

  it("documents the 202 answers of stkpush and b2c in /openapi.json", async () => {
    const document = (await (await fetch(`${t.url}/openapi.json`)).json()) as any;
    for (const path of ["/api/momo/stkpush", "/api/momo/b2c"]) {
      const accepted = document.paths[path].post.responses["202"];
      expect(accepted.description).toMatch(/outcome unknown/i);
      expect(accepted.content["application/json"].schema).toEqual(document.paths[path].post.responses["200"].content["application/json"].schema);
    }
  });

  describe("STK push", () => {
    it("answers a gateway's HTML 502 with 202 PENDING (no ids), never FAILED; a keyed retry answers the same without a second push", async () => {
      fake.script("stkpush", () => gatewayPage(502));
      const pushesBefore = fake.count("stkpush");
      const headers = { "idempotency-key": `gw-${Date.now()}` };
      const first = await push({ phone: "0712345678", amount: 120, reference: "ORD120" }, headers);
      expect(first.status).toBe(202);
      expect(first.body).toEqual({
        success: true,
        message: expect.any(String),
        data: { id: expect.any(String), checkoutRequestId: null, merchantRequestId: null, status: "PENDING" },
      });
      const row = await paymentById(first.body.data.id);
      expect(row).toMatchObject({ status: "PENDING", checkoutRequestId: null, settledAt: null, userId: user.id });
      expect(row.lastError).toMatch(/^outcome unknown: .*HTTP 502/);

      const retry = await push({ phone: "0712345678", amount: 120, reference: "ORD120" }, headers);
      expect(retry.status).toBe(202);
      expect(retry.body.data).toEqual(first.body.data);
      expect(fake.count("stkpush")).toBe(pushesBefore + 1);
    });

    it("treats a 5xx with Daraja's envelope, an unparseable 2xx and a time-out after sending alike: 202 PENDING", async () => {
      fake.script("stkpush", () => ({ status: 500, body: { requestId: "r", errorCode: "500.003.1001", errorMessage: "Internal Server Error" } }));
      expect((await push({ phone: "0712345678", amount: 121 })).status).toBe(202);
      fake.script("stkpush", () => ({ status: 200, headers: { "content-type": "text/plain" }, body: "OK" }));
      expect((await push({ phone: "0712345678", amount: 122 })).status).toBe(202);
      fake.script("stkpush", async () => {
        await new Promise((resolve) => setTimeout(resolve, 700));
      });
      const slow = await push({ phone: "0712345678", amount: 123 });
      expect(slow.status).toBe(202);
      expect((await paymentById(slow.body.data.id)).lastError).toMatch(/^outcome unknown: provider unavailable: timeout/);
      const rows = await t.deps.db.unscoped("test").payment.findMany({ where: { userId: user.id } });
      expect(rows.map((r) => [r.amount, r.status, r.checkoutRequestId]).sort()).toEqual([
        [121, "PENDING", null],
        [122, "PENDING", null],
        [123, "PENDING", null],
      ]);
    });

    it("answers 502 only for Daraja's refusal (4xx envelope, ResponseCode other than 0) and 503 when OAuth fails (nothing sent)", async () => {
      fake.script("stkpush", () => ({ status: 400, body: { requestId: "r", errorCode: "400.002.02", errorMessage: "Bad Request - Invalid PhoneNumber" } }));
      expect((await push({ phone: "0712345678", amount: 124 })).status).toBe(502);
      fake.script("stkpush", () => ({ status: 200, body: { MerchantRequestID: "m", CheckoutRequestID: "c", ResponseCode: "1", ResponseDescription: "Rejected" } }));
      const refused = await push({ phone: "0712345678", amount: 125 });
      expect(refused.status).toBe(502);
      expect(refused.body.error.details).toEqual([{ errorCode: "1", errorMessage: "Rejected" }]);

      // A token that stops working forces a fresh OAuth request, which the gateway fails.
      fake.script("stkpush", () => ({ status: 404, body: { requestId: "r", errorCode: "404.001.03", errorMessage: "Invalid Access Token" } }));
      fake.script("oauth", () => gatewayPage(503));
      const pushesBefore = fake.count("stkpush");
      const unreachable = await push({ phone: "0712345678", amount: 126 });
      expect(unreachable.status).toBe(503);
      expect(unreachable.body.error.code).toBe("PAYMENT_PROVIDER_UNAVAILABLE");
      expect(fake.count("stkpush")).toBe(pushesBefore + 1);
      const rows = await t.deps.db.unscoped("test").payment.findMany({ where: { userId: user.id }, orderBy: { amount: "asc" } });
      expect(rows.map((r) => r.status)).toEqual(["FAILED", "FAILED", "FAILED"]);
    });

    it("settles the payment from a callback for an unknown CheckoutRequestID whose phone, amount and reference match it", async () => {
      fake.script("stkpush", () => gatewayPage(504));
      const pushed = await push({ phone: "0712345678", amount: 130, reference: "ORD130" });
      expect(pushed.status).toBe(202);
      const receipt = uniqueReceipt();
      const callback = darajaCallback(lastPush(), 0, { amount: 130, phone: "254712345678", receipt });
      expect(await callback.send()).toEqual({ status: 200, body: ACCEPTED });

      expect(await paymentById(pushed.body.data.id)).toMatchObject({
        status: "SUCCESS",
        checkoutRequestId: callback.ids.checkoutRequestId,
        merchantRequestId: callback.ids.merchantRequestId,
        mpesaReceipt: receipt,
        paidAmount: 130,
      });
      const stored = await t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ where: { correlationId: callback.ids.checkoutRequestId } });
      expect(stored).toMatchObject({ outcome: "applied", paymentId: pushed.body.data.id, accountReference: "ORD130" });
      // From now on it is an ordinary payment: stkquery and reads find it by the CheckoutRequestID.
      const queried = await t.rest.post("/api/momo/stkquery", { checkoutRequestId: callback.ids.checkoutRequestId }, user.accessToken);
      expect(queried.body.data).toMatchObject({ status: "SUCCESS", resultCode: "0" });
    });

    it("matches nothing when the reference, the phone or the amount differ, or when two payments match (flagged, not applied)", async () => {
      fake.script("stkpush", () => gatewayPage(502));
      const a = await push({ phone: "0712345678", amount: 140, reference: "ORD140" });
      const request = lastPush();
      fake.script("stkpush", () => gatewayPage(502));
      const b = await push({ phone: "0712345678", amount: 141, reference: "ORD141" });
      fake.script("stkpush", () => gatewayPage(502));
      const twin = await push({ phone: "0712345678", amount: 141, reference: "ORD141" });

      const wrongAmount = darajaCallback(request, 0, { amount: 141, phone: "254712345678", receipt: uniqueReceipt() });
      const wrongPhone = darajaCallback(request, 0, { amount: 140, phone: "254799999999", receipt: uniqueReceipt() });
      const ambiguous = darajaCallback(lastPush(), 0, { amount: 141, phone: "254712345678", receipt: uniqueReceipt() });
      for (const callback of [wrongAmount, wrongPhone, ambiguous]) expect((await callback.send()).status).toBe(200);
      const outcomes = await t.deps.db.unscoped("test").darajaCallback.findMany({
        where: { correlationId: { in: [wrongAmount.ids.checkoutRequestId, wrongPhone.ids.checkoutRequestId, ambiguous.ids.checkoutRequestId] } },
      });
      expect(outcomes.map((r) => r.outcome)).toEqual(["flagged", "flagged", "flagged"]);
      expect(outcomes.find((r) => r.correlationId === ambiguous.ids.checkoutRequestId)!.flagReason).toMatch(/match 2 payments/);
      for (const id of [a.body.data.id, b.body.data.id, twin.body.data.id]) expect((await paymentById(id)).status).toBe("PENDING");
    });

    it("applies a callback that arrived while the push was in flight once its answer proves nothing (200 with the callback's ids)", async () => {
      let early: { ids: { checkoutRequestId: string } } | undefined;
      fake.script("stkpush", async (request) => {
        const callback = darajaCallback(request, 0, { amount: 150, phone: "254712345678", receipt: uniqueReceipt() });
        expect(await callback.send()).toEqual({ status: 200, body: ACCEPTED });
        early = callback;
        // Kept, not flagged: a push is in flight.
        expect(await t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ where: { correlationId: callback.ids.checkoutRequestId } })).toMatchObject({ outcome: "accepted" });
        return gatewayPage(502);
      });
      const pushed = await push({ phone: "0712345678", amount: 150, reference: "ORD150" });
      expect(pushed.status).toBe(200);
      expect(pushed.body.data).toMatchObject({ checkoutRequestId: early!.ids.checkoutRequestId, status: "SUCCESS" });
    });

    it("times a payment out when no callback matched it within MOMO_UNKNOWN_PROMPT_WINDOW_SECONDS; a later callback is flagged", async () => {
      fake.script("stkpush", () => gatewayPage(502));
      const pushed = await push({ phone: "0712345678", amount: 160, reference: "ORD160" });
      const request = lastPush();
      clock.advance(WINDOW_SECONDS - 10);
      await t.reconciler.runOnce();
      expect((await paymentById(pushed.body.data.id)).status).toBe("PENDING");

      clock.advance(11);
      const report = await t.reconciler.runOnce();
      expect(report.paymentsTimedOut).toBeGreaterThanOrEqual(1);
      expect(await paymentById(pushed.body.data.id)).toMatchObject({ status: "TIMEOUT", checkoutRequestId: null });
      expect((await paymentById(pushed.body.data.id)).settledAt).not.toBeNull();

      const late = darajaCallback(request, 0, { amount: 160, phone: "254712345678", receipt: uniqueReceipt() });
      expect((await late.send()).status).toBe(200);
      expect(await t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ where: { correlationId: late.ids.checkoutRequestId } })).toMatchObject({
        outcome: "flagged",
        flagReason: "unknown CheckoutRequestID",
      });
    });

    it("answers 202 over tRPC too", async () => {
      fake.script("stkpush", () => gatewayPage(502));
      const response = await fetch(`${t.url}/trpc/payments.stkPush`, {
        method: "POST",
        headers: { authorization: `Bearer ${user.accessToken}`, "content-type": "application/json" },
        body: JSON.stringify({ phone: "0712345678", amount: 170 }),
      });
      expect(response.status).toBe(202);
      expect(((await response.json()) as any).result.data.data).toMatchObject({ checkoutRequestId: null, merchantRequestId: null, status: "PENDING" });
    });
  });

  describe("amounts that differ", () => {
    it("flags a success callback whose amount differs after a query settled the payment SUCCESS (never applied)", async () => {
      const pushed = await push({ phone: "0712345678", amount: 180 });
      expect(pushed.status).toBe(200);
      const { checkoutRequestId, merchantRequestId } = pushed.body.data;
      fake.queryAnswers.set(checkoutRequestId, {
        status: 200,
        body: { ResponseCode: "0", ResponseDescription: "Accepted", MerchantRequestID: merchantRequestId, CheckoutRequestID: checkoutRequestId, ResultCode: "0", ResultDesc: "The service request is processed successfully." },
      });
      expect((await t.rest.post("/api/momo/stkquery", { checkoutRequestId }, user.accessToken)).body.data.status).toBe("SUCCESS");

      const receipt = uniqueReceipt();
      expect((await postCallback(t.callbackUrl("stkpush"), stkCallbackBody({ checkoutRequestId, merchantRequestId }, 0, { amount: 1800, receipt, phone: "254712345678" }))).status).toBe(200);
      const stored = await t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ where: { correlationId: checkoutRequestId } });
      expect(stored).toMatchObject({ outcome: "flagged", flagReason: expect.stringContaining("amount mismatch") });
      expect(await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { checkoutRequestId } })).toMatchObject({ status: "SUCCESS", mpesaReceipt: null, paidAmount: null });
    });

    it("flags a Transaction Status result whose amount differs after the payout settled SUCCESS", async () => {
      const sent = await payout({ phone: "0712345678", amount: 600 });
      expect(sent.status).toBe(200);
      const ocid = sent.body.data.originatorConversationId as string;
      const statusResult = (amount: number) => ({
        Result: {
          ResultType: 0,
          ResultCode: 0,
          ResultDesc: "The service request is processed successfully.",
          OriginatorConversationID: `query-${ocid}`,
          ConversationID: "AG_query",
          TransactionID: "SKQ7654321",
          ResultParameters: {
            ResultParameter: [
              { Key: "OriginatorConversationID", Value: ocid },
              { Key: "ConversationID", Value: sent.body.data.conversationId },
              { Key: "TransactionStatus", Value: "Completed" },
              { Key: "Amount", Value: amount },
              { Key: "ReceiptNo", Value: "SKQ7654321" },
            ],
          },
        },
      });
      expect((await postCallback(t.callbackUrl("b2c/status"), statusResult(600))).status).toBe(200);
      expect((await t.deps.db.unscoped("test").payout.findUniqueOrThrow({ where: { originatorConversationId: ocid } })).status).toBe("SUCCESS");
      expect((await postCallback(t.callbackUrl("b2c/status"), statusResult(6000))).status).toBe(200);
      const rows = await t.deps.db.unscoped("test").darajaCallback.findMany({ where: { correlationId: ocid, kind: "b2c_status" }, orderBy: { receivedAt: "asc" } });
      expect(rows.map((r) => r.outcome)).toEqual(["applied", "flagged"]);
      expect(rows[1]!.flagReason).toContain("amount mismatch");
    });
  });

  describe("B2C", () => {
    it("answers a gateway's HTML 502 with 202 UNKNOWN; a keyed retry answers the same without a second payout; Transaction Status settles it", async () => {
      fake.script("b2c", () => gatewayPage(502));
      const payoutsBefore = fake.count("b2c");
      const headers = { "idempotency-key": `gw-payout-${Date.now()}` };
      const first = await payout({ phone: "0712345678", amount: 500 }, headers);
      expect(first.status).toBe(202);
      expect(first.body).toEqual({ success: true, message: expect.any(String), data: { conversationId: null, originatorConversationId: expect.any(String), status: "UNKNOWN" } });
      const ocid = first.body.data.originatorConversationId as string;
      const row = await t.deps.db.unscoped("test").payout.findUniqueOrThrow({ where: { originatorConversationId: ocid } });
      expect(row).toMatchObject({ status: "UNKNOWN", settledAt: null });
      expect(row.lastError).toMatch(/^outcome unknown: .*HTTP 502/);

      const retry = await payout({ phone: "0712345678", amount: 500 }, headers);
      expect(retry.status).toBe(202);
      expect(retry.body.data).toEqual(first.body.data);
      expect(fake.count("b2c")).toBe(payoutsBefore + 1);

      await t.reconciler.runOnce();
      const query = fake.received.filter((r) => r.operation === "transactionstatus").at(-1)!;
      expect(query.body.OriginatorConversationID).toBe(ocid);
      expect(fake.count("b2c")).toBe(payoutsBefore + 1);
    });

    it("treats an unparseable 2xx and a 5xx with Daraja's envelope as unknown (202), a 4xx envelope as refused (502), OAuth failure as not sent (503)", async () => {
      fake.script("b2c", () => ({ status: 200, headers: { "content-type": "text/html" }, body: "<html>Accepted</html>" }));
      expect((await payout({ phone: "0712345678", amount: 501 })).body.data?.status).toBe("UNKNOWN");
      fake.script("b2c", () => ({ status: 500, body: { requestId: "r", errorCode: "500.003.02", errorMessage: "System is busy" } }));
      const busy = await payout({ phone: "0712345678", amount: 502 });
      expect(busy.status).toBe(202);
      fake.script("b2c", () => ({ status: 400, body: { requestId: "r", errorCode: "400.002.02", errorMessage: "Bad Request - Invalid Amount" } }));
      expect((await payout({ phone: "0712345678", amount: 503 })).status).toBe(502);

      fake.script("b2c", () => ({ status: 404, body: { requestId: "r", errorCode: "404.001.03", errorMessage: "Invalid Access Token" } }));
      fake.script("oauth", () => gatewayPage(502));
      const unreachable = await payout({ phone: "0712345678", amount: 504 });
      expect(unreachable.status).toBe(503);
      const statuses = await t.deps.db.unscoped("test").payout.findMany({ where: { amount: { in: [501, 502, 503, 504] } }, orderBy: { amount: "asc" } });
      expect(statuses.map((r) => r.status)).toEqual(["UNKNOWN", "UNKNOWN", "FAILED", "FAILED"]);
    });
  });
});

describe.skipIf(skipThisTarget)("the in-flight window follows the Daraja client's worst case", () => {
  let fake: Simulator;
  let t: DarajaApp;
  const clock = testClock();
  it.beforeAll(async ({ launch }) => {
    fake = await launch.sim({ callbacks: false });
    // Worst case of one push with a 60 s timeout: 2 × (3 OAuth attempts + 1 s of pauses + the push) = 482 s.
    t = await launch.momo({ darajaUrl: fake.url, now: clock.now, b2c: { securityCredential: Buffer.from("credential").toString("base64") }, env: { MOMO_TIMEOUT_MS: "60000" } });
  });

  it("neither times out a push that may still be waiting for Daraja nor flags a callback kept for it", async () => {
    const user = await t.customer();
    // A push still waiting for Daraja's answer: PENDING, no ids, no last_error.
    const inFlight = await t.deps.db.unscoped("test").payment.create({
      data: { tenantId: "default", userId: user.id, phone: "254712345678", amount: 44, reference: "X", description: "Payment", createdAt: clock.now(), updatedAt: clock.now() },
    });
    const ids = { checkoutRequestId: `ws_CO_window${Date.now()}`, merchantRequestId: "w-1" };
    expect((await postCallback(t.callbackUrl("stkpush"), stkCallbackBody(ids, 1032))).status).toBe(200);

    clock.advance(400);
    await t.reconciler.runOnce();
    expect((await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { id: inFlight.id } })).status).toBe("PENDING");
    expect((await t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ where: { correlationId: ids.checkoutRequestId } })).outcome).toBe("accepted");

    clock.advance(83);
    await t.reconciler.runOnce();
    expect((await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { id: inFlight.id } })).status).toBe("TIMEOUT");
    expect((await t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ where: { correlationId: ids.checkoutRequestId } })).outcome).toBe("flagged");
  });

  it("answers a keyed retry of a request left unanswered past the window at once, as an unknown outcome (202), without calling Daraja", async () => {
    const user = await t.customer();
    const admin = await t.admin();
    const now = clock.now();
    // Rows whose instance stopped while waiting for Daraja: no answer, no last_error.
    const payment = await t.deps.db.unscoped("test").payment.create({
      data: { tenantId: "default", userId: user.id, phone: "254712345678", amount: 66, reference: "K66", description: "Payment", idempotencyKey: "stale-push", createdAt: now, updatedAt: now },
    });
    const payout = await t.deps.db.unscoped("test").payout.create({
      data: { tenantId: "default", requestedBy: admin.id, phone: "254712345678", amount: 660, commandId: "BusinessPayment", remarks: "Payout", originatorConversationId: `stale-${Date.now()}`, idempotencyKey: "stale-payout", createdAt: now, updatedAt: now },
    });
    clock.advance(483);
    const calls = fake.received.length;
    const started = Date.now();
    const push = await t.rest.request("POST", "/api/momo/stkpush", { body: { phone: "0712345678", amount: 66, reference: "K66" }, token: user.accessToken, headers: { "idempotency-key": "stale-push" } });
    expect(push.status).toBe(202);
    expect(push.body.data).toEqual({ id: payment.id, checkoutRequestId: null, merchantRequestId: null, status: "PENDING" });
    const paid = await t.rest.request("POST", "/api/momo/b2c", { body: { phone: "0712345678", amount: 660 }, token: admin.accessToken, headers: { "idempotency-key": "stale-payout" } });
    expect(paid.status).toBe(202);
    expect(paid.body.data).toEqual({ conversationId: null, originatorConversationId: payout.originatorConversationId, status: "PENDING" });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(fake.received.length).toBe(calls);
  });
});

describe.skipIf(skipThisTarget)("a push storing its ids while its callback is being applied", () => {
  let fake: Simulator;
  let t: DarajaApp;
  it.beforeAll(async ({ launch }) => {
    fake = await launch.sim({ callbacks: false });
    t = await launch.momo({ darajaUrl: fake.url });
  });

  it("never flags the callback for good (prompts in flight are counted before the CheckoutRequestID lookup)", async () => {
    const user = await t.customer();
    const inFlight = await t.deps.db.unscoped("test").payment.create({
      data: { tenantId: "default", userId: user.id, phone: "254712345678", amount: 55, reference: "RACE", description: "Payment", createdAt: t.deps.clock.now(), updatedAt: t.deps.clock.now() },
    });
    const ids = { checkoutRequestId: `ws_CO_race${Date.now()}`, merchantRequestId: "race-1" };

    // The push's answer stores its ids right after the callback's transaction took its first look
    // (the in-flight count or the lookup by CheckoutRequestID, whichever comes first).
    let stored = false;
    const restore = wrapPlainTransactions(t.deps.db, "plain", (tx) => ({
      $executeRaw: (query, ...values) => tx.$executeRaw(query, ...values),
      $queryRaw: async <T>(query: SqlQuery, ...values: unknown[]) => {
        const rows = await tx.$queryRaw<T>(query, ...values);
        const text = "raw" in query ? query.join("?") : query.text;
        if (!stored && (text.includes("WHERE checkout_request_id =") || text.includes("EXISTS"))) {
          stored = true;
          await tx.$executeRaw`UPDATE payments SET checkout_request_id = ${ids.checkoutRequestId}, merchant_request_id = ${ids.merchantRequestId} WHERE id = ${inFlight.id}::uuid`;
        }
        return rows;
      },
    }));
    try {
      const receipt = uniqueReceipt();
      expect((await postCallback(t.callbackUrl("stkpush"), stkCallbackBody(ids, 0, { amount: 55, receipt, phone: "254712345678" }))).status).toBe(200);
      expect(stored).toBe(true);
      expect(await t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ where: { correlationId: ids.checkoutRequestId } })).toMatchObject({ outcome: "applied", paymentId: inFlight.id });
      expect(await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { id: inFlight.id } })).toMatchObject({ status: "SUCCESS", mpesaReceipt: receipt });
    } finally {
      restore();
    }
  });
});
