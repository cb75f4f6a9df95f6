/**
 * Refunds through HTTP against the simulator (docs/mpesa.md#refunds): POST /api/v1/payments/{id}/refunds
 * with an API key (or an admin's token) and a required Idempotency-Key. The whole payment goes back by
 * Daraja's Reversal, a part (or the rest after a part) by B2C to the payer, each stored before Daraja is
 * called and settled once by its callbacks, or by a Transaction Status query when Daraja's answer proved
 * nothing (never sent twice); the refunds of a payment never add up to more than it, even asked at once;
 * a C2B payment's masked phone allows only the whole; B2C's switch and daily limit apply; refund.succeeded
 * and refund.failed reach a webhook receiver; the payment shows refunded_amount; the reversal operation
 * is a deprecated full refund.
 */
import { verifyWebhook } from "@mteja/webhooks";
import { TRPCClientError } from "@trpc/client";
import { afterAll, describe, expect } from "vitest";
import { adminKey, RestClient, trpcClient } from "./support/app.js";
import { testClock } from "./support/clock.js";
import { skipThisTarget, target } from "./support/database.js";
import { it } from "./support/fixture.js";
import { tenantParameter, tenantToken, type DarajaApp } from "./support/daraja.js";
import { B2C_SHORTCODE, gatewayPage, INITIATOR_NAME, SHORTCODE, type Simulator } from "./support/simulator.js";
import { waitFor } from "./support/wait.js";
import { startReceiver, type Receiver } from "./support/webhook-receiver.js";

const clock = testClock();
it.override({ simOptions: { callbackDelayMs: 50 }, darajaOptions: { b2c: true, now: clock.now, env: { WEBHOOK_RETRY_SCHEDULE: "0,0,0" } } });

describe.skipIf(skipThisTarget)("refunds", () => {
  let t: DarajaApp;
  let sim: Simulator;
  let key: string;
  let hooks: Receiver;
  let endpointSecret: string;
  const server = () => new RestClient(t.url, "");
  const asAdmin = { authorization: `Bearer ${adminKey}` };

  it.beforeAll(async ({ momo, sim: simulator }) => {
    t = momo;
    sim = simulator;
    const created = await server().request("POST", "/api/v1/admin/tenants/default/api-keys", { body: { name: "Shop backend" }, headers: asAdmin });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    key = created.body.data.key as string;
    hooks = await startReceiver();
    const events = ["refund.succeeded", "refund.failed", "payment.reversed"];
    const endpoint = await server().request("POST", "/api/v1/webhook-endpoints", { body: { url: hooks.url, events }, token: key });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    endpointSecret = endpoint.body.data.secret as string;
  });
  afterAll(async () => {
    await hooks?.close();
    expect(sim.violations).toEqual([]);
  });

  /** A customer pays `amount` through the simulator; answers the payment once it is SUCCESS. */
  async function paid(amount: number) {
    const user = await t.customer();
    const pushed = await t.rest.request("POST", "/api/momo/stkpush", { body: { phone: "0712345678", amount }, token: user.accessToken });
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
    const id = pushed.body.data.id as string;
    return waitFor(async () => {
      const payment = await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { id } });
      return payment.status === "SUCCESS" && payment.mpesaReceipt ? payment : undefined;
    });
  }

  let keys = 0;
  const newKey = () => `refund-${Date.now().toString(36)}-${(keys += 1)}`;
  const refund = (paymentId: string, body: Record<string, unknown> = {}, idempotencyKey: string | null = newKey(), token = key) =>
    server().request("POST", `/api/v1/payments/${paymentId}/refunds`, { body, token, ...(idempotencyKey === null ? {} : { headers: { "idempotency-key": idempotencyKey } }) });
  const getRefund = async (id: string) => (await server().request("GET", `/api/v1/refunds/${id}`, { token: key })).body.data;
  const settled = (id: string, status: string) => waitFor(async () => ((await getRefund(id))?.status === status ? getRefund(id) : undefined));
  const getPayment = async (paymentId: string) => (await server().request("GET", `/api/v1/payments/${paymentId}`, { token: key })).body.data;
  const listOf = async (paymentId: string) => (await server().request("GET", `/api/v1/payments/${paymentId}/refunds`, { token: key })).body.data;
  const reverse = (paymentId: string) => server().request("POST", `/api/v1/payments/${paymentId}/reversal`, { token: key });
  const setB2c = (b2c: Record<string, unknown> | null) =>
    server().request("PATCH", "/api/v1/admin/tenants/default", { body: { settings: { momo: { b2c } } }, headers: asAdmin });
  /** The URL Daraja is given for a callback path: the relay's (the service's own port), the shop's token and name. */
  const callbackUrl = (path: string) => `${t.relay.url}/api/momo/callback/${path}?token=${tenantToken("default")}&tenant=${tenantParameter("default")}`;
  /** Statements of this test's database waiting for a row lock (PostgreSQL only). */
  const waitingForALock = async () => {
    const text = "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'";
    return Number((await t.deps.db.unscoped("test").$queryRawUnsafe<{ n: number }[]>(text))[0]?.n);
  };
  const lastSent = (operation: "reversal" | "b2c" | "transactionstatus") => sim.received.filter((r) => r.operation === operation).at(-1)!;
  const deliveryOf = async (type: string, refundId: string) => {
    const [delivery] = await hooks.waitFor((d) => d.event.type === type && d.event.data.refund?.id === refundId);
    return verifyWebhook<{ refund: Record<string, any> }>(delivery!.body, delivery!.headers["mteja-signature"], endpointSecret);
  };

  it("the whole payment goes back by Daraja's Reversal: stored first, the exact request, refund.succeeded, refunded_amount", async () => {
    const payment = await paid(120);
    let storedFirst = false;
    sim.script("reversal", async () => {
      const row = await t.deps.db.unscoped("test").refund.findFirst({ where: { paymentId: payment.id } });
      storedFirst = row?.status === "PENDING" && row.method === "reversal";
    });
    const res = await refund(payment.id, { reason: "Out of stock" });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(storedFirst).toBe(true);
    const created = res.body.data;
    expect(created).toMatchObject({ id: expect.stringMatching(/^re_[0-9a-f]{32}$/), payment_id: payment.id, amount: 120, method: "reversal", reason: "Out of stock", livemode: true });
    expect(["pending", "succeeded"]).toContain(created.status);

    expect(lastSent("reversal").body).toEqual({
      Initiator: INITIATOR_NAME,
      SecurityCredential: sim.securityCredential,
      CommandID: "TransactionReversal",
      TransactionID: payment.mpesaReceipt,
      Amount: 120,
      ReceiverParty: SHORTCODE,
      RecieverIdentifierType: "11",
      ResultURL: callbackUrl("reversal/result"),
      QueueTimeOutURL: callbackUrl("reversal/timeout"),
      Remarks: "Refund",
      Occasion: "",
    });

    const done = await settled(created.id, "succeeded");
    expect(done).toMatchObject({ id: created.id, amount: 120, method: "reversal", mpesa_receipt: expect.stringMatching(/^[A-Z0-9]{10}$/) });
    const event = await deliveryOf("refund.succeeded", created.id);
    expect(event.data.refund).toEqual(done);
    // The reversal is also the payment's, as the second release showed it.
    const [reversed] = await hooks.waitFor((d) => d.event.type === "payment.reversed" && d.event.data.payment?.id === payment.id);
    expect(reversed!.event.data.payment).toMatchObject({ reversal: { status: "SUCCESS", receipt: done.mpesa_receipt }, refunded_amount: 120 });

    expect(await getPayment(payment.id)).toMatchObject({ refunded_amount: 120, reversal: { status: "SUCCESS" } });
    expect(await listOf(payment.id)).toEqual({ refunds: [done], next_cursor: null });
    // Nothing remains.
    const more = await refund(payment.id);
    expect(more.status).toBe(422);
    expect(more.body.error.details[0].path).toBe("amount");
  });

  it("a part goes back by B2C to the payer's phone (the exact request), then the rest the same way", async () => {
    const payment = await paid(300);
    const res = await refund(payment.id, { amount: 100 });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.data).toMatchObject({ amount: 100, method: "b2c", reason: null });
    const row = await t.deps.db.unscoped("test").refund.findFirstOrThrow({ where: { paymentId: payment.id } });
    expect(lastSent("b2c").body).toEqual({
      OriginatorConversationID: row.originatorConversationId,
      InitiatorName: INITIATOR_NAME,
      SecurityCredential: sim.securityCredential,
      CommandID: "BusinessPayment",
      Amount: 100,
      PartyA: B2C_SHORTCODE,
      PartyB: payment.phone,
      Remarks: "Refund",
      QueueTimeOutURL: callbackUrl("refund/b2c/timeout"),
      ResultURL: callbackUrl("refund/b2c/result"),
      Occassion: `Refund of ${payment.mpesaReceipt}`,
    });
    const first = await settled(res.body.data.id, "succeeded");
    expect((await deliveryOf("refund.succeeded", first.id)).data.refund).toEqual(first);
    expect((await getPayment(payment.id)).refunded_amount).toBe(100);

    // Without an amount: what remains, by B2C again (not the whole payment); a second later, so listed first.
    clock.advance(1);
    const rest = await refund(payment.id);
    expect(rest.status).toBe(202);
    expect(rest.body.data).toMatchObject({ amount: 200, method: "b2c" });
    const second = await settled(rest.body.data.id, "succeeded");
    expect(await getPayment(payment.id)).toMatchObject({ refunded_amount: 300, reversal: null });
    expect((await listOf(payment.id)).refunds.map((r: { id: string }) => r.id)).toEqual([second.id, first.id]);
    // Stored callbacks of B2C refunds are their own kind, linked to the payment.
    const stored = await t.deps.db.unscoped("test").darajaCallback.findMany({ where: { kind: "refund_b2c_result", paymentId: payment.id } });
    expect(stored.map((c) => c.outcome)).toEqual(["applied", "applied"]);
  });

  it("never more than the payment, even asked at once: two refunds of 120 of 200 at the same moment, one is refused (422 on amount)", async () => {
    const payment = await paid(200);
    const sentBefore = sim.count("b2c");
    // The test holds the payment's row while both arrive, so that both are in flight at once: the second
    // must wait for the first (a check that did not lock the payment would let both read the same sum,
    // then insert).
    const answers = await t.deps.db.transaction(t.deps.db.unscoped("test"), "plain", async (tx) => {
      await tx.$queryRaw`SELECT id FROM payments WHERE id = ${payment.id}::uuid FOR UPDATE`;
      const asked = [refund(payment.id, { amount: 120 }), refund(payment.id, { amount: 120 })];
      // PostgreSQL: wait until both wait for a lock. The embedded database runs one transaction at a time:
      // both wait for this one to end, whatever they would lock.
      if (target === "postgres") await waitFor(async () => (await waitingForALock()) >= 2);
      return asked;
    });
    const statuses = (await Promise.all(answers)).map((a) => a.status);
    expect(statuses.sort()).toEqual([202, 422]);
    for (const refused of (await Promise.all(answers)).filter((a) => a.status === 422)) {
      expect(refused.body.error).toMatchObject({ code: "VALIDATION_ERROR", details: [{ path: "amount" }] });
    }
    const rows = await t.deps.db.unscoped("test").refund.findMany({ where: { paymentId: payment.id } });
    expect(rows.map((r) => r.amount)).toEqual([120]);
    expect(sim.count("b2c")).toBe(sentBefore + 1);
    await waitFor(async () => (await getPayment(payment.id)).refunded_amount === 120);
  });

  it("is made once per Idempotency-Key: the same key answers the same refund, another body is 422, no key is 422 naming it; also over tRPC", async () => {
    const payment = await paid(150);
    const idempotencyKey = newKey();
    const first = await refund(payment.id, { amount: 50 }, idempotencyKey);
    expect(first.status).toBe(202);
    const sentBefore = sim.count("b2c");
    const again = await refund(payment.id, { amount: 50 }, idempotencyKey);
    expect(again.status).toBe(202);
    expect(again.body.data.id).toBe(first.body.data.id);
    const trpc = trpcClient(t.url, () => ({ authorization: `Bearer ${key}`, "idempotency-key": idempotencyKey }));
    const overTrpc = await trpc.refunds.create.mutate({ id: payment.id, amount: 50 });
    expect(overTrpc.data.id).toBe(first.body.data.id);
    expect(sim.count("b2c")).toBe(sentBefore);
    expect(await t.deps.db.unscoped("test").refund.count({ where: { paymentId: payment.id } })).toBe(1);

    const otherBody = await refund(payment.id, { amount: 60 }, idempotencyKey);
    expect(otherBody.status).toBe(422);
    expect(otherBody.body.error).toMatchObject({ code: "VALIDATION_ERROR", details: [{ path: "Idempotency-Key" }] });
    const noKey = await refund(payment.id, { amount: 10 }, null);
    expect(noKey.status).toBe(422);
    expect(noKey.body.error).toMatchObject({ code: "VALIDATION_ERROR", details: [{ path: "Idempotency-Key" }] });
    const withoutKey = trpcClient(t.url, () => ({ authorization: `Bearer ${key}` }));
    const refused = await withoutKey.refunds.create.mutate({ id: payment.id, amount: 10 }).catch((error: unknown) => error);
    expect((refused as TRPCClientError<any>).data.httpStatus).toBe(422);
    expect(await t.deps.db.unscoped("test").refund.count({ where: { paymentId: payment.id } })).toBe(1);
    expect((await trpc.refunds.get.query({ id: first.body.data.id })).data.payment_id).toBe(payment.id);
    await settled(first.body.data.id, "succeeded");
  });


  it("an Idempotency-Key is its mode's own: the same key with a test key and a live key makes two refunds, each answered again by its own", async () => {
    const created = await server().request("POST", "/api/v1/admin/tenants/default/api-keys", { body: { name: "Shop backend (test)", mode: "test" }, headers: asAdmin });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const testKey = created.body.data.key as string;
    const livePayment = await paid(130);
    // A test payment: a customer pays a test key's intent; the simulated provider inside the service settles it.
    const intent = await server().request("POST", "/api/v1/payment-intents", { body: { amount: 140, reference: `IDEM${keys}` }, token: testKey });
    expect(intent.status, JSON.stringify(intent.body)).toBe(201);
    const user = await t.customer();
    const pushed = await t.rest.request("POST", "/api/momo/stkpush", { body: { phone: "0712345678", intent_id: intent.body.data.id }, token: user.accessToken });
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
    const testPayment = await waitFor(async () => {
      const payment = await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { id: pushed.body.data.id as string } });
      return payment.status === "SUCCESS" && payment.mpesaReceipt ? payment : undefined;
    });
    expect(testPayment.livemode).toBe(false);

    const idempotencyKey = newKey();
    const inTest = await refund(testPayment.id, {}, idempotencyKey, testKey);
    expect(inTest.status, JSON.stringify(inTest.body)).toBe(202);
    const inLive = await refund(livePayment.id, {}, idempotencyKey);
    expect(inLive.status, JSON.stringify(inLive.body)).toBe(202);
    expect(inLive.body.data).toMatchObject({ payment_id: livePayment.id, livemode: true });
    expect(inTest.body.data).toMatchObject({ payment_id: testPayment.id, livemode: false });
    expect(inLive.body.data.id).not.toBe(inTest.body.data.id);
    // Each mode's retry answers its own refund.
    expect((await refund(testPayment.id, {}, idempotencyKey, testKey)).body.data.id).toBe(inTest.body.data.id);
    expect((await refund(livePayment.id, {}, idempotencyKey)).body.data.id).toBe(inLive.body.data.id);
    await settled(inLive.body.data.id, "succeeded");
  });
  it("a gateway's 502 to the B2C request: 202 unknown, never sent again, settled by Transaction Status on the reconciler's run", async () => {
    const payment = await paid(160);
    // Daraja acts on it but sends no result: only the status query can settle it.
    await sim.nextOutcome("no_callback", { api: "b2c" });
    sim.script("b2c", () => gatewayPage(502));
    const sentBefore = sim.count("b2c");
    const idempotencyKey = newKey();
    const res = await refund(payment.id, { amount: 40 }, idempotencyKey);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.data).toMatchObject({ status: "unknown", method: "b2c", amount: 40 });
    expect(sim.count("b2c")).toBe(sentBefore + 1);
    const replay = await refund(payment.id, { amount: 40 }, idempotencyKey);
    expect(replay.body.data).toMatchObject({ id: res.body.data.id, status: "unknown" });
    expect(sim.count("b2c")).toBe(sentBefore + 1);

    const report = await t.reconciler.runOnce();
    expect(report.refundsQueried).toBe(1);
    const row = await t.deps.db.unscoped("test").refund.findFirstOrThrow({ where: { paymentId: payment.id } });
    expect(lastSent("transactionstatus").body).toMatchObject({ OriginatorConversationID: row.originatorConversationId, PartyA: B2C_SHORTCODE, ResultURL: callbackUrl("refund/b2c/status") });
    const done = await settled(res.body.data.id, "succeeded");
    expect(done.mpesa_receipt).toMatch(/^[A-Z0-9]{10}$/);
    expect(sim.count("b2c")).toBe(sentBefore + 1);
    expect((await t.reconciler.runOnce()).refundsQueried).toBe(0);
  });

  it("a C2B payment whose phone M-Pesa masked: a part is 409 PAYMENT_NOT_REFUNDABLE, the whole goes back by reversal", async () => {
    const registered = await server().request("POST", "/api/v1/admin/tenants/default/c2b/register", { body: {}, headers: asAdmin });
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    const paidByMenu = await sim.c2bPay({ account: "NOORDER", amount: 90, phone: "0712345678", msisdn: "masked", validation: false });
    expect(paidByMenu.status).toBe("completed");
    const payment = await waitFor(() => t.deps.db.unscoped("test").payment.findFirst({ where: { transId: paidByMenu.trans_id } }));
    expect(payment.phone).toContain("*");

    const part = await refund(payment.id, { amount: 30 });
    expect(part.status).toBe(409);
    expect(part.body.error.code).toBe("PAYMENT_NOT_REFUNDABLE");
    const whole = await refund(payment.id);
    expect(whole.status, JSON.stringify(whole.body)).toBe(202);
    expect(whole.body.data).toMatchObject({ amount: 90, method: "reversal" });
    expect(lastSent("reversal").body).toMatchObject({ TransactionID: paidByMenu.trans_id, Amount: 90 });
    await settled(whole.body.data.id, "succeeded");
  });

  it("refuses what cannot be refunded: not SUCCESS, a B2C part under 10 shillings (409); a customer's token (403); an admin's token may", async () => {
    const user = await t.customer();
    const pushed = await t.rest.request("POST", "/api/momo/stkpush", { body: { phone: "0712345678", amount: 2 }, token: user.accessToken }); // 2: cancelled
    const cancelledId = pushed.body.data.id as string;
    await waitFor(async () => (await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { id: cancelledId } })).status === "CANCELLED");
    const notPaid = await refund(cancelledId);
    expect(notPaid.status).toBe(409);
    expect(notPaid.body.error.code).toBe("PAYMENT_NOT_REFUNDABLE");

    const payment = await paid(100);
    const small = await refund(payment.id, { amount: 9 });
    expect(small.status).toBe(409);
    expect(small.body.error.code).toBe("PAYMENT_NOT_REFUNDABLE");
    expect((await refund(payment.id, { amount: 10 }, newKey(), user.accessToken)).status).toBe(403);
    const admin = await t.admin();
    const byAdmin = await refund(payment.id, { amount: 10 }, newKey(), admin.accessToken);
    expect(byAdmin.status, JSON.stringify(byAdmin.body)).toBe(202);
    expect((await t.deps.db.unscoped("test").refund.findFirstOrThrow({ where: { paymentId: payment.id } })).requestedBy).toBe(`user:${admin.id}`);
    expect((await server().request("GET", "/api/v1/refunds/re_00000000000000000000000000000000", { token: key })).status).toBe(404);
    await settled(byAdmin.body.data.id, "succeeded");
  });

  it("a refund Daraja fails (11: insufficient funds) is failed, sends refund.failed, and counts for nothing", async () => {
    const payment = await paid(250);
    const res = await refund(payment.id, { amount: 11 });
    expect(res.status).toBe(202);
    const failed = await settled(res.body.data.id, "failed");
    expect((await deliveryOf("refund.failed", failed.id)).data.refund).toEqual(failed);
    expect((await getPayment(payment.id)).refunded_amount).toBe(0);
    // Nothing of it was refunded: the whole may still go back by reversal.
    const whole = await refund(payment.id);
    expect(whole.body.data).toMatchObject({ amount: 250, method: "reversal" });
    await settled(whole.body.data.id, "succeeded");
  });

  it("B2C's switch applies: a part with the shop's B2C switched off is 403 FORBIDDEN (the whole still goes back by reversal)", async () => {
    expect((await setB2c({ enabled: false })).status).toBe(200);
    try {
      const payment = await paid(170);
      const sentBefore = sim.count("b2c");
      const part = await refund(payment.id, { amount: 70 });
      expect(part.status).toBe(403);
      expect(part.body.error.code).toBe("FORBIDDEN");
      expect(sim.count("b2c")).toBe(sentBefore);
      expect(await t.deps.db.unscoped("test").refund.count({ where: { paymentId: payment.id } })).toBe(0);
      expect((await refund(payment.id)).body.data).toMatchObject({ method: "reversal", amount: 170 });
    } finally {
      expect((await setB2c(null)).status).toBe(200);
    }
  });

  it("B2C's daily limit applies, shared with payouts: past it, 422 on amount", async () => {
    // A new Nairobi day: the refunds above do not count.
    clock.advance(24 * 3600);
    expect((await setB2c({ dailyLimit: 100 })).status).toBe(200);
    try {
      const admin = await t.admin();
      const payout = await t.rest.request("POST", "/api/momo/b2c", { body: { phone: "0712345678", amount: 30 }, token: admin.accessToken });
      expect(payout.status, JSON.stringify(payout.body)).toBe(200);
      const payment = await paid(500);
      expect((await refund(payment.id, { amount: 60 })).status).toBe(202);
      const over = await refund(payment.id, { amount: 20 });
      expect(over.status).toBe(422);
      expect(over.body.error.details[0]).toMatchObject({ path: "amount", message: expect.stringMatching(/daily B2C limit of 100 \(10 left today/) });
      expect((await refund(payment.id, { amount: 10 })).status).toBe(202);
      // A payout now finds the day spent by the refunds too.
      const payoutOver = await t.rest.request("POST", "/api/momo/b2c", { body: { phone: "0712345678", amount: 10 }, token: admin.accessToken });
      expect(payoutOver.status).toBe(422);
    } finally {
      expect((await setB2c(null)).status).toBe(200);
    }
  });

  it("the reversal operation is a deprecated full refund: answers as before with Deprecation; 409 REVERSAL_EXISTS beside any refund not failed", async () => {
    const payment = await paid(130);
    const res = await reverse(payment.id);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.headers.get("deprecation")).toMatch(/^@\d+$/);
    expect(res.headers.get("sunset")).toBeTruthy();
    expect(res.body.data).toMatchObject({ id: payment.id, status: "SUCCESS", amount: 130, reversal: { status: expect.stringMatching(/PENDING|SUCCESS/) } });
    const [listed] = (await listOf(payment.id)).refunds;
    expect(listed).toMatchObject({ amount: 130, method: "reversal", reason: null });
    await settled(listed.id, "succeeded");
    expect((await getPayment(payment.id)).refunded_amount).toBe(130);

    const partly = await paid(140);
    expect((await refund(partly.id, { amount: 40 })).status).toBe(202);
    const refused = await reverse(partly.id);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("REVERSAL_EXISTS");
    expect(refused.headers.get("deprecation")).toMatch(/^@\d+$/);

    const document = (await server().request("GET", "/openapi.json")).body;
    expect(document.paths["/api/v1/payments/{id}/reversal"].post.deprecated).toBe(true);
    expect(document.paths["/api/v1/payments/{id}/refunds"].post.deprecated).toBeUndefined();
  });
});
