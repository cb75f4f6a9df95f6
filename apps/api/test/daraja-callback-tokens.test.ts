/**
 * One callback token per shop (docs/mpesa.md#callback-tokens): every callback URL a shop's requests give
 * Daraja carries that shop's own token, so a URL one shop leaks fakes nothing for another — a callback
 * naming another shop's payment, payout, reversal or short code is refused (403, stored `rejected`,
 * nothing applied). MOMO_CALLBACK_SECRET itself (the old form) still works for requests sent before,
 * and for a shop's C2B until its URLs are registered again. Two shops on one simulator: the default
 * one on the platform's account, "tok-b" on its own (the simulator's) with its own short code.
 */
import { ensureDefaultTenant } from "@mteja/domain";
import { logCapture } from "./support/log-lines.js";
import { afterAll, describe, expect } from "vitest";
import { adminKey, registerUser, RestClient, startTestApp } from "./support/app.js";
import { testClock } from "./support/clock.js";
import { createTestDatabase, skipThisTarget } from "./support/database.js";
import { it } from "./support/fixture.js";
import { postCallback, stkCallbackBody, uniqueReceipt, type DarajaApp } from "./support/daraja.js";
import { CONSUMER_KEY, CONSUMER_SECRET, PASSKEY, SHORTCODE, type Simulator } from "./support/simulator.js";

const SHOP_B = "tok-b";
const SHOP_C = "tok-c";
const SHOP_C_SHORTCODE = "600123";
let counter = 0;
const newReference = () => `TK${Date.now().toString(36).slice(-5)}${(counter += 1)}`.slice(0, 12);
const newTransId = () => `TTK${Date.now().toString(36).toUpperCase().slice(-5)}${(counter += 1)}`.slice(0, 10);

type Ids = { checkoutRequestId: string; merchantRequestId: string };
const clock = testClock();

describe.skipIf(skipThisTarget)("callback tokens per shop", () => {
  let t: DarajaApp;
  let sim: Simulator;
  const keys: Record<string, string> = {};

  const admin = (method: string, path: string, body?: unknown) =>
    new RestClient(t.url, "").request(method, path, { ...(body !== undefined ? { body } : {}), headers: { authorization: `Bearer ${adminKey}` } });
  const server = (tenantId: string, method: string, path: string, body?: unknown) =>
    new RestClient(t.url, "").request(method, path, { ...(body !== undefined ? { body } : {}), token: keys[tenantId] });

  it.beforeAll(async ({ launch }) => {
    sim = await launch.sim({ callbacks: false });
    // The service's clock stands still: no prompt becomes due for the reconciler's query.
    t = await launch.momo({ darajaUrl: sim.url, now: clock.now, b2c: { securityCredential: sim.securityCredential }, env: { RATE_LIMITS: "off" } });
    const own = (shortcode: string) => ({ momo: { shortcode, consumerKey: CONSUMER_KEY, consumerSecret: CONSUMER_SECRET, passkey: PASSKEY } });
    // tok-b pays through the simulator's own short code: the C2B payments of that short code are tok-b's.
    expect((await admin("POST", "/api/v1/admin/tenants", { id: SHOP_B, name: "Shop B", settings: own(SHORTCODE) })).status).toBe(200);
    expect((await admin("POST", "/api/v1/admin/tenants", { id: SHOP_C, name: "Shop C", settings: own(SHOP_C_SHORTCODE) })).status).toBe(200);
    for (const tenantId of ["default", SHOP_B, SHOP_C]) {
      const created = await admin("POST", `/api/v1/admin/tenants/${tenantId}/api-keys`, { name: "Shop backend" });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      keys[tenantId] = created.body.data.key;
    }
  });
  afterAll(() => {
    expect(sim.violations).toEqual([]);
  });

  /** A prompt of a customer of `tenantId`; its ids and the CallBackURL Daraja was given. */
  async function prompt(tenantId: string, amount: number): Promise<{ ids: Ids; callBackUrl: string }> {
    const customer = await registerUser(new RestClient(t.url, tenantId));
    const pushed = await new RestClient(t.url, tenantId).request("POST", "/api/momo/stkpush", { body: { phone: "0712345678", amount }, token: customer.accessToken });
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
    const sent = sim.received.filter((r) => r.operation === "stkpush").at(-1)!;
    return { ids: pushed.body.data as Ids, callBackUrl: sent.body.CallBackURL as string };
  }
  /** `leaked` (a callback URL as one shop's request carried it, through the relay) pointed at another callback path of the service. */
  const onPath = (leaked: string, path: string) => {
    const url = new URL(leaked);
    const direct = new URL(`${t.url}/api/momo/callback/${path}`);
    for (const [name, value] of url.searchParams) if (name !== "ref") direct.searchParams.set(name, value);
    return direct.toString();
  };
  const paymentStatus = async (checkoutRequestId: string) => (await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { checkoutRequestId } })).status;
  const storedFor = (correlationId: string) => t.deps.db.unscoped("test").darajaCallback.findMany({ where: { correlationId }, orderBy: { receivedAt: "asc" } });
  const success = (ids: Ids, amount: number) => stkCallbackBody(ids, 0, { amount, receipt: uniqueReceipt(), phone: "254712345678" });
  const c2bBody = (shortCode: string, account: string, amount: number, transId = newTransId()) => ({
    TransactionType: "Pay Bill", TransID: transId, TransTime: "20261128140000", TransAmount: String(amount), BusinessShortCode: shortCode,
    BillRefNumber: account, InvoiceNumber: "", OrgAccountBalance: "", ThirdPartyTransID: "", MSISDN: "2547 ***** 126", FirstName: "",
  });
  async function intentOf(tenantId: string, amount: number) {
    const created = await server(tenantId, "POST", "/api/v1/payment-intents", { amount, reference: newReference() });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.data as { id: string; reference: string };
  }
  const intentStatus = async (tenantId: string, id: string) => (await server(tenantId, "GET", `/api/v1/payment-intents/${id}`)).body.data.status;
  function payoutResult(payout: { originatorConversationId: string; conversationId: string | null }, amount: number) {
    return {
      Result: {
        ResultType: 0, ResultCode: 0, ResultDesc: "The service request is processed successfully.",
        OriginatorConversationID: payout.originatorConversationId, ConversationID: payout.conversationId, TransactionID: uniqueReceipt(),
        ResultParameters: { ResultParameter: [{ Key: "TransactionAmount", Value: amount }, { Key: "TransactionReceipt", Value: uniqueReceipt() }] },
      },
    };
  }
  async function payout(amount: number) {
    const shopAdmin = await t.admin();
    const requested = await t.rest.post("/api/momo/b2c", { phone: "0712345678", amount }, shopAdmin.accessToken);
    expect(requested.status, JSON.stringify(requested.body)).toBe(200);
    return t.deps.db.unscoped("test").payout.findUniqueOrThrow({ where: { originatorConversationId: requested.body.data.originatorConversationId } });
  }

  it("gives Daraja each shop's own token in every callback URL, never MOMO_CALLBACK_SECRET", async () => {
    const a = await prompt("default", 10);
    const b = await prompt(SHOP_B, 10);
    for (const [callBackUrl, tenantId] of [[a.callBackUrl, "default"], [b.callBackUrl, SHOP_B]] as const) {
      const url = new URL(callBackUrl);
      expect(url.searchParams.get("token")).toMatch(/^[0-9a-f]{64}$/);
      expect(url.searchParams.get("tenant")).toBe(Buffer.from(tenantId).toString("hex"));
      expect(callBackUrl).not.toContain(t.secret);
    }
    expect(new URL(a.callBackUrl).searchParams.get("token")).not.toBe(new URL(b.callBackUrl).searchParams.get("token"));
    await payout(100);
    const b2c = sim.received.filter((r) => r.operation === "b2c").at(-1)!.body;
    for (const url of [b2c.ResultURL, b2c.QueueTimeOutURL] as string[]) expect(new URL(url).searchParams.get("token")).toBe(new URL(a.callBackUrl).searchParams.get("token"));
    expect((await admin("POST", `/api/v1/admin/tenants/${SHOP_B}/c2b/register`, {})).status).toBe(200);
    const registered = sim.received.filter((r) => r.operation === "c2bregister").at(-1)!.body;
    for (const url of [registered.ValidationURL, registered.ConfirmationURL] as string[]) {
      expect(new URL(url).searchParams.get("token")).toBe(new URL(b.callBackUrl).searchParams.get("token"));
      expect(url).not.toContain(t.secret);
    }
  });

  it("refuses (403) one shop's leaked callback URL for another shop's payment, payout, reversal and short code, and applies nothing", async () => {
    const a = await prompt("default", 21);
    const b = await prompt(SHOP_B, 22);

    // Shop B's URL for shop A's payment, and A's for B's: refused, stored as rejected, the payments untouched.
    for (const [leaked, victim, amount] of [[b.callBackUrl, a.ids, 21], [a.callBackUrl, b.ids, 22]] as const) {
      const answer = await postCallback(onPath(leaked, "stkpush"), success(victim, amount));
      expect(answer.status).toBe(403);
      expect(answer.body.error.code).toBe("FORBIDDEN");
      expect(await paymentStatus(victim.checkoutRequestId)).toBe("PENDING");
      expect(await storedFor(victim.checkoutRequestId)).toEqual([expect.objectContaining({ outcome: "rejected", paymentId: null, flagReason: expect.stringContaining("wrong token") })]);
    }
    // Shop B's URL for shop A's payout.
    const paidOut = await payout(150);
    expect((await postCallback(onPath(b.callBackUrl, "b2c/result"), payoutResult(paidOut, 150))).status).toBe(403);
    expect((await t.deps.db.unscoped("test").payout.findUniqueOrThrow({ where: { id: paidOut.id } })).status).toBe("PENDING");
    // Shop B's URL for shop A's reversal.
    expect((await postCallback(a.callBackUrl.replace(/^.*\/api\/momo/, `${t.url}/api/momo`), success(a.ids, 21))).status).toBe(200);
    const reversed = await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { checkoutRequestId: a.ids.checkoutRequestId } });
    expect((await server("default", "POST", `/api/v1/payments/${reversed.id}/reversal`)).status).toBe(202);
    const reversal = await t.deps.db.unscoped("test").paymentReversal.findFirstOrThrow({ where: { paymentId: reversed.id } });
    const reversalResult = {
      Result: {
        ResultType: 0, ResultCode: 0, ResultDesc: "The service request is processed successfully.",
        OriginatorConversationID: reversal.originatorConversationId, ConversationID: reversal.conversationId, TransactionID: uniqueReceipt(),
        ResultParameters: { ResultParameter: [{ Key: "Amount", Value: 21 }, { Key: "OriginalTransactionID", Value: reversed.mpesaReceipt }] },
      },
    };
    expect((await postCallback(onPath(b.callBackUrl, "reversal/result"), reversalResult)).status).toBe(403);
    expect((await t.deps.db.unscoped("test").paymentReversal.findUniqueOrThrow({ where: { id: reversal.id } })).status).toBe("PENDING");
    // Shop A's URL for money paid to shop B's short code: neither validated nor confirmed.
    const intent = await intentOf(SHOP_B, 230);
    const paidToB = c2bBody(SHORTCODE, intent.reference, 230);
    expect((await postCallback(onPath(a.callBackUrl, "c2b/validation"), paidToB)).status).toBe(403);
    expect((await postCallback(onPath(a.callBackUrl, "c2b/confirmation"), paidToB)).status).toBe(403);
    expect(await t.deps.db.unscoped("test").payment.count({ where: { transId: paidToB.TransID } })).toBe(0);
    expect(await intentStatus(SHOP_B, intent.id)).toBe("requires_payment");
    expect((await storedFor(paidToB.TransID)).map((c) => c.outcome)).toEqual(["rejected", "rejected"]);

    // Each shop's own URL still works.
    expect((await postCallback(onPath(b.callBackUrl, "stkpush"), success(b.ids, 22))).status).toBe(200);
    expect(await paymentStatus(b.ids.checkoutRequestId)).toBe("SUCCESS");
    expect((await postCallback(onPath(a.callBackUrl, "b2c/result"), payoutResult(paidOut, 150))).status).toBe(200);
    expect((await t.deps.db.unscoped("test").payout.findUniqueOrThrow({ where: { id: paidOut.id } })).status).toBe("SUCCESS");
    expect((await postCallback(onPath(b.callBackUrl, "c2b/confirmation"), paidToB)).body).toEqual({ ResultCode: 0, ResultDesc: "Success" });
    expect(await intentStatus(SHOP_B, intent.id)).toBe("succeeded");
  });

  it("links a C2B confirmation to nothing of another shop: a TransID another shop recorded is flagged, not applied; that shop's own confirmations still apply", async () => {
    // Shop B is paid from the menu: its payment carries the TransID.
    const paid = await intentOf(SHOP_B, 410);
    const genuine = c2bBody(SHORTCODE, paid.reference, 410);
    expect((await postCallback(t.callbackUrl("c2b/confirmation", undefined, SHOP_B), genuine)).body).toEqual({ ResultCode: 0, ResultDesc: "Success" });
    const bPayment = await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { transId: genuine.TransID } });
    expect(bPayment.tenantId).toBe(SHOP_B);

    // Shop C, with its own token and its own short code, sends a confirmation carrying B's TransID.
    const cIntent = await intentOf(SHOP_C, 410);
    const forged = c2bBody(SHOP_C_SHORTCODE, cIntent.reference, 410, genuine.TransID);
    expect((await postCallback(t.callbackUrl("c2b/confirmation", undefined, SHOP_C), forged)).body).toEqual({ ResultCode: 0, ResultDesc: "Success" });
    const stored = await storedFor(genuine.TransID);
    expect(stored).toHaveLength(2);
    expect(stored[1]).toMatchObject({ outcome: "flagged", paymentId: null, payoutId: null, tokenTenantId: SHOP_C, flagReason: expect.stringContaining("another shop") });
    // Nothing applied in C, nothing changed in B.
    expect(await t.deps.db.unscoped("test").payment.count({ where: { tenantId: SHOP_C, mpesaReceipt: genuine.TransID } })).toBe(0);
    expect(await intentStatus(SHOP_C, cIntent.id)).toBe("requires_payment");
    expect(await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { id: bPayment.id } })).toEqual(bPayment);
    // C's shop sees no flagged callback of B's payment: the flag names none.
    const cEvents = await t.deps.db.unscoped("test").webhookEvent.findMany({ where: { tenantId: SHOP_C } });
    expect(cEvents.filter((event) => event.body.includes(bPayment.id))).toEqual([]);

    // B's own confirmations still apply: Daraja sending the same one again is B's duplicate, a new one pays B's next intent.
    expect((await postCallback(t.callbackUrl("c2b/confirmation", undefined, SHOP_B), genuine)).status).toBe(200);
    expect((await storedFor(genuine.TransID))[2]).toMatchObject({ outcome: "duplicate", paymentId: bPayment.id });
    const next = await intentOf(SHOP_B, 420);
    const later = c2bBody(SHORTCODE, next.reference, 420);
    expect((await postCallback(t.callbackUrl("c2b/confirmation", undefined, SHOP_B), later)).body).toEqual({ ResultCode: 0, ResultDesc: "Success" });
    expect(await intentStatus(SHOP_B, next.id)).toBe("succeeded");
    expect(await storedFor(later.TransID)).toEqual([expect.objectContaining({ outcome: "applied", tokenTenantId: SHOP_B })]);
  });

  it("refuses a kept callback that a later prompt of another shop claims", async () => {
    // A prompt of shop B in flight (its push not answered yet): a callback for an unknown CheckoutRequestID is kept.
    const inFlight = await t.deps.db.unscoped("test").payment.create({
      data: {
        tenantId: SHOP_B, userId: null, phone: "254712345678", amount: 33, reference: "X", description: "Payment", callbackTokenForm: "tenant",
        nextQueryAt: new Date(clock.now().getTime() + 3_600_000), createdAt: clock.now(), updatedAt: clock.now(),
      },
    });
    const ids = { checkoutRequestId: `ws_CO_kept${Date.now()}`, merchantRequestId: "kept-1" };
    expect((await postCallback(t.callbackUrl("stkpush"), success(ids, 33))).status).toBe(200);
    expect(await storedFor(ids.checkoutRequestId)).toEqual([expect.objectContaining({ outcome: "accepted", paymentId: null, tokenTenantId: "default" })]);
    // The push's answer arrives: shop B's payment gets that CheckoutRequestID, and the kept callback is applied — refused.
    await t.deps.db.unscoped("test").payment.update({ where: { id: inFlight.id }, data: { checkoutRequestId: ids.checkoutRequestId, merchantRequestId: ids.merchantRequestId } });
    await t.reconciler.runOnce();
    expect(await storedFor(ids.checkoutRequestId)).toEqual([expect.objectContaining({ outcome: "rejected", paymentId: null })]);
    expect(await paymentStatus(ids.checkoutRequestId)).toBe("PENDING");
  });

  it("accepts MOMO_CALLBACK_SECRET itself (the old form) only for a request sent before: a payment, a payout", async () => {
    const fresh = await prompt("default", 41);
    const oldForm = (path: string) => t.callbackUrl(path as "stkpush", t.secret, null);
    const refused = await postCallback(oldForm("stkpush"), success(fresh.ids, 41));
    expect(refused.status).toBe(403);
    expect(await paymentStatus(fresh.ids.checkoutRequestId)).toBe("PENDING");
    expect(await storedFor(fresh.ids.checkoutRequestId)).toEqual([expect.objectContaining({ outcome: "rejected", flagReason: expect.stringContaining("old form") })]);

    // A prompt sent before the upgrade (its row from before the migration): its callback brings the secret.
    const before = await prompt("default", 42);
    await t.deps.db.unscoped("test").payment.update({ where: { checkoutRequestId: before.ids.checkoutRequestId }, data: { callbackTokenForm: "shared" } });
    expect((await postCallback(oldForm("stkpush"), success(before.ids, 42))).status).toBe(200);
    expect(await paymentStatus(before.ids.checkoutRequestId)).toBe("SUCCESS");

    const newPayout = await payout(160);
    expect((await postCallback(oldForm("b2c/result"), payoutResult(newPayout, 160))).status).toBe(403);
    const oldPayout = await payout(170);
    await t.deps.db.unscoped("test").payout.update({ where: { id: oldPayout.id }, data: { callbackTokenForm: "shared" } });
    expect((await postCallback(oldForm("b2c/result"), payoutResult(oldPayout, 170))).status).toBe(200);
    expect((await t.deps.db.unscoped("test").payout.findUniqueOrThrow({ where: { id: newPayout.id } })).status).toBe("PENDING");
    expect((await t.deps.db.unscoped("test").payout.findUniqueOrThrow({ where: { id: oldPayout.id } })).status).toBe("SUCCESS");
  });

  it("accepts the old form for a shop's C2B until its URLs are registered again, then only its own token", async () => {
    // A shop from before the upgrade: its C2B URLs were registered with MOMO_CALLBACK_SECRET.
    await t.deps.db.unscoped("test").tenant.update({ where: { id: SHOP_C }, data: { c2bCallbackTokenForm: "shared" } });
    const oldForm = (path: "c2b/validation" | "c2b/confirmation") => t.callbackUrl(path, t.secret, null);
    const first = await intentOf(SHOP_C, 310);
    const paidBefore = c2bBody(SHOP_C_SHORTCODE, first.reference, 310);
    expect((await postCallback(oldForm("c2b/validation"), paidBefore)).body).toEqual({ ResultCode: "0", ResultDesc: "Accepted" });
    expect((await postCallback(oldForm("c2b/confirmation"), paidBefore)).body).toEqual({ ResultCode: 0, ResultDesc: "Success" });
    expect(await intentStatus(SHOP_C, first.id)).toBe("succeeded");

    const registered = await admin("POST", `/api/v1/admin/tenants/${SHOP_C}/c2b/register`, {});
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    const second = await intentOf(SHOP_C, 320);
    const paidAfter = c2bBody(SHOP_C_SHORTCODE, second.reference, 320);
    expect((await postCallback(oldForm("c2b/validation"), paidAfter)).status).toBe(403);
    expect((await postCallback(oldForm("c2b/confirmation"), paidAfter)).status).toBe(403);
    expect(await intentStatus(SHOP_C, second.id)).toBe("requires_payment");
    // What Daraja now calls: the URLs registered, with the shop's own token.
    const urls = sim.received.filter((r) => r.operation === "c2bregister").at(-1)!.body;
    const direct = (url: string) => url.replace(/^.*\/api\/momo/, `${t.url}/api/momo`);
    expect((await postCallback(direct(urls.ValidationURL), paidAfter)).body).toEqual({ ResultCode: "0", ResultDesc: "Accepted" });
    expect((await postCallback(direct(urls.ConfirmationURL), paidAfter)).body).toEqual({ ResultCode: 0, ResultDesc: "Success" });
    expect(await intentStatus(SHOP_C, second.id)).toBe("succeeded");
  });

  it("warns once at start how many shops' C2B still accepts the old shared secret", async () => {
    // A database upgraded from before shop tokens: two shops with short codes never registered again.
    const database = await createTestDatabase();
    try {
      await database.db.migrate();
      await ensureDefaultTenant(database.db, "default", "Default");
      const shop = (id: string, shortcode: string | null, form: "shared" | "tenant") =>
        database.db.unscoped("test").tenant.create({ data: { id, name: id, c2bCallbackTokenForm: form, settings: shortcode ? { momo: { shortcode } } : {} } });
      await shop("old-a", "600801", "shared");
      await shop("old-b", "600802", "shared");
      await shop("registered", "600803", "tenant");
      await shop("no-code", null, "shared");
      await database.db.unscoped("test").tenant.update({ where: { id: "default" }, data: { c2bCallbackTokenForm: "tenant" } });

      const { stream: logStream, lines } = logCapture();
      const momoEnv = {
        MOMO_BASE_URL: sim.url, MOMO_CONSUMER_KEY: CONSUMER_KEY, MOMO_CONSUMER_SECRET: CONSUMER_SECRET, MOMO_SHORTCODE: SHORTCODE, MOMO_PASSKEY: PASSKEY,
        MOMO_CALLBACK_URL: "https://api.example.co.ke/api/momo/callback/stkpush", MOMO_CALLBACK_SECRET: "f".repeat(64), MOMO_RECONCILE_INTERVAL_MS: "0", LOG_LEVEL: "warn",
      };
      const started = await startTestApp(momoEnv, { database, logStream });
      await started.close();
      const warnings = lines.filter((line) => String(line.msg).includes("MOMO_CALLBACK_SECRET itself on their C2B URLs"));
      expect(warnings).toEqual([expect.objectContaining({ level: 40, shops: 2, msg: expect.stringContaining("register their C2B URLs again") })]);
    } finally {
      await database.drop();
    }
  });
});
