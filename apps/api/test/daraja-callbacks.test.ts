/**
 * Daraja's callbacks (docs/mpesa.md#callbacks), driven by hand against a simulator that never calls
 * back: the secret token, raw storage before anything else, apply-exactly-once, flagged mismatches,
 * malformed bodies, duplicates, out-of-order delivery, and a callback that beats the stkpush response.
 */
import { request as httpRequest } from "node:http";
import { callbackRoutes } from "@mteja/domain";
import { afterAll, describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import type { Simulator } from "./support/simulator.js";
import { skipThisTarget } from "./support/database.js";
import { postCallback, stkCallbackBody, uniqueReceipt, type DarajaApp } from "./support/daraja.js";

const ACCEPTED = { ResultCode: 0, ResultDesc: "Accepted" };

interface CallbackOperation {
  operationId: string;
  security: unknown;
  parameters: { name: string }[];
  responses: Record<string, { content?: Record<string, { examples?: Record<string, unknown> }> }>;
}

interface OpenApiDocument {
  paths: Record<string, { post: CallbackOperation }>;
  components: { securitySchemes: Record<string, unknown> };
}

it.override({ simOptions: { callbacks: false } });

describe.skipIf(skipThisTarget)("momo callbacks", () => {
  let fake: Simulator;
  let t: DarajaApp;
  it.beforeAll(async ({ sim, launch }) => {
    fake = sim;
    // The allowlist is log-only: callbacks from 127.0.0.1 must still be processed.
    t = await launch.momo({ darajaUrl: fake.url, env: { MOMO_CALLBACK_ALLOWED_IPS: "196.201.214.200,196.201.214.206" } });
  });
  afterAll(async () => {
    expect(fake.violations).toEqual([]);
  });

  async function prompt(amount = 100) {
    const user = await t.customer();
    const pushed = await t.rest.post("/api/momo/stkpush", { phone: "0712345678", amount }, user.accessToken);
    expect(pushed.status).toBe(200);
    const { checkoutRequestId, merchantRequestId } = pushed.body.data as { checkoutRequestId: string; merchantRequestId: string };
    return { user, checkoutRequestId, merchantRequestId };
  }

  const payment = (checkoutRequestId: string) => t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { checkoutRequestId } });
  const stored = (checkoutRequestId: string) =>
    t.deps.db.unscoped("test").darajaCallback.findMany({ where: { correlationId: checkoutRequestId }, orderBy: { receivedAt: "asc" } });
  const success = (ids: { checkoutRequestId: string; merchantRequestId: string }, amount: number, receipt = uniqueReceipt()) =>
    stkCallbackBody(ids, 0, { amount, receipt, phone: "254712345678" });

  it("applies a success callback: receipt, amount, phone and date recorded; answered Accepted after the commit", async () => {
    const ids = await prompt(100);
    const receipt = uniqueReceipt();
    const body = success(ids, 100, receipt);
    const answer = await postCallback(t.callbackUrl("stkpush"), body);
    expect(answer).toEqual({ status: 200, body: ACCEPTED });
    expect(await payment(ids.checkoutRequestId)).toMatchObject({
      status: "SUCCESS",
      resultCode: "0",
      mpesaReceipt: receipt,
      paidAmount: 100,
      paidPhone: "254712345678",
      transactionDate: "20261122101530",
    });
    const rows = await stored(ids.checkoutRequestId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kind: "stkpush", outcome: "applied", sourceIp: "127.0.0.1", rawBody: JSON.stringify(body) });
  });

  it("settles a prompt without an intent all the same when its URL says `intent=1` (a hint, not a claim)", async () => {
    const ids = await prompt(140);
    const hinted = `${t.callbackUrl("stkpush")}&intent=1`;
    expect((await postCallback(hinted, success(ids, 140))).status).toBe(200);
    expect(await payment(ids.checkoutRequestId)).toMatchObject({ status: "SUCCESS", paidAmount: 140 });
    expect((await postCallback(hinted, success(ids, 140))).status).toBe(200);
    expect((await stored(ids.checkoutRequestId)).map((r) => r.outcome)).toEqual(["applied", "duplicate"]);
  });

  it("rejects a callback without the token, or with a wrong one (403), stores it for audit and changes nothing", async () => {
    const ids = await prompt(100);
    const body = success(ids, 100);
    const missing = await postCallback(t.callbackUrl("stkpush", null), body);
    expect(missing.status).toBe(403);
    expect(missing.body).toMatchObject({ success: false, error: { code: "FORBIDDEN" } });
    const wrong = await postCallback(t.callbackUrl("stkpush", "0".repeat(64)), body);
    expect(wrong.status).toBe(403);
    const short = await postCallback(t.callbackUrl("stkpush", "x"), body);
    expect(short.status).toBe(403);
    for (const path of ["b2c/result", "b2c/timeout", "b2c/status"] as const) {
      expect((await postCallback(t.callbackUrl(path, null), { Result: {} })).status).toBe(403);
    }
    expect((await payment(ids.checkoutRequestId)).status).toBe("PENDING");
    const rejected = await t.deps.db.unscoped("test").darajaCallback.findMany({ where: { outcome: "rejected", rawBody: JSON.stringify(body) } });
    expect(rejected.map((r) => r.flagReason).sort()).toEqual(["no token", "wrong token", "wrong token"]);
    // Unauthenticated bodies are kept only up to 8 KiB.
    const big = `{"pad":"${"x".repeat(20_000)}"}`;
    expect((await postCallback(t.callbackUrl("stkpush", null), undefined, big)).status).toBe(403);
    const kept = await t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ where: { outcome: "rejected", rawBody: { startsWith: '{"pad":"xxx' } } });
    expect(kept.rawBody).toHaveLength(8 * 1024);
  });

  it("flags a callback for an unknown CheckoutRequestID (stored, not applied)", async () => {
    const answer = await postCallback(t.callbackUrl("stkpush"), success({ checkoutRequestId: "ws_CO_spoofed000001", merchantRequestId: "spoof-1" }, 100));
    expect(answer).toEqual({ status: 200, body: ACCEPTED });
    const [row] = await stored("ws_CO_spoofed000001");
    expect(row).toMatchObject({ outcome: "flagged", flagReason: "unknown CheckoutRequestID", paymentId: null });
  });

  it("flags a callback whose amount differs, leaving the payment PENDING for the genuine one", async () => {
    const ids = await prompt(500);
    expect((await postCallback(t.callbackUrl("stkpush"), success(ids, 1))).body).toEqual(ACCEPTED);
    expect((await payment(ids.checkoutRequestId)).status).toBe("PENDING");
    const [flagged] = await stored(ids.checkoutRequestId);
    expect(flagged).toMatchObject({ outcome: "flagged", flagReason: expect.stringContaining("amount mismatch") });
    expect(flagged!.paymentId).not.toBeNull();

    await postCallback(t.callbackUrl("stkpush"), success(ids, 500));
    expect(await payment(ids.checkoutRequestId)).toMatchObject({ status: "SUCCESS", paidAmount: 500 });
  });

  it("flags ResultCode 0 without an MpesaReceiptNumber", async () => {
    const ids = await prompt(100);
    await postCallback(t.callbackUrl("stkpush"), stkCallbackBody(ids, 0, { amount: 100 }));
    expect((await payment(ids.checkoutRequestId)).status).toBe("PENDING");
    expect((await stored(ids.checkoutRequestId))[0]).toMatchObject({ outcome: "flagged", flagReason: "ResultCode 0 without MpesaReceiptNumber" });
  });

  it("flags a MerchantRequestID that does not match the stored one", async () => {
    const ids = await prompt(100);
    await postCallback(t.callbackUrl("stkpush"), success({ ...ids, merchantRequestId: "someone-else" }, 100));
    expect((await payment(ids.checkoutRequestId)).status).toBe("PENDING");
    expect((await stored(ids.checkoutRequestId))[0]).toMatchObject({ outcome: "flagged", flagReason: expect.stringContaining("MerchantRequestID") });
  });

  it("flags a receipt already recorded on another payment", async () => {
    const first = await prompt(100);
    const second = await prompt(100);
    const receipt = uniqueReceipt();
    await postCallback(t.callbackUrl("stkpush"), success(first, 100, receipt));
    await postCallback(t.callbackUrl("stkpush"), success(second, 100, receipt));
    expect((await payment(first.checkoutRequestId)).status).toBe("SUCCESS");
    expect((await payment(second.checkoutRequestId)).status).toBe("PENDING");
    expect((await stored(second.checkoutRequestId))[0]).toMatchObject({ outcome: "flagged", flagReason: expect.stringContaining(receipt) });
  });

  it("never changes a settled payment: a duplicate is recorded as such, a late contradicting callback is flagged", async () => {
    const ids = await prompt(100);
    const body = success(ids, 100);
    await postCallback(t.callbackUrl("stkpush"), body);
    expect((await postCallback(t.callbackUrl("stkpush"), body)).body).toEqual(ACCEPTED);
    expect((await postCallback(t.callbackUrl("stkpush"), stkCallbackBody(ids, 1032))).body).toEqual(ACCEPTED);
    const after = await payment(ids.checkoutRequestId);
    expect(after).toMatchObject({ status: "SUCCESS", resultCode: "0" });
    expect((await stored(ids.checkoutRequestId)).map((r) => r.outcome)).toEqual(["applied", "duplicate", "flagged"]);

    // Out of order the other way: a cancellation first, then a success. The cancellation holds.
    const other = await prompt(100);
    await postCallback(t.callbackUrl("stkpush"), stkCallbackBody(other, 1032));
    await postCallback(t.callbackUrl("stkpush"), success(other, 100));
    expect(await payment(other.checkoutRequestId)).toMatchObject({ status: "CANCELLED", resultCode: "1032", mpesaReceipt: null });
    const rows = await stored(other.checkoutRequestId);
    expect(rows.map((r) => r.outcome)).toEqual(["applied", "flagged"]);
    expect(rows[1]!.flagReason).toContain("conflicts with the settled status CANCELLED");
  });

  it("applies concurrent deliveries of one callback exactly once", async () => {
    const ids = await prompt(100);
    const body = success(ids, 100);
    const answers = await Promise.all(Array.from({ length: 5 }, () => postCallback(t.callbackUrl("stkpush"), body)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const outcomes = (await stored(ids.checkoutRequestId)).map((r) => r.outcome).sort();
    expect(outcomes).toEqual(["applied", "duplicate", "duplicate", "duplicate", "duplicate"]);
    // One settlement, one event: a delivery that lost the race wrote none.
    const { id } = await payment(ids.checkoutRequestId);
    expect(await t.deps.db.unscoped("test").webhookEvent.count({ where: { type: "payment.succeeded", body: { contains: id } } })).toBe(1);
  });

  it("answers 400 to a malformed body and still stores it verbatim", async () => {
    const marker = `garbage-${Date.now()}`;
    const broken = `{"Body": {"stkCallback": ${marker}`;
    const answer = await postCallback(t.callbackUrl("stkpush"), undefined, broken);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ success: false, error: { code: "MALFORMED_REQUEST" } });
    const row = await t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ where: { rawBody: broken } });
    expect(row).toMatchObject({ kind: "stkpush", outcome: "malformed" });

    const wrongShape = JSON.stringify({ Body: { stkCallback: { ResultCode: 0, marker } } });
    expect((await postCallback(t.callbackUrl("stkpush"), undefined, wrongShape)).status).toBe(400);
    expect(await t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ where: { rawBody: wrongShape } })).toMatchObject({ outcome: "malformed" });

    // Whatever the content type.
    const text = await fetch(t.callbackUrl("b2c/result"), { method: "POST", headers: { "content-type": "text/plain" }, body: `not json ${marker}` });
    expect(text.status).toBe(400);
    expect(await t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ where: { rawBody: `not json ${marker}` } })).toMatchObject({ kind: "b2c_result", outcome: "malformed" });
    const empty = await fetch(t.callbackUrl("b2c/timeout"), { method: "POST" });
    expect(empty.status).toBe(400);
    // No Content-Type at all.
    const bare = `bare ${marker}`;
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(t.callbackUrl("stkpush"), { method: "POST", headers: { "content-length": Buffer.byteLength(bare) } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on("error", reject);
      request.end(bare);
    });
    expect(status).toBe(400);
    expect(await t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ where: { rawBody: bare } })).toMatchObject({ outcome: "malformed" });
  });

  it("applies a callback that arrives before the stkpush response stored its CheckoutRequestID", async () => {
    fake.script("stkpush", async (request, defaults) => {
      const ids = defaults.body as { CheckoutRequestID: string; MerchantRequestID: string };
      // Daraja's callback reaches the service while the push response is still on its way.
      const early = await postCallback(
        request.body.CallBackURL,
        stkCallbackBody({ checkoutRequestId: ids.CheckoutRequestID, merchantRequestId: ids.MerchantRequestID }, 0, { amount: 321, receipt: uniqueReceipt(), phone: "254712345678" }),
      );
      expect(early).toEqual({ status: 200, body: ACCEPTED });
      const kept = await t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ where: { correlationId: ids.CheckoutRequestID } });
      expect(kept).toMatchObject({ outcome: "accepted", paymentId: null });
    });
    const user = await t.customer();
    const pushed = await t.rest.post("/api/momo/stkpush", { phone: "0712345678", amount: 321 }, user.accessToken);
    expect(pushed.status).toBe(200);
    // Applied by the time the push answered: no waiting, no reconciliation.
    expect(pushed.body.data.status).toBe("SUCCESS");
    expect(await payment(pushed.body.data.checkoutRequestId)).toMatchObject({ status: "SUCCESS", paidAmount: 321 });
    expect((await stored(pushed.body.data.checkoutRequestId)).map((r) => r.outcome)).toEqual(["applied"]);
  });

  it("flags B2C callbacks that name no payout, and rejects them without the token", async () => {
    const result = {
      Result: {
        ResultType: 0,
        ResultCode: 0,
        ResultDesc: "The service request is processed successfully.",
        OriginatorConversationID: "no-such-payout",
        ConversationID: "AG_20261122_nosuch",
        TransactionID: "SG632NMUAB",
      },
    };
    expect(await postCallback(t.callbackUrl("b2c/result"), result)).toEqual({ status: 200, body: ACCEPTED });
    expect(await postCallback(t.callbackUrl("b2c/timeout"), { Result: { ...result.Result, ResultCode: 1, ResultDesc: "The service request has timed out." } })).toEqual({ status: 200, body: ACCEPTED });
    const rows = await t.deps.db.unscoped("test").darajaCallback.findMany({ where: { correlationId: "no-such-payout" } });
    expect(rows.map((r) => [r.kind, r.outcome]).sort()).toEqual([
      ["b2c_result", "flagged"],
      ["b2c_timeout", "flagged"],
    ]);
  });

  it("documents the callback endpoints in the OpenAPI document", async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    for (const path of ["/api/momo/callback/stkpush", "/api/momo/callback/b2c/result", "/api/momo/callback/b2c/timeout", "/api/momo/callback/b2c/status", "/api/momo/stkpush", "/api/momo/stkquery", "/api/momo/b2c"]) {
      expect(doc.paths[path], path).toBeDefined();
    }
  });

  it("gives each callback operation an operationId, its token as a security scheme and its 403", async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as OpenApiDocument;
    const scheme = doc.components.securitySchemes["callbackToken"];
    expect(scheme).toMatchObject({ type: "apiKey", in: "query", name: "token" });
    const callbacks = Object.entries(doc.paths).filter(([path]) => path.startsWith("/api/momo/callback/"));
    expect(callbacks.map(([path]) => path)).toEqual(callbackRoutes.map((route) => `/api/momo/callback/${route.path}`));
    const operationIds = new Set<string>();
    for (const [path, { post }] of callbacks) {
      expect(post.operationId, path).toMatch(/^darajaCallback-[a-zA-Z0-9]+$/);
      operationIds.add(post.operationId);
      expect(post.security, path).toEqual([{ callbackToken: [] }]);
      expect(post.parameters.map((parameter) => parameter.name), path).not.toContain("token");
      const forbidden = post.responses["403"]?.content?.["application/json"]?.examples ?? {};
      expect(Object.keys(forbidden), path).toEqual(["FORBIDDEN"]);
    }
    expect(operationIds.size).toBe(callbacks.length);
  });
});
