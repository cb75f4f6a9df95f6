/**
 * Payments that never called back, through HTTP against the simulator (docs/mpesa.md#recovery): the
 * admin registers the shop's short code with Daraja's Pull Transactions API, and the shop's server pulls
 * a window (POST /api/v1/c2b-payments/pull). A receipt Mteja does not hold is applied as its C2B
 * confirmation would have been, a late confirmation after that is applied once; a receipt any channel
 * recorded counts once (a database constraint); an STK payment settled by query only gets its receipt,
 * two candidates flag the receipt, a pending one is left to its query. REST and tRPC.
 */
import { TRPCClientError } from "@trpc/client";
import { afterAll, describe, expect } from "vitest";
import { adminKey, RestClient, trpcClient } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { it } from "./support/fixture.js";
import { postCallback, tenantParameter, tenantToken, type DarajaApp } from "./support/daraja.js";
import { SHORTCODE, type Simulator } from "./support/simulator.js";
import { waitFor } from "./support/wait.js";

let counter = 0;
const newReference = () => `PUL${Date.now().toString(36).slice(-5)}${(counter += 1)}`.slice(0, 12);
const EAT_MS = 3 * 3600 * 1000;
/** `YYYY-MM-DD HH:mm:ss` in Nairobi time, as Pull's StartDate/EndDate are sent. */
const eat = (at: Date) => new Date(at.getTime() + EAT_MS).toISOString().slice(0, 19).replace("T", " ");
/** The end of a window as sent: rounded up to its second (Daraja reads whole seconds, the end included). */
const eatEnd = (at: Date) => eat(new Date(Math.ceil(at.getTime() / 1000) * 1000));

it.override({ darajaOptions: { env: { RATE_LIMITS: "off", MOMO_PULL_INTERVAL_SECONDS: "0" } } });

describe.skipIf(skipThisTarget)("Pull Transactions", () => {
  let t: DarajaApp;
  let sim: Simulator;
  let key: string;
  const admin = (method: string, path: string, body?: unknown, headers = { authorization: `Bearer ${adminKey}` }) =>
    new RestClient(t.url, "").request(method, path, { ...(body !== undefined ? { body } : {}), headers });
  const server = (method: string, path: string, body?: unknown, apiKey = key) =>
    new RestClient(t.url, "").request(method, path, { ...(body !== undefined ? { body } : {}), token: apiKey });
  const pull = (body: unknown = {}) => server("POST", "/api/v1/c2b-payments/pull", body);
  async function createIntent(amount: number) {
    const created = await server("POST", "/api/v1/payment-intents", { amount, reference: newReference() });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.data as { id: string; reference: string; amount: number };
  }
  const intentOf = async (id: string) => (await server("GET", `/api/v1/payment-intents/${id}`)).body.data;
  const paymentsWithReceipt = (receipt: string) => t.deps.db.unscoped("test").payment.findMany({ where: { mpesaReceipt: receipt } });
  const eventsNaming = async (type: string, id: string) =>
    (await t.deps.db.unscoped("test").webhookEvent.findMany({ where: { type } })).filter((event) => JSON.stringify(event.body).includes(id));
  const storedPulls = (receipt: string) =>
    t.deps.db.unscoped("test").darajaCallback.findMany({ where: { kind: "pull_transaction", correlationId: receipt }, orderBy: { receivedAt: "asc" } });
  /** A prompt whose callback never comes (the simulator's amount 6), settled by the customer's stkquery: SUCCESS, no receipt. */
  async function stkSettledByQuery(reference: string, accessToken: string) {
    const pushed = await t.rest.post("/api/momo/stkpush", { phone: "0712345678", amount: 6, reference }, accessToken);
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
    const checkoutRequestId = pushed.body.data.checkoutRequestId as string;
    await waitFor(async () => {
      const queried = await t.rest.post("/api/momo/stkquery", { checkoutRequestId }, accessToken);
      return queried.body.data?.status === "SUCCESS";
    });
    return t.deps.db.unscoped("test").payment.findFirstOrThrow({ where: { checkoutRequestId } });
  }

  it.beforeAll(async ({ momo, sim: simulator }) => {
    t = momo;
    sim = simulator;
    const created = await admin("POST", "/api/v1/admin/tenants/default/api-keys", { name: "Shop backend" });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    key = created.body.data.key;
    const registered = await admin("POST", "/api/v1/admin/tenants/default/c2b/register", {});
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
  });
  afterAll(() => {
    expect(sim.violations).toEqual([]);
  });

  it("answers { pulled: 0, recovered: 0 } to Daraja's no-records answer (a short code not yet registered)", async () => {
    const answer = await pull();
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data).toEqual({ pulled: 0, recovered: 0 });
  });

  it("registers the short code with the exact register body; Daraja's second answer is already_registered", async () => {
    const registered = await admin("POST", "/api/v1/admin/tenants/default/pull/register", { nominated_number: "0722000000" });
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    expect(registered.body.data).toEqual({
      tenant_id: "default",
      short_code: SHORTCODE,
      nominated_number: "254722000000",
      status: "registered",
      response_description: "Shortcode Registered Successfully",
      callback_url: `${t.relay.url}/api/momo/callback/pull/callback`,
      registered_at: expect.any(String),
      next_pull_at: null,
    });
    const sent = sim.received.filter((request) => request.operation === "pullregister").at(-1)!;
    expect(sent.body).toEqual({
      ShortCode: SHORTCODE,
      RequestType: "Pull",
      NominatedNumber: "254722000000",
      CallBackURL: `${t.relay.url}/api/momo/callback/pull/callback?token=${tenantToken("default")}&tenant=${tenantParameter("default")}`,
    });
    const again = await admin("POST", "/api/v1/admin/tenants/default/pull/register", { nominated_number: "254722000000" });
    expect(again.body.data).toMatchObject({ status: "already_registered", response_description: "ShortCode already Registered" });

    const badNumber = await admin("POST", "/api/v1/admin/tenants/default/pull/register", { nominated_number: "0202000000" });
    expect(badNumber.status).toBe(422);
    expect(badNumber.body.error.details).toMatchObject([{ path: "nominated_number" }]);
    expect((await admin("POST", "/api/v1/admin/tenants/no-such-shop/pull/register", { nominated_number: "0722000000" })).status).toBe(404);
    expect((await admin("POST", "/api/v1/admin/tenants/default/pull/register", { nominated_number: "0722000000" }, {} as any)).status).toBe(401);
    // What Daraja may post to the CallBackURL is stored and answered; nothing is applied.
    const notice = await postCallback(t.callbackUrl("pull/callback"), { anything: "undocumented" });
    expect(notice).toEqual({ status: 200, body: { ResultCode: 0, ResultDesc: "Accepted" } });
  });

  it("recovers a lost C2B confirmation (the exact query body), then applies the late confirmation once", async () => {
    const intent = await createIntent(41);
    const paid = await sim.c2bPay({ account: intent.reference, amount: 41, validation: false });
    expect(paid).toMatchObject({ status: "completed", confirmation_lost: true, confirmation: null });
    expect((await intentOf(intent.id)).status).toBe("requires_payment");

    const to = new Date();
    const from = new Date(to.getTime() - 3600_000);
    const queriesBefore = sim.count("pullquery");
    const pulled = await pull({ from: from.toISOString(), to: to.toISOString() });
    expect(pulled.status, JSON.stringify(pulled.body)).toBe(200);
    expect(pulled.body.data).toEqual({ pulled: 1, recovered: 1 });
    // Page by page, by row offset, until Daraja answers "no records".
    const queries = sim.received.filter((request) => request.operation === "pullquery").slice(queriesBefore);
    const window = { ShortCode: SHORTCODE, StartDate: eat(from), EndDate: eatEnd(to) };
    expect(queries.map((request) => request.body)).toEqual([
      { ...window, OffSetValue: "0" },
      { ...window, OffSetValue: "1" },
    ]);

    expect((await intentOf(intent.id)).status).toBe("succeeded");
    const [payment] = await paymentsWithReceipt(paid.trans_id);
    expect(payment).toMatchObject({ channel: "c2b", status: "SUCCESS", transId: paid.trans_id, intentId: intent.id, amount: 41, duplicate: false });
    expect(payment!.resultDesc).toBe("Recovered by Pull Transactions");
    expect(payment!.phone).toBe("2547*****149");
    expect(await storedPulls(paid.trans_id)).toMatchObject([{ outcome: "applied", paymentId: payment!.id, tokenTenantId: "default" }]);
    expect(await eventsNaming("payment.succeeded", payment!.id)).toHaveLength(1);
    expect(await eventsNaming("payment_intent.succeeded", intent.id)).toHaveLength(1);

    // Daraja's confirmation arrives after all: a duplicate of the recovered payment, nothing new.
    const confirmation = {
      TransactionType: "Pay Bill",
      TransID: paid.trans_id,
      TransTime: "20261202101530",
      TransAmount: "41.00",
      BusinessShortCode: SHORTCODE,
      BillRefNumber: intent.reference,
      MSISDN: "2547 ***** 149",
      FirstName: "JOHN",
    };
    const late = await postCallback(t.callbackUrl("c2b/confirmation"), confirmation);
    expect(late).toEqual({ status: 200, body: { ResultCode: 0, ResultDesc: "Success" } });
    const stored = await t.deps.db.unscoped("test").darajaCallback.findMany({ where: { kind: "c2b_confirmation", correlationId: paid.trans_id } });
    expect(stored).toMatchObject([{ outcome: "duplicate", paymentId: payment!.id }]);
    expect(await paymentsWithReceipt(paid.trans_id)).toHaveLength(1);
    expect(await eventsNaming("payment.succeeded", payment!.id)).toHaveLength(1);
    expect(await eventsNaming("payment_intent.succeeded", intent.id)).toHaveLength(1);

    // Pulled again: known, skipped before anything is stored.
    const again = await pull({ from: from.toISOString() });
    expect(again.body.data).toMatchObject({ recovered: 0 });
    expect(await storedPulls(paid.trans_id)).toHaveLength(1);
  });

  it("keeps a pulled receipt no intent takes as unmatched, as its confirmation would have been", async () => {
    const paid = await sim.c2bPay({ account: "NOSUCHORDER", amount: 500, validation: false, lose_confirmation: true });
    const pulled = await pull();
    expect(pulled.body.data).toMatchObject({ recovered: 1 });
    const listed = await server("GET", "/api/v1/c2b-payments?status=unmatched&limit=100");
    const row = (listed.body.data.c2b_payments as any[]).find((entry) => entry.payment.trans_id === paid.trans_id);
    expect(row).toMatchObject({ status: "unmatched", account: "NOSUCHORDER", note: "no payment intent has this account reference" });
    expect(await eventsNaming("c2b_payment.unmatched", paid.trans_id)).toHaveLength(1);
  });

  it("counts a receipt once whichever channel saw it first: STK callback then pull, STK then a C2B confirmation, and the database refuses a second row", async () => {
    const customer = await t.customer();
    const reference = newReference();
    const pushed = await t.rest.post("/api/momo/stkpush", { phone: "0712345678", amount: 120, reference }, customer.accessToken);
    const checkoutRequestId = pushed.body.data.checkoutRequestId as string;
    const stk = await waitFor(async () => {
      const row = await t.deps.db.unscoped("test").payment.findFirstOrThrow({ where: { checkoutRequestId } });
      return row.status === "SUCCESS" && row.mpesaReceipt ? row : undefined;
    });
    const receipt = stk.mpesaReceipt!;

    const pulled = await pull();
    expect(pulled.body.data.recovered).toBe(0);
    expect(await paymentsWithReceipt(receipt)).toHaveLength(1);
    expect(await storedPulls(receipt)).toHaveLength(0);

    const confirmation = { TransactionType: "Pay Bill", TransID: receipt, TransTime: "20261202101530", TransAmount: "120.00", BusinessShortCode: SHORTCODE, BillRefNumber: reference, MSISDN: "2547 ***** 678", FirstName: "JOHN" };
    const late = await postCallback(t.callbackUrl("c2b/confirmation"), confirmation);
    expect(late.status).toBe(200);
    const stored = await t.deps.db.unscoped("test").darajaCallback.findMany({ where: { kind: "c2b_confirmation", correlationId: receipt } });
    expect(stored).toMatchObject([{ outcome: "duplicate", paymentId: stk.id }]);
    expect(await paymentsWithReceipt(receipt)).toHaveLength(1);

    // Not only a check: a second row with the receipt, from any channel, is refused by the database.
    const insert = t.deps.db.unscoped("test").$executeRaw`
      INSERT INTO payments (id, tenant_id, phone, amount, reference, description, status, mpesa_receipt, trans_id, channel)
      VALUES (gen_random_uuid(), 'default', '2547*****678', 120, ${reference}, 'Pay Bill', 'SUCCESS', ${receipt}, ${receipt}, 'c2b')`;
    await expect(insert).rejects.toThrow(/payments_mpesa_receipt_key|unique|23505/i);
    const mismatched = t.deps.db.unscoped("test").$executeRaw`
      INSERT INTO payments (id, tenant_id, phone, amount, reference, description, status, mpesa_receipt, trans_id, channel)
      VALUES (gen_random_uuid(), 'default', '2547*****678', 120, ${reference}, 'Pay Bill', 'SUCCESS', ${"OTHER12345"}, ${receipt + "X"}, 'c2b')`;
    await expect(mismatched).rejects.toThrow(/payments_trans_id_is_receipt|check|23514/i);
  });

  it("fills in the receipt of an STK payment settled by query, leaves a pending one to its query, and flags two candidates", async () => {
    const customer = await t.customer();
    const recent = () => pull({ from: new Date(Date.now() - 600_000).toISOString() });
    const settled = await stkSettledByQuery(newReference(), customer.accessToken);
    expect(settled).toMatchObject({ status: "SUCCESS", mpesaReceipt: null });
    const filledIn = await recent();
    expect(filledIn.body.data.recovered).toBe(1);
    const after = await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { id: settled.id } });
    expect(after).toMatchObject({ status: "SUCCESS", channel: "stk", mpesaReceipt: expect.any(String) });
    expect(await paymentsWithReceipt(after.mpesaReceipt!)).toHaveLength(1);
    expect(await storedPulls(after.mpesaReceipt!)).toMatchObject([{ outcome: "applied", paymentId: settled.id }]);
    const seen = filledIn.body.data.pulled as number;

    // A prompt the simulator settled whose callback never came and that nobody queried yet: PENDING here.
    const pendingReference = newReference();
    const pushed = await t.rest.post("/api/momo/stkpush", { phone: "0712345678", amount: 6, reference: pendingReference }, customer.accessToken);
    const pendingId = pushed.body.data.checkoutRequestId as string;
    // Until Pull lists it (the simulator settles it after its callback delay), each pull recovers nothing.
    await waitFor(async () => {
      const answer = await recent();
      expect(answer.body.data.recovered).toBe(0);
      return answer.body.data.pulled > seen;
    });
    const pending = await t.deps.db.unscoped("test").payment.findFirstOrThrow({ where: { checkoutRequestId: pendingId } });
    expect(pending).toMatchObject({ status: "PENDING", mpesaReceipt: null });
    expect(await t.deps.db.unscoped("test").payment.count({ where: { reference: pendingReference, channel: "c2b" } })).toBe(0);
    const queried = await t.rest.post("/api/momo/stkquery", { checkoutRequestId: pendingId }, customer.accessToken);
    expect(queried.body.data.status).toBe("SUCCESS");
    expect((await recent()).body.data.recovered).toBe(1);
    expect((await t.deps.db.unscoped("test").payment.findFirstOrThrow({ where: { checkoutRequestId: pendingId } })).mpesaReceipt).toEqual(expect.any(String));

    // Two payments of the same reference, amount and phone, both settled by query: which receipt is whose is a person's call.
    const twinReference = newReference();
    const first = await stkSettledByQuery(twinReference, customer.accessToken);
    const second = await stkSettledByQuery(twinReference, customer.accessToken);
    const flagged = await recent();
    expect(flagged.body.data.recovered).toBe(0);
    for (const twin of [first, second]) {
      expect(await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { id: twin.id } })).toMatchObject({ mpesaReceipt: null });
    }
    const flaggedRows = await t.deps.db.unscoped("test").darajaCallback.findMany({ where: { kind: "pull_transaction", outcome: "flagged" } });
    expect(flaggedRows).toHaveLength(2);
    for (const row of flaggedRows) expect(row).toMatchObject({ paymentId: null, flagReason: expect.stringContaining("matches 2 STK payments") });
    expect(await t.deps.db.unscoped("test").payment.count({ where: { reference: twinReference, channel: "c2b" } })).toBe(0);
    // Pulled again: already flagged, not stored again.
    expect((await recent()).body.data.recovered).toBe(0);
    expect(await t.deps.db.unscoped("test").darajaCallback.count({ where: { kind: "pull_transaction", outcome: "flagged" } })).toBe(2);
  });

  it("refuses a window reaching past 48 hours, ending in the future or not after its start (422, English and Swahili)", async () => {
    const now = Date.now();
    const old = await pull({ from: new Date(now - 49 * 3600_000).toISOString() });
    expect(old.status).toBe(422);
    expect(old.body.error).toMatchObject({ code: "VALIDATION_ERROR", details: [{ path: "from", message: expect.stringContaining("48 hours") }] });
    const future = await pull({ to: new Date(now + 3600_000).toISOString() });
    expect(future.body.error.details).toMatchObject([{ path: "to" }]);
    const backwards = await pull({ from: new Date(now - 60_000).toISOString(), to: new Date(now - 120_000).toISOString() });
    expect(backwards.body.error.details).toMatchObject([{ path: "to", message: "to must be after from" }]);
    const notInstant = await pull({ from: "2026-12-01" });
    expect(notInstant.status).toBe(422);
    const swahili = await new RestClient(t.url, "").request("POST", "/api/v1/c2b-payments/pull", {
      body: { from: new Date(now - 49 * 3600_000).toISOString() },
      token: key,
      headers: { "accept-language": "sw" },
    });
    expect(swahili.body.error.details[0].message).toContain("saa 48");
  });

  it("works over tRPC (pull.now, pull.register); a customer's token is refused", async () => {
    const shop = trpcClient(t.url, () => ({ authorization: `Bearer ${key}` }));
    const answer = await shop.pull.now.mutate({});
    expect(answer.data).toEqual({ pulled: expect.any(Number), recovered: 0 });
    const operator = trpcClient(t.url, () => ({ authorization: `Bearer ${adminKey}` }));
    expect((await operator.pull.register.mutate({ id: "default", nominated_number: "0722000000" })).data.status).toBe("already_registered");
    const customer = await t.customer();
    const refused = await trpcClient(t.url, () => ({ authorization: `Bearer ${customer.accessToken}` }))
      .pull.now.mutate({})
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TRPCClientError);
    expect((refused as TRPCClientError<any>).shape.error.code).toBe("FORBIDDEN");
  });
});
