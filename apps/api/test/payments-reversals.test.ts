/**
 * Reversals through HTTP against the simulator (docs/mpesa.md#reversals): POST /api/v1/payments/{id}/reversal
 * with an API key or an admin's token, stored before Daraja is called, settled once by its result
 * callback (payment.reversed at a real webhook receiver), or by a Transaction Status query when only the
 * time-out (or nothing) arrives; one reversal per payment (STK or C2B, matched or not); the callbacks need the secret.
 */
import { verifyWebhook } from "@mteja/webhooks";
import { describe, expect } from "vitest";
import { adminKey, RestClient } from "./support/app.js";
import { testClock } from "./support/clock.js";
import { skipThisTarget } from "./support/database.js";
import { it } from "./support/fixture.js";
import { postCallback, type DarajaApp } from "./support/daraja.js";
import type { Simulator } from "./support/simulator.js";
import { waitFor } from "./support/wait.js";
import { startReceiver } from "./support/webhook-receiver.js";

const clock = testClock();
it.override({ simOptions: { callbackDelayMs: 50 }, darajaOptions: { b2c: true, now: clock.now, env: { WEBHOOK_RETRY_SCHEDULE: "0,0,0" } } });

describe.skipIf(skipThisTarget)("payment reversals", () => {
  let t: DarajaApp;
  let sim: Simulator;
  let key: string;
  const server = () => new RestClient(t.url, "");

  async function createApiKey(tenantId: string): Promise<string> {
    const res = await server().request("POST", `/api/v1/admin/tenants/${tenantId}/api-keys`, { body: { name: "Shop backend" }, headers: { authorization: `Bearer ${adminKey}` } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data.key as string;
  }

  it.beforeAll(async ({ momo, sim: simulator }) => {
    t = momo;
    sim = simulator;
    key = await createApiKey("default");
  });

  /** A customer pays `amount` through the simulator; answers the payment's uuid once it is SUCCESS. */
  async function paid(amount: number): Promise<string> {
    const user = await t.customer();
    const pushed = await t.rest.request("POST", "/api/momo/stkpush", { body: { phone: "0712345678", amount }, token: user.accessToken });
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
    const id = pushed.body.data.id as string;
    await waitFor(async () => (await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { id } })).status === "SUCCESS");
    return id;
  }

  const reverse = (paymentId: string, token = key, idempotencyKey?: string) =>
    server().request("POST", `/api/v1/payments/${paymentId}/reversal`, { token, ...(idempotencyKey ? { headers: { "idempotency-key": idempotencyKey } } : {}) });
  const getPayment = async (paymentId: string) => (await server().request("GET", `/api/v1/payments/${paymentId}`, { token: key })).body.data;
  const reversalOf = async (paymentId: string) => (await getPayment(paymentId)).reversal;
  const settledReversal = (paymentId: string, status: string) => waitFor(async () => ((await reversalOf(paymentId))?.status === status ? reversalOf(paymentId) : undefined));

  it("PENDING → SUCCESS: stored before Daraja is called, 202 with the payment, payment.reversed at the receiver; a second reversal is 409", async () => {
    const hooks = await startReceiver();
    try {
      const endpoint = (await server().request("POST", "/api/v1/webhook-endpoints", { body: { url: hooks.url, events: ["payment.reversed"] }, token: key })).body.data;
      const paymentId = await paid(40);
      const payment = await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { id: paymentId } });

      let storedFirst = false;
      sim.script("reversal", async (request) => {
        // The row exists (PENDING) before Daraja answers.
        const row = await t.deps.db.unscoped("test").paymentReversal.findFirst({ where: { paymentId } });
        storedFirst = row?.status === "PENDING" && request.body.TransactionID === payment.mpesaReceipt;
      });
      const res = await reverse(paymentId);
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(storedFirst).toBe(true);
      expect(res.body.data).toMatchObject({ id: paymentId, status: "SUCCESS", amount: 40, mpesa_receipt: payment.mpesaReceipt });
      // PENDING, unless the result callback (sent 50 ms after the request) already beat the answer.
      expect(["PENDING", "SUCCESS"]).toContain(res.body.data.reversal.status);

      const sent = sim.received.filter((r) => r.operation === "reversal").at(-1)!;
      expect(sent.body).toMatchObject({ CommandID: "TransactionReversal", TransactionID: payment.mpesaReceipt, Amount: 40, RecieverIdentifierType: "11" });
      expect(sim.violations).toEqual([]);

      const reversal = await settledReversal(paymentId, "SUCCESS");
      expect(reversal).toMatchObject({ status: "SUCCESS", reason: "The service request is processed successfully.", receipt: expect.stringMatching(/^[A-Z0-9]{10}$/) });

      const [delivery] = await hooks.waitFor((d) => d.event.type === "payment.reversed" && d.event.data.payment?.id === paymentId);
      const event = verifyWebhook<{ payment: Record<string, any> }>(delivery!.body, delivery!.headers["mteja-signature"], endpoint.secret);
      expect(event.data.payment).toMatchObject({ id: paymentId, status: "SUCCESS", reversal: { status: "SUCCESS", receipt: reversal.receipt } });

      const again = await reverse(paymentId);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe("REVERSAL_EXISTS");
      expect(await t.deps.db.unscoped("test").paymentReversal.count({ where: { paymentId } })).toBe(1);
    } finally {
      await hooks.close();
    }
  });

  it("reverses a C2B payment that settled an intent (channel c2b in payment.reversed), then 409; an unmatched C2B payment can be refunded too", async () => {
    const hooks = await startReceiver();
    try {
      const endpoint = (await server().request("POST", "/api/v1/webhook-endpoints", { body: { url: hooks.url, events: ["payment.reversed"] }, token: key })).body.data;
      const registered = await server().request("POST", "/api/v1/admin/tenants/default/c2b/register", { body: {}, headers: { authorization: `Bearer ${adminKey}` } });
      expect(registered.status, JSON.stringify(registered.body)).toBe(200);
      const created = await server().request("POST", "/api/v1/payment-intents", { body: { amount: 750, reference: `REV${Date.now().toString(36).slice(-6)}` }, token: key });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const intent = created.body.data;
      const paidByMenu = await sim.c2bPay({ account: intent.reference, amount: 750, phone: "0712345678" });
      expect(paidByMenu.status).toBe("completed");
      const intentNow = (await server().request("GET", `/api/v1/payment-intents/${intent.id}`, { token: key })).body.data;
      expect(intentNow.status).toBe("succeeded");
      const paymentId = intentNow.payments[0].id as string;

      const res = await reverse(paymentId);
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(res.body.data).toMatchObject({ id: paymentId, channel: "c2b", status: "SUCCESS", amount: 750, mpesa_receipt: paidByMenu.trans_id });
      expect(["PENDING", "SUCCESS"]).toContain(res.body.data.reversal.status);
      const sent = sim.received.filter((r) => r.operation === "reversal").at(-1)!;
      expect(sent.body).toMatchObject({ CommandID: "TransactionReversal", TransactionID: paidByMenu.trans_id, Amount: 750 });
      const reversal = await settledReversal(paymentId, "SUCCESS");
      const [delivery] = await hooks.waitFor((d) => d.event.type === "payment.reversed" && d.event.data.payment?.id === paymentId);
      const event = verifyWebhook<{ payment: Record<string, any> }>(delivery!.body, delivery!.headers["mteja-signature"], endpoint.secret);
      expect(event.data.payment).toMatchObject({ id: paymentId, channel: "c2b", trans_id: paidByMenu.trans_id, reversal: { status: "SUCCESS", receipt: reversal.receipt } });
      const again = await reverse(paymentId);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe("REVERSAL_EXISTS");

      // Money nobody can match (kept for the shop as unmatched) goes back the same way.
      const unmatched = await sim.c2bPay({ account: "NOBODY-KNOWS", amount: 95, phone: "0712345678", validation: false });
      const listed = (await server().request("GET", "/api/v1/c2b-payments?status=unmatched&limit=100", { token: key })).body.data.c2b_payments as any[];
      const kept = listed.find((p) => p.payment.trans_id === unmatched.trans_id);
      expect(kept).toMatchObject({ status: "unmatched", payment: { status: "SUCCESS", intent_id: null } });
      expect((await reverse(kept.id)).status).toBe(202);
      await settledReversal(kept.id, "SUCCESS");
      expect(sim.violations).toEqual([]);
    } finally {
      await hooks.close();
    }
  });

  it("→ FAILED (amount 31): the reason is Daraja's, no event, and a new reversal is then allowed", async () => {
    const paymentId = await paid(31);
    const res = await reverse(paymentId);
    expect(res.status).toBe(202);
    const failed = await settledReversal(paymentId, "FAILED");
    expect(failed.reason).toMatch(/insufficient/i);
    const stored = await t.deps.db.unscoped("test").paymentReversal.findFirstOrThrow({ where: { paymentId } });
    expect(stored.resultCode).toBe("1");
    expect(await t.deps.db.unscoped("test").webhookEvent.count({ where: { type: "payment.reversed", body: { contains: paymentId } } })).toBe(0);

    const second = await reverse(paymentId);
    expect(second.status, JSON.stringify(second.body)).toBe(202);
    expect(["PENDING", "FAILED"]).toContain(second.body.data.reversal.status);
    expect(await t.deps.db.unscoped("test").paymentReversal.count({ where: { paymentId } })).toBe(2);
    // The amount still chooses failure in the simulator: the second fails too, and is the one shown.
    await settledReversal(paymentId, "FAILED");
  });

  it("→ UNKNOWN when only the time-out arrives (amount 32), then settled by Transaction Status on the reconciler's run", async () => {
    const paymentId = await paid(32);
    expect((await reverse(paymentId)).status).toBe(202);
    const unknown = await settledReversal(paymentId, "UNKNOWN");
    expect(unknown.reason).toMatch(/timed out/);
    // UNKNOWN still holds the payment: no second reversal, and it is never re-sent.
    expect((await reverse(paymentId)).body.error.code).toBe("REVERSAL_EXISTS");
    const sentBefore = sim.count("reversal");

    const report = await t.reconciler.runOnce();
    expect(report.reversalsQueried).toBe(1);
    const query = sim.received.filter((r) => r.operation === "transactionstatus").at(-1)!;
    const stored = await t.deps.db.unscoped("test").paymentReversal.findFirstOrThrow({ where: { paymentId } });
    expect(query.body).toMatchObject({ OriginatorConversationID: stored.originatorConversationId, PartyA: "174379" });
    const settled = await settledReversal(paymentId, "SUCCESS");
    expect(settled.receipt).toMatch(/^[A-Z0-9]{10}$/);
    expect(sim.count("reversal")).toBe(sentBefore);
    expect(await t.deps.db.unscoped("test").webhookEvent.count({ where: { type: "payment.reversed", body: { contains: paymentId } } })).toBe(1);
  });

  it("when nothing arrives (amount 33) the reversal stays PENDING until its status query is due, on the injected clock", async () => {
    const paymentId = await paid(33);
    expect((await reverse(paymentId)).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await reversalOf(paymentId)).status).toBe("PENDING");
    expect((await t.reconciler.runOnce()).reversalsQueried).toBe(0);
    clock.advance(121); // MOMO_RECONCILE_AFTER_SECONDS (120)
    expect((await t.reconciler.runOnce()).reversalsQueried).toBe(1);
    await settledReversal(paymentId, "SUCCESS");
  });

  it("a Daraja gateway page is an unknown outcome: 202, UNKNOWN, never re-sent, settled by a status query by receipt", async () => {
    const paymentId = await paid(36);
    // Daraja acts on it but sends no callback: only the status query can settle it.
    await sim.nextOutcome("no_callback", { api: "reversal" });
    sim.script("reversal", () => ({ status: 502, headers: { "content-type": "text/html" }, body: "<html><body>502 Bad Gateway</body></html>" }));
    const sentBefore = sim.count("reversal");
    const res = await reverse(paymentId, key, "gateway-page-1");
    expect(res.status).toBe(202);
    expect(res.body.data.reversal.status).toBe("UNKNOWN");
    expect(sim.count("reversal")).toBe(sentBefore + 1);
    // The same key replays the answer; the request is not sent again.
    const replay = await reverse(paymentId, key, "gateway-page-1");
    expect(replay.status).toBe(202);
    expect(replay.body.data.reversal.status).toBe("UNKNOWN");
    expect(sim.count("reversal")).toBe(sentBefore + 1);
    await t.reconciler.runOnce();
    const query = sim.received.filter((r) => r.operation === "transactionstatus").at(-1)!;
    const payment = await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { id: paymentId } });
    expect(query.body.TransactionID).toBe(payment.mpesaReceipt);
    // The simulator went through with it (only its answer was replaced): the payment reads Reversed.
    await settledReversal(paymentId, "SUCCESS");
  });

  it("replays the first answer for the same Idempotency-Key; another key is 409", async () => {
    const paymentId = await paid(37);
    const first = await reverse(paymentId, key, "rev-key-1");
    expect(first.status).toBe(202);
    const replay = await reverse(paymentId, key, "rev-key-1");
    expect(replay.status).toBe(202);
    expect(replay.body.data.id).toBe(paymentId);
    expect(replay.body.data.reversal.status).toMatch(/PENDING|SUCCESS/);
    expect((await reverse(paymentId, key, "rev-key-2")).body.error.code).toBe("REVERSAL_EXISTS");
    expect(await t.deps.db.unscoped("test").paymentReversal.count({ where: { paymentId } })).toBe(1);
    // The same key for another payment is a different request.
    const other = await paid(38);
    const reused = await reverse(other, key, "rev-key-1");
    expect(reused.status).toBe(422);
    await settledReversal(paymentId, "SUCCESS");
  });

  it("refuses a payment that is not SUCCESS (409 PAYMENT_NOT_REVERSIBLE) and calls nothing", async () => {
    const user = await t.customer();
    const pushed = await t.rest.request("POST", "/api/momo/stkpush", { body: { phone: "0712345678", amount: 2 }, token: user.accessToken }); // 2: cancelled
    const id = pushed.body.data.id as string;
    await waitFor(async () => (await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { id } })).status === "CANCELLED");
    const before = sim.count("reversal");
    const res = await reverse(id);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("PAYMENT_NOT_REVERSIBLE");
    expect(sim.count("reversal")).toBe(before);
  });

  it("takes an API key or an admin's token: another tenant's key 404, a customer's token 403, no credential 401", async () => {
    const paymentId = await paid(39);
    expect((await server().request("POST", "/api/v1/admin/tenants", { body: { id: "rev-other", name: "Other" }, headers: { authorization: `Bearer ${adminKey}` } })).status).toBe(200);
    const otherKey = await createApiKey("rev-other");
    const foreign = await reverse(paymentId, otherKey);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe("NOT_FOUND");

    const customer = await t.customer();
    const asCustomer = await reverse(paymentId, customer.accessToken);
    expect(asCustomer.status).toBe(403);
    expect(asCustomer.body.error.code).toBe("FORBIDDEN");
    expect((await server().request("POST", `/api/v1/payments/${paymentId}/reversal`)).status).toBe(401);
    expect(await t.deps.db.unscoped("test").paymentReversal.count({ where: { paymentId } })).toBe(0);

    const admin = await t.admin();
    const asAdmin = await reverse(paymentId, admin.accessToken);
    expect(asAdmin.status, JSON.stringify(asAdmin.body)).toBe(202);
    const row = await t.deps.db.unscoped("test").paymentReversal.findFirstOrThrow({ where: { paymentId } });
    expect(row.requestedBy).toBe(`user:${admin.id}`);
    await settledReversal(paymentId, "SUCCESS");
  });

  it("answers the same over tRPC (reversals.create): 202 with the payment, then 409 REVERSAL_EXISTS", async () => {
    const paymentId = await paid(41);
    const call = async () => {
      const response = await fetch(`${t.url}/trpc/reversals.create`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ id: paymentId }),
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    const first = await call();
    expect(first.status).toBe(202);
    expect(first.body.result.data.data).toMatchObject({ id: paymentId, reversal: { status: expect.stringMatching(/PENDING|SUCCESS/) } });
    const second = await call();
    expect(second.status).toBe(409);
    expect(second.body.error.error.code).toBe("REVERSAL_EXISTS");
    await settledReversal(paymentId, "SUCCESS");
  });

  it("rejects reversal callbacks without the secret (403, nothing applied); a result naming no reversal is flagged", async () => {
    const body = { Result: { ResultType: 0, ResultCode: 0, ResultDesc: "ok", OriginatorConversationID: "nobody-1", ConversationID: "AG_nobody", TransactionID: "SKE52PAWR9" } };
    for (const path of ["reversal/result", "reversal/timeout", "reversal/status"] as const) {
      expect((await postCallback(t.callbackUrl(path, null), body)).status, path).toBe(403);
      expect((await postCallback(t.callbackUrl(path, "wrong-token"), body)).status, path).toBe(403);
    }
    const accepted = await postCallback(t.callbackUrl("reversal/result"), body);
    expect(accepted.status).toBe(200);
    const stored = await t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ where: { kind: "reversal_result", correlationId: "nobody-1" } });
    expect(stored).toMatchObject({ outcome: "flagged", rawBody: JSON.stringify(body) });
  });

  it("applies a duplicated result once (amount 34) and flags one whose amount differs", async () => {
    const paymentId = await paid(34);
    expect((await reverse(paymentId)).status).toBe(202);
    await settledReversal(paymentId, "SUCCESS");
    const stored = await t.deps.db.unscoped("test").paymentReversal.findFirstOrThrow({ where: { paymentId } });
    // Each is stored ("accepted") before it is applied: wait until both were applied.
    await waitFor(async () => (await t.deps.db.unscoped("test").darajaCallback.count({ where: { kind: "reversal_result", correlationId: stored.originatorConversationId, outcome: { not: "accepted" } } })) === 2);
    const outcomes = (await t.deps.db.unscoped("test").darajaCallback.findMany({ where: { kind: "reversal_result", correlationId: stored.originatorConversationId } })).map((c) => c.outcome).sort();
    expect(outcomes).toEqual(["applied", "duplicate"]);
    expect(await t.deps.db.unscoped("test").webhookEvent.count({ where: { type: "payment.reversed", body: { contains: paymentId } } })).toBe(1);

    const wrongAmount = {
      Result: {
        ResultType: 0,
        ResultCode: 0,
        ResultDesc: "The service request is processed successfully.",
        OriginatorConversationID: stored.originatorConversationId,
        ConversationID: stored.conversationId,
        TransactionID: "SKE0000001",
        ResultParameters: { ResultParameter: [{ Key: "Amount", Value: 999 }, { Key: "OriginalTransactionID", Value: stored.originalReceipt }] },
      },
    };
    expect((await postCallback(t.callbackUrl("reversal/result"), wrongAmount)).status).toBe(200);
    const flagged = await t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ where: { kind: "reversal_result", rawBody: JSON.stringify(wrongAmount) } });
    expect(flagged.outcome).toBe("flagged");
    expect(flagged.flagReason).toMatch(/amount mismatch/);
    expect(flagged.paymentId).toBe(paymentId);
  });
});
