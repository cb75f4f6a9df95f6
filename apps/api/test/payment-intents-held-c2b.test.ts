/**
 * Money from the M-Pesa menu while a prompt was pending (docs/payment-intents.md#statuses, docs/mpesa.md#c2b):
 * a C2B payment for an intent that is `processing` is stored as `duplicate: true`, since the prompt may
 * still pay it. When that prompt then fails, is cancelled or times out — by its callback, by the
 * reconciler's STK query, by the unknown-prompt window, or after the intent's expiry passed — the C2B
 * payment pays the intent: `duplicate` becomes false and `payment_intent.succeeded` is written once,
 * in the same transaction. Prompts never settle by themselves here: the test posts each callback.
 */
import { afterAll, describe, expect } from "vitest";
import { adminKey, RestClient } from "./support/app.js";
import { testClock } from "./support/clock.js";
import { skipThisTarget } from "./support/database.js";
import { it } from "./support/fixture.js";
import { postCallback, stkCallbackBody, uniqueReceipt, type DarajaApp } from "./support/daraja.js";
import { gatewayPage, SHORTCODE, type Simulator } from "./support/simulator.js";

const WINDOW_SECONDS = 300;
let counter = 0;
const newReference = () => `HC${Date.now().toString(36).slice(-5)}${(counter += 1)}`.slice(0, 12);
const newTransId = () => `TSH${Date.now().toString(36).toUpperCase().slice(-5)}${(counter += 1)}`.slice(0, 10);

type Ids = { checkoutRequestId: string; merchantRequestId: string };

describe.skipIf(skipThisTarget)("a C2B payment held as a duplicate while a prompt was pending", () => {
  let fake: Simulator;
  let t: DarajaApp;
  let key: string;
  const clock = testClock();

  it.beforeAll(async ({ launch }) => {
    fake = await launch.sim({ callbacks: false });
    t = await launch.momo({
      darajaUrl: fake.url,
      now: clock.now,
      b2c: { securityCredential: fake.securityCredential },
      env: { MOMO_UNKNOWN_PROMPT_WINDOW_SECONDS: String(WINDOW_SECONDS), RATE_LIMITS: "off" },
    });
    const created = await new RestClient(t.url, "").request("POST", "/api/v1/admin/tenants/default/api-keys", { body: { name: "Shop backend" }, headers: { authorization: `Bearer ${adminKey}` } });
    expect(created.status).toBe(201);
    key = created.body.data.key;
  });
  afterAll(() => {
    expect(fake.violations).toEqual([]);
  });

  const server = (method: string, path: string, body?: unknown) => t.rest.request(method, path, { ...(body !== undefined ? { body } : {}), token: key });
  const intentOf = async (id: string) => (await server("GET", `/api/v1/payment-intents/${id}`)).body.data;
  /** The events of this type about this intent, as stored (their bodies as they are sent). */
  const intentEvents = async (intentId: string, type: string) =>
    (await t.deps.db.unscoped("test").webhookEvent.findMany({ where: { type, body: { contains: intentId } }, orderBy: { createdAt: "asc" } }))
      .map((row) => JSON.parse(row.body) as { data: any })
      .filter((event) => event.data.payment_intent?.id === intentId);

  /** An intent with a prompt pending for it, and a C2B payment for it from the menu, held as a duplicate. */
  async function heldWhilePrompting(options: { amount?: number; expiresIn?: number; unknownOutcome?: boolean } = {}) {
    const amount = options.amount ?? 250;
    const created = await server("POST", "/api/v1/payment-intents", { amount, reference: newReference(), ...(options.expiresIn ? { expires_in_seconds: options.expiresIn } : {}) });
    expect(created.status).toBe(201);
    const intent = created.body.data as { id: string; reference: string };
    const customer = await t.customer();
    if (options.unknownOutcome) fake.script("stkpush", () => gatewayPage(502));
    const pushed = await t.rest.request("POST", "/api/momo/stkpush", { body: { phone: "0712345678", intent_id: intent.id }, token: customer.accessToken });
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(options.unknownOutcome ? 202 : 200);
    const ids = pushed.body.data as Ids & { id: string };
    expect((await intentOf(intent.id)).status).toBe("processing");
    clock.advance(1);

    // External validation is off (Daraja's default): the money arrives while the prompt is on the phone.
    const transId = newTransId();
    const confirmation = {
      TransactionType: "Pay Bill", TransID: transId, TransTime: "20261128140000", TransAmount: String(amount), BusinessShortCode: SHORTCODE,
      BillRefNumber: intent.reference, InvoiceNumber: "", OrgAccountBalance: "", ThirdPartyTransID: "", MSISDN: "2547 ***** 126", FirstName: "",
    };
    expect((await postCallback(t.callbackUrl("c2b/confirmation"), confirmation)).body).toEqual({ ResultCode: 0, ResultDesc: "Success" });
    const held = await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { transId } });
    expect(held).toMatchObject({ duplicate: true, intentId: intent.id, status: "SUCCESS" });
    expect((await intentOf(intent.id)).status).toBe("processing");
    return { intent, ids, held };
  }

  /** The intent is paid by the held C2B payment, and said so exactly once. */
  async function expectPaidByHeld(intentId: string, heldId: string, promptStatus: string) {
    const paid = await intentOf(intentId);
    expect(paid.status).toBe("succeeded");
    expect(paid.payments.map((p: any) => [p.channel, p.status, p.duplicate])).toEqual([
      ["stk", promptStatus, false],
      ["c2b", "SUCCESS", false],
    ]);
    expect(paid.payments[1].id).toBe(heldId);
    const events = await intentEvents(intentId, "payment_intent.succeeded");
    expect(events).toHaveLength(1);
    expect(events[0]!.data.payment_intent).toMatchObject({ id: intentId, status: "succeeded" });
    expect(events[0]!.data.payment_intent.payments.map((p: any) => [p.channel, p.status, p.duplicate])).toEqual([
      ["stk", promptStatus, false],
      ["c2b", "SUCCESS", false],
    ]);
    const listed = await server("GET", "/api/v1/c2b-payments?status=matched&limit=100");
    expect(listed.body.data.c2b_payments.find((p: any) => p.id === heldId)).toMatchObject({ payment: { duplicate: false }, note: expect.stringContaining("prompt") });
  }

  it("pays the intent when the prompt's callback says it was cancelled", async () => {
    const { intent, ids, held } = await heldWhilePrompting();
    expect((await postCallback(t.callbackUrl("stkpush"), stkCallbackBody(ids, 1032))).status).toBe(200);
    await expectPaidByHeld(intent.id, held.id, "CANCELLED");
    // A repeat of the callback changes nothing.
    expect((await postCallback(t.callbackUrl("stkpush"), stkCallbackBody(ids, 1032))).status).toBe(200);
    expect(await intentEvents(intent.id, "payment_intent.succeeded")).toHaveLength(1);
  });

  it("pays the intent when the reconciler's STK query says the prompt failed", async () => {
    const { intent, ids, held } = await heldWhilePrompting();
    fake.queryAnswers.set(ids.checkoutRequestId, {
      status: 200,
      body: { ResponseCode: "0", ResponseDescription: "Accepted", MerchantRequestID: ids.merchantRequestId, CheckoutRequestID: ids.checkoutRequestId, ResultCode: "2001", ResultDesc: "The initiator information is invalid." },
    });
    clock.advance(121);
    await t.reconciler.runOnce();
    await expectPaidByHeld(intent.id, held.id, "FAILED");
  });

  it("pays the intent when a prompt whose push had an unknown outcome times out", async () => {
    const { intent, held } = await heldWhilePrompting({ unknownOutcome: true });
    clock.advance(WINDOW_SECONDS + 1);
    expect((await t.reconciler.runOnce()).paymentsTimedOut).toBeGreaterThanOrEqual(1);
    await expectPaidByHeld(intent.id, held.id, "TIMEOUT");
  });

  it("pays the intent, not expires it, when the prompt ends after the intent's expiry passed", async () => {
    const { intent, ids, held } = await heldWhilePrompting({ expiresIn: 60 });
    clock.advance(90);
    // Reads and the expiry sweep leave an intent with a prompt pending as it is.
    expect((await intentOf(intent.id)).status).toBe("processing");
    expect((await postCallback(t.callbackUrl("stkpush"), stkCallbackBody(ids, 1037))).status).toBe(200);
    await t.reconciler.runOnce();
    await expectPaidByHeld(intent.id, held.id, "TIMEOUT");
    expect(await intentEvents(intent.id, "payment_intent.expired")).toHaveLength(0);
  });

  it("settles the intent once when the prompt's late callback and the reconciler's query end it at the same time", async () => {
    for (let round = 0; round < 3; round++) {
      const { intent, ids, held } = await heldWhilePrompting();
      fake.queryAnswers.set(ids.checkoutRequestId, {
        status: 200,
        body: { ResponseCode: "0", ResponseDescription: "Accepted", MerchantRequestID: ids.merchantRequestId, CheckoutRequestID: ids.checkoutRequestId, ResultCode: "1032", ResultDesc: "Request canceled by the user" },
      });
      clock.advance(121);
      const [answer] = await Promise.all([postCallback(t.callbackUrl("stkpush"), stkCallbackBody(ids, 1032)), t.reconciler.runOnce()]);
      expect(answer.status).toBe(200);
      await expectPaidByHeld(intent.id, held.id, "CANCELLED");
    }
  });

  it("leaves the held payment a duplicate when the prompt pays the intent after all", async () => {
    const { intent, ids, held } = await heldWhilePrompting();
    expect((await postCallback(t.callbackUrl("stkpush"), stkCallbackBody(ids, 0, { amount: 250, receipt: uniqueReceipt(), phone: "254712345678" }))).status).toBe(200);
    const paid = await intentOf(intent.id);
    expect(paid.status).toBe("succeeded");
    expect(paid.payments.map((p: any) => [p.channel, p.status, p.duplicate])).toEqual([
      ["stk", "SUCCESS", false],
      ["c2b", "SUCCESS", true],
    ]);
    expect((await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { id: held.id } })).duplicate).toBe(true);
    expect(await intentEvents(intent.id, "payment_intent.succeeded")).toHaveLength(1);
  });

  it("does not count a held payment the shop is giving back: the intent can be paid again", async () => {
    const { intent, ids, held } = await heldWhilePrompting();
    const reversal = await server("POST", `/api/v1/payments/${held.id}/reversal`);
    expect(reversal.status, JSON.stringify(reversal.body)).toBe(202);
    expect((await postCallback(t.callbackUrl("stkpush"), stkCallbackBody(ids, 1032))).status).toBe(200);
    const after = await intentOf(intent.id);
    expect(after.status).toBe("requires_payment");
    expect(after.payments.map((p: any) => [p.channel, p.status, p.duplicate])).toEqual([
      ["stk", "CANCELLED", false],
      ["c2b", "SUCCESS", true],
    ]);
    expect(await intentEvents(intent.id, "payment_intent.succeeded")).toHaveLength(0);
  });
});
