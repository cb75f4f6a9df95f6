/**
 * C2B through HTTP (docs/mpesa.md#c2b): the shop registers its URLs through the admin API; a customer
 * pays the paybill from the M-Pesa menu (the simulator's /sim/c2b/pay runs Daraja's validation then
 * confirmation against them); the confirmation settles the intent its account names once, keyed by
 * TransID, and a real webhook receiver gets the events. Unmatched ones are kept and listed.
 */
import { afterAll, describe, expect } from "vitest";
import { RestClient } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { it } from "./support/fixture.js";
import { shopBackend } from "./support/shop-backend.js";
import { postCallback, tenantParameter, tenantToken, type DarajaApp } from "./support/daraja.js";
import { CONSUMER_KEY, CONSUMER_SECRET, PASSKEY, SHORTCODE, type Simulator } from "./support/simulator.js";
import { startReceiver, type Receiver } from "./support/webhook-receiver.js";

const SHOP2_SHORTCODE = "600111";

it.override({ darajaOptions: { env: { WEBHOOK_RETRY_SCHEDULE: "0,0,0", RATE_LIMITS: "off" } } });

describe.skipIf(skipThisTarget)("C2B payments", () => {
  let t: DarajaApp;
  let sim: Simulator;
  let key: string;
  let receiver: Receiver;
  const { admin, server, apiKeyOf, createIntent, newReference } = shopBackend("C2B", () => ({ url: t.url, key }));
  const intentOf = async (id: string, apiKey = key) => (await server("GET", `/api/v1/payment-intents/${id}`, undefined, apiKey)).body.data;
  const c2bList = async (query = "", apiKey = key) => {
    const listed = await server("GET", `/api/v1/c2b-payments${query}`, undefined, apiKey);
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    return listed.body.data.c2b_payments as any[];
  };
  const byTransId = async (transId: string, apiKey = key) => (await c2bList("?limit=100", apiKey)).filter((p) => p.payment.trans_id === transId);

  it.beforeAll(async ({ momo, sim: simulator }) => {
    t = momo;
    sim = simulator;
    key = await apiKeyOf("default");
    receiver = await startReceiver();
    const endpoint = await server("POST", "/api/v1/webhook-endpoints", { url: receiver.url });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    const registered = await admin("POST", "/api/v1/admin/tenants/default/c2b/register", {});
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
  });
  afterAll(async () => {
    await receiver?.close();
    expect(sim.violations).toEqual([]);
  });

  it("registers the tenant's URLs with Daraja's C2B v2 register URL, the shop's token in them but not in the answer", async () => {
    const registered = await admin("POST", "/api/v1/admin/tenants/default/c2b/register", { response_type: "Cancelled" });
    expect(registered.status).toBe(200);
    expect(registered.body.data).toEqual({
      tenant_id: "default",
      short_code: SHORTCODE,
      response_type: "Cancelled",
      validation_url: `${t.relay.url}/api/momo/callback/c2b/validation`,
      confirmation_url: `${t.relay.url}/api/momo/callback/c2b/confirmation`,
      daraja_version: "v2",
      originator_conversation_id: expect.any(String),
    });
    const sent = sim.received.filter((r) => r.operation === "c2bregister").at(-1)!;
    expect(sent.body).toEqual({
      ShortCode: SHORTCODE,
      ResponseType: "Cancelled",
      ConfirmationURL: `${t.relay.url}/api/momo/callback/c2b/confirmation?token=${tenantToken("default")}&tenant=${tenantParameter("default")}`,
      ValidationURL: `${t.relay.url}/api/momo/callback/c2b/validation?token=${tenantToken("default")}&tenant=${tenantParameter("default")}`,
    });
    expect((await admin("POST", "/api/v1/admin/tenants/default/c2b/register", {})).status).toBe(200);
  });

  it("refuses registration without the admin key (401), for an unknown tenant (404) and for a tenant without its own short code (422)", async () => {
    const anonymous = await new RestClient(t.url, "").request("POST", "/api/v1/admin/tenants/default/c2b/register", { body: {} });
    expect(anonymous.status).toBe(401);
    expect((await server("POST", "/api/v1/admin/tenants/default/c2b/register", {})).status).toBe(401);
    expect((await admin("POST", "/api/v1/admin/tenants/nosuchshop/c2b/register", {})).body.error.code).toBe("NOT_FOUND");
    expect((await admin("POST", "/api/v1/admin/tenants", { id: "c2b-noshortcode", name: "No short code" })).status).toBe(200);
    const refused = await admin("POST", "/api/v1/admin/tenants/c2b-noshortcode/c2b/register", {});
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe("VALIDATION_ERROR");
    expect(refused.body.error.details[0].path).toBe("settings.momo.shortcode");
  });

  it("a payment with the intent's reference (any case) and amount is validated, confirmed and settles the intent; the receiver gets the events", async () => {
    const intent = await createIntent(750);
    const paid = await sim.c2bPay({ account: intent.reference.toLowerCase(), amount: 750, phone: "0712345678" });
    expect(paid).toMatchObject({ status: "completed", validation: { status: 200, verdict: "accepted", body: { ResultCode: "0", ResultDesc: "Accepted" } }, confirmation: { status: 200, body: { ResultCode: 0, ResultDesc: "Success" } } });
    const settled = await intentOf(intent.id);
    expect(settled.status).toBe("succeeded");
    expect(settled.payments).toEqual([
      expect.objectContaining({ channel: "c2b", status: "SUCCESS", amount: 750, phone: "2547*****678", trans_id: paid.trans_id, mpesa_receipt: paid.trans_id, intent_id: intent.id, duplicate: false, checkout_request_id: null }),
    ]);
    const [succeeded] = await receiver.waitFor((d) => d.event.type === "payment.succeeded" && d.event.data.payment.trans_id === paid.trans_id);
    expect(succeeded!.event.data.payment).toMatchObject({ channel: "c2b", intent_id: intent.id, phone: "2547*****678" });
    expect(succeeded!.body).not.toContain("254712345678");
    await receiver.waitFor((d) => d.event.type === "payment_intent.succeeded" && d.event.data.payment_intent.id === intent.id);
    const [listed] = await byTransId(paid.trans_id);
    expect(listed).toMatchObject({ status: "matched", account: intent.reference.toLowerCase(), short_code: SHORTCODE, note: null });
    expect((await server("GET", `/api/v1/payments/${listed.id}`)).body.data).toEqual(listed.payment);
  });

  it("rejects an unknown account with C2B00012 and a wrong amount with C2B00013 at validation: no payment, intent unchanged", async () => {
    const intent = await createIntent(500);
    const unknown = await sim.c2bPay({ account: "NOSUCHORDER", amount: 500 });
    expect(unknown).toMatchObject({ status: "cancelled", confirmation: null, validation: { body: { ResultCode: "C2B00012", ResultDesc: "Rejected" } } });
    const wrongAmount = await sim.c2bPay({ account: intent.reference, amount: 499 });
    expect(wrongAmount).toMatchObject({ status: "cancelled", confirmation: null, validation: { body: { ResultCode: "C2B00013", ResultDesc: "Rejected" } } });
    const cancelled = await server("POST", "/api/v1/payment-intents", { amount: 100, reference: newReference() });
    await server("POST", `/api/v1/payment-intents/${cancelled.body.data.id}/cancel`);
    expect((await sim.c2bPay({ account: cancelled.body.data.reference, amount: 100 })).validation?.body.ResultCode).toBe("C2B00012");
    expect(await intentOf(intent.id)).toMatchObject({ status: "requires_payment", payments: [] });
    expect(await byTransId(unknown.trans_id)).toEqual([]);
  });

  it("applies the same confirmation once, however often it arrives (keyed by TransID)", async () => {
    const intent = await createIntent(320);
    const paid = await sim.c2bPay({ account: intent.reference, amount: 320, repeat_confirmation: true });
    expect(paid.status).toBe("completed");
    const sent = (await sim.requests()).callbacks.filter((c) => c.kind === "c2b_confirmation" && c.body.TransID === paid.trans_id);
    expect(sent).toHaveLength(2);
    // And a third time, posted by hand.
    expect((await postCallback(t.callbackUrl("c2b/confirmation"), sent[0]!.body)).body).toEqual({ ResultCode: 0, ResultDesc: "Success" });
    expect(await byTransId(paid.trans_id)).toHaveLength(1);
    expect((await intentOf(intent.id)).payments).toHaveLength(1);
    await receiver.waitFor((d) => d.event.type === "payment.succeeded" && d.event.data.payment.trans_id === paid.trans_id);
    expect(receiver.received.filter((d) => d.event.type === "payment.succeeded" && d.event.data.payment.trans_id === paid.trans_id)).toHaveLength(1);
  });

  it("applies one confirmation once when copies of it arrive at the same time", async () => {
    const intent = await createIntent(330);
    const body = {
      TransactionType: "Pay Bill", TransID: `TST${Date.now().toString(36).toUpperCase().slice(-7)}`, TransTime: "20261125120000", TransAmount: "330.00",
      BusinessShortCode: SHORTCODE, BillRefNumber: intent.reference, InvoiceNumber: "", OrgAccountBalance: "1000.00", ThirdPartyTransID: "", MSISDN: "2547 ***** 126", FirstName: "",
    };
    const answers = await Promise.all([1, 2, 3].map(() => postCallback(t.callbackUrl("c2b/confirmation"), body)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(await byTransId(body.TransID)).toHaveLength(1);
    const settled = await intentOf(intent.id);
    expect(settled.status).toBe("succeeded");
    expect(settled.payments).toHaveLength(1);
  });

  it("keeps a confirmation without validation for an unknown account as unmatched, lists it and emits c2b_payment.unmatched", async () => {
    const paid = await sim.c2bPay({ account: "WHO-KNOWS", amount: 90, validation: false, msisdn: "hashed" });
    expect(paid).toMatchObject({ status: "completed", validation: null, confirmation: { status: 200 } });
    const unmatched = await c2bList("?status=unmatched&limit=100");
    const mine = unmatched.find((p) => p.payment.trans_id === paid.trans_id);
    expect(mine).toMatchObject({ status: "unmatched", account: "WHO-KNOWS", note: expect.stringContaining("no payment intent"), payment: { channel: "c2b", status: "SUCCESS", amount: 90, phone: "hashed", intent_id: null } });
    expect((await c2bList("?status=matched&limit=100")).some((p) => p.payment.trans_id === paid.trans_id)).toBe(false);
    const [event] = await receiver.waitFor((d) => d.event.type === "c2b_payment.unmatched" && d.event.data.c2b_payment.payment.trans_id === paid.trans_id);
    expect(event!.event.data.c2b_payment).toEqual(mine);
    expect(receiver.received.some((d) => d.event.type === "callback.flagged" && d.event.data.callback.payment_id === mine.id)).toBe(false);
  });

  it("keeps a confirmed payment of the wrong amount as unmatched and flags it; the intent stays payable", async () => {
    const intent = await createIntent(600);
    const paid = await sim.c2bPay({ account: intent.reference, amount: 60, validation: false });
    const [kept] = await byTransId(paid.trans_id);
    expect(kept).toMatchObject({ status: "unmatched", note: "amount 60 differs from the intent's 600", payment: { intent_id: null } });
    await receiver.waitFor((d) => d.event.type === "callback.flagged" && d.event.data.callback.payment_id === kept.id);
    await receiver.waitFor((d) => d.event.type === "c2b_payment.unmatched" && d.event.data.c2b_payment.id === kept.id);
    expect(await intentOf(intent.id)).toMatchObject({ status: "requires_payment", payments: [] });
  });

  it("stores a second payment for a paid intent as a duplicate, flags it and leaves the intent as it was", async () => {
    const intent = await createIntent(410);
    await sim.c2bPay({ account: intent.reference, amount: 410 });
    const before = await intentOf(intent.id);
    expect(before.status).toBe("succeeded");
    // Validation refuses it (the intent is no longer payable); without validation the money arrives anyway.
    expect((await sim.c2bPay({ account: intent.reference, amount: 410 })).validation?.body.ResultCode).toBe("C2B00012");
    const second = await sim.c2bPay({ account: intent.reference, amount: 410, validation: false });
    const [dup] = await byTransId(second.trans_id);
    expect(dup).toMatchObject({ status: "matched", note: expect.stringContaining("already succeeded"), payment: { duplicate: true, intent_id: intent.id } });
    await receiver.waitFor((d) => d.event.type === "callback.flagged" && d.event.data.callback.payment_id === dup.id);
    const after = await intentOf(intent.id);
    expect(after.status).toBe("succeeded");
    expect(after.updated_at).toBe(before.updated_at);
    expect(after.payments.map((p: any) => p.duplicate)).toEqual([false, true]);
  });

  it("accepts every payment at validation when the shop turns validation off (settings.momo.c2b.validate = false)", async () => {
    expect((await admin("PATCH", "/api/v1/admin/tenants/default", { settings: { momo: { c2b: { validate: false } } } })).status).toBe(200);
    try {
      const paid = await sim.c2bPay({ account: "ANYTHING", amount: 15 });
      expect(paid).toMatchObject({ status: "completed", validation: { body: { ResultCode: "0" } } });
      expect((await byTransId(paid.trans_id))[0]).toMatchObject({ status: "unmatched" });
    } finally {
      await admin("PATCH", "/api/v1/admin/tenants/default", { settings: { momo: { c2b: null } } });
    }
  });

  it("rejects both C2B callbacks without the secret or with a wrong one (403) and applies nothing", async () => {
    const intent = await createIntent(55);
    const body = {
      TransactionType: "Pay Bill", TransID: "TSTNOSECRET", TransTime: "20261125120000", TransAmount: "55.00", BusinessShortCode: SHORTCODE,
      BillRefNumber: intent.reference, InvoiceNumber: "", OrgAccountBalance: "", ThirdPartyTransID: "", MSISDN: "2547 ***** 126", FirstName: "X",
    };
    for (const path of ["c2b/validation", "c2b/confirmation"] as const) {
      for (const token of [null, "wrong-token"]) {
        const answer = await postCallback(t.callbackUrl(path, token), body);
        expect(answer.status).toBe(403);
        expect(answer.body.error.code).toBe("FORBIDDEN");
      }
    }
    expect((await intentOf(intent.id)).status).toBe("requires_payment");
    expect(await byTransId("TSTNOSECRET")).toEqual([]);
    expect((await postCallback(t.callbackUrl("c2b/confirmation"), "{not json", "{not json")).status).toBe(400);
  });

  it("answers C2B00015 for a short code no shop has, and keeps its confirmation stored but credited to nobody", async () => {
    const body = {
      TransactionType: "Pay Bill", TransID: "TSTNOSHOP1", TransTime: "20261125120000", TransAmount: "40", BusinessShortCode: 600999,
      BillRefNumber: "ANY", InvoiceNumber: "", OrgAccountBalance: "", ThirdPartyTransID: "", MSISDN: 254712345678, FirstName: "",
    };
    expect((await postCallback(t.callbackUrl("c2b/validation"), body)).body).toEqual({ ResultCode: "C2B00015", ResultDesc: "Rejected" });
    expect((await postCallback(t.callbackUrl("c2b/confirmation"), body)).body).toEqual({ ResultCode: 0, ResultDesc: "Success" });
    expect(await byTransId("TSTNOSHOP1")).toEqual([]);
  });

  it("keeps tenants apart: a shop's own short code pays its intents only, and each lists only its own", async () => {
    const created = await admin("POST", "/api/v1/admin/tenants", {
      id: "c2b-shop2",
      name: "Shop two",
      settings: { momo: { shortcode: SHOP2_SHORTCODE, consumerKey: CONSUMER_KEY, consumerSecret: CONSUMER_SECRET, passkey: PASSKEY } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const shop2Key = await apiKeyOf("c2b-shop2");
    const registered = await admin("POST", "/api/v1/admin/tenants/c2b-shop2/c2b/register", {});
    expect(registered.body.data).toMatchObject({ short_code: SHOP2_SHORTCODE });
    const shop2Intent = await createIntent(275, shop2Key);
    // Paid to the default shop's paybill with shop two's order number: not shop two's money.
    const wrongShop = await sim.c2bPay({ account: shop2Intent.reference, amount: 275, validation: false });
    expect((await byTransId(wrongShop.trans_id))[0]).toMatchObject({ status: "unmatched" });
    expect(await byTransId(wrongShop.trans_id, shop2Key)).toEqual([]);
    const paid = await sim.c2bPay({ short_code: SHOP2_SHORTCODE, account: shop2Intent.reference, amount: 275 });
    expect(paid.status).toBe("completed");
    expect((await intentOf(shop2Intent.id, shop2Key)).status).toBe("succeeded");
    expect((await byTransId(paid.trans_id, shop2Key))[0]).toMatchObject({ status: "matched", short_code: SHOP2_SHORTCODE });
    expect(await byTransId(paid.trans_id)).toEqual([]);
    const payment = (await byTransId(paid.trans_id, shop2Key))[0].id;
    expect((await server("GET", `/api/v1/payments/${payment}`)).status).toBe(404);
  });

  it("takes API keys only on the list, and checks its input", async () => {
    const customer = await t.customer();
    expect((await new RestClient(t.url).request("GET", "/api/v1/c2b-payments", { token: customer.accessToken })).status).toBe(403);
    expect((await new RestClient(t.url, "").request("GET", "/api/v1/c2b-payments")).status).toBe(401);
    expect((await server("GET", "/api/v1/c2b-payments?status=lost")).status).toBe(422);
    expect((await server("GET", "/api/v1/c2b-payments?limit=101")).status).toBe(422);
    const first = await server("GET", "/api/v1/c2b-payments?limit=1");
    expect(first.body.data.c2b_payments).toHaveLength(1);
    const next = await server("GET", `/api/v1/c2b-payments?limit=1&cursor=${first.body.data.next_cursor}`);
    expect(next.status).toBe(200);
    expect(next.body.data.c2b_payments[0].id).not.toBe(first.body.data.c2b_payments[0].id);
  });
});
