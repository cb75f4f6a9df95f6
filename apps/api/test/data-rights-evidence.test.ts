/**
 * Erasure masks the customer's phone in the evidence Mteja keeps (docs/data-rights.md#erasure), through
 * HTTP with the Daraja simulator: the stored callbacks of their payments (STK, C2B) and of a reversal,
 * the webhook event bodies naming their payments, and the texts sent to them — theirs only, in their
 * shop only; the callbacks stay valid JSON, and a callback arriving afterwards is still stored verbatim.
 */
import { outboxes } from "@mteja/db";
import { afterAll, describe, expect } from "vitest";
import { adminKey, RestClient } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { it } from "./support/fixture.js";
import { postCallback, type DarajaApp } from "./support/daraja.js";
import type { Simulator } from "./support/simulator.js";
import { uniquePhone } from "./support/sms.js";
import { waitFor } from "./support/wait.js";

it.override({ darajaOptions: { b2c: true, env: { RATE_LIMITS: "off" } } });

let counter = 0;
const newReference = () => `ER${Date.now().toString(36).slice(-5)}${(counter += 1)}`.slice(0, 12);

describe.skipIf(skipThisTarget)("erasure masks the phone in callbacks, events and texts", () => {
  let t: DarajaApp;
  let sim: Simulator;
  let key: string;
  const admin = (method: string, path: string, body?: unknown) =>
    new RestClient(t.url, "").request(method, path, { ...(body !== undefined ? { body } : {}), headers: { authorization: `Bearer ${adminKey}` } });
  const server = (method: string, path: string, body?: unknown) => new RestClient(t.url, "").request(method, path, { ...(body !== undefined ? { body } : {}), token: key });

  it.beforeAll(async ({ momo, sim: simulator }) => {
    t = momo;
    sim = simulator;
    const created = await admin("POST", "/api/v1/admin/tenants/default/api-keys", { name: "Shop backend" });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    key = created.body.data.key;
    expect((await admin("POST", "/api/v1/admin/tenants/default/c2b/register", {})).status).toBe(200);
    expect((await admin("POST", "/api/v1/admin/tenants", { id: "evidence-other", name: "Another shop" })).status).toBe(200);
  });
  afterAll(() => {
    expect(sim.violations).toEqual([]);
  });

  const db = () => t.deps.db.unscoped("test");

  /** The code of the newest text to the phone in the shop (texts are logged: no SMS provider). */
  async function textedCode(tenantId: string, international: string, count: number): Promise<string> {
    const rows = await waitFor(async () => {
      const texts = await db().smsOutbox.findMany({ where: { tenantId, toPhone: international }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
      return texts.length >= count ? texts : undefined;
    });
    return /\b(\d{6})\b/.exec(rows[0]!.body)![1]!;
  }
  const allTextsSent = (tenantId: string, international: string) =>
    waitFor(async () => (await db().smsOutbox.count({ where: { tenantId, toPhone: international, sentAt: null } })) === 0);

  async function createIntent(amount: number, userId: string) {
    const created = await server("POST", "/api/v1/payment-intents", { amount, reference: newReference(), user_id: userId });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.data as { id: string; reference: string };
  }
  async function settledPayment(checkoutRequestId: string) {
    return waitFor(async () => {
      const payment = await db().payment.findUnique({ where: { checkoutRequestId } });
      return payment?.status === "SUCCESS" ? payment : undefined;
    });
  }
  const callbacksOf = (correlationIds: string[]) => db().darajaCallback.findMany({ where: { correlationId: { in: correlationIds } }, orderBy: { receivedAt: "asc" } });

  it("masks the erased customer's phone in their callbacks, their payments' events and the texts sent to them; nobody else's", async () => {
    const phone = uniquePhone();
    const masked = `254******${phone.stored.slice(-3)}`;
    const client = new RestClient(t.url);

    // A customer signs up with their phone (a text), pays an intent of theirs by STK, has it reversed,
    // and pays a second intent of theirs from the M-Pesa menu (Daraja sending the number plain).
    expect((await client.post("/api/v1/auth/phone/start", { phone: phone.local })).status).toBe(200);
    const signedUp = await client.post("/api/v1/auth/phone/verify", { phone: phone.local, code: await textedCode("default", phone.international, 1) });
    expect(signedUp.status, JSON.stringify(signedUp.body)).toBe(200);
    const token = signedUp.body.data.access_token as string;
    const userId = signedUp.body.data.user.id as string;

    const intent = await createIntent(25, userId);
    const pushed = await client.post("/api/momo/stkpush", { phone: phone.local, intent_id: intent.id }, token);
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
    const payment = await settledPayment(pushed.body.data.checkoutRequestId);
    expect((await server("POST", `/api/v1/payments/${payment.id}/reversal`)).status).toBe(202);
    const reversal = await waitFor(async () => {
      const row = await db().paymentReversal.findFirst({ where: { paymentId: payment.id } });
      return row?.status === "SUCCESS" ? row : undefined;
    });
    const menuIntent = await createIntent(30, userId);
    const menu = await sim.c2bPay({ account: menuIntent.reference, amount: 30, phone: phone.local, msisdn: "plain" });
    expect(menu.status).toBe("completed");

    // Another customer of the shop pays from the same phone; the same phone signs up at another shop.
    const other = await t.customer();
    const theirs = await new RestClient(t.url).post("/api/momo/stkpush", { phone: phone.local, amount: 11 }, other.accessToken);
    expect(theirs.status).toBe(200);
    const theirPayment = await settledPayment(theirs.body.data.checkoutRequestId);
    expect((await new RestClient(t.url, "evidence-other").post("/api/v1/auth/phone/start", { phone: phone.local })).status).toBe(200);
    await allTextsSent("evidence-other", phone.international);

    // Before: the full phone is in all of it.
    const mine = [payment.checkoutRequestId!, reversal.originatorConversationId!, menu.trans_id];
    const callbacksBefore = await callbacksOf(mine);
    expect(callbacksBefore.map((c) => c.kind).sort()).toEqual(["c2b_confirmation", "c2b_validation", "reversal_result", "stkpush"]);
    for (const callback of callbacksBefore) expect(callback.rawBody, callback.kind).toContain(phone.stored);

    // The erasure, confirmed with a code texted to the phone; the texts are sent by then.
    expect((await client.post("/api/v1/auth/me/phone/start", {}, token)).status).toBe(200);
    const code = await textedCode("default", phone.international, 2);
    await allTextsSent("default", phone.international);
    // A text still waiting in the outbox for this phone (due later) is cancelled by the erasure.
    await t.deps.db.transaction(t.deps.db.forTenant("default"), (tx) =>
      outboxes.enqueueText(
        tx,
        {
          tenantId: "default",
          kind: "phone_code",
          to: phone.international,
          body: "123456 is your code",
          expiresAt: null,
        },
        new Date(Date.now() + 3_600_000),
      ),
    );
    const erased = await client.request("DELETE", "/api/v1/auth/me", { body: { sms_code: code }, token });
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);

    // Callbacks: the phone masked inside the values, everything else as received, still JSON.
    const callbacksAfter = await callbacksOf(mine);
    expect(callbacksAfter).toHaveLength(callbacksBefore.length);
    for (const [i, callback] of callbacksAfter.entries()) {
      const before = callbacksBefore[i]!;
      expect(callback.rawBody, callback.kind).not.toContain(phone.stored);
      expect(callback.rawBody, callback.kind).toContain(masked);
      expect(() => JSON.parse(callback.rawBody), callback.kind).not.toThrow();
      // Nothing else changed: the body as received, with its phone (a number or inside a string) masked.
      const expected = (value: unknown): unknown =>
        value === Number(phone.stored) ? masked
        : typeof value === "string" ? value.replaceAll(phone.stored, masked)
        : Array.isArray(value) ? value.map(expected)
        : value !== null && typeof value === "object" ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expected(v)]))
        : value;
      expect(JSON.parse(callback.rawBody), callback.kind).toEqual(expected(JSON.parse(before.rawBody)));
      expect({ ...callback, rawBody: "" }, callback.kind).toEqual({ ...before, rawBody: "" });
    }
    const stk = JSON.parse(callbacksAfter.find((c) => c.kind === "stkpush")!.rawBody);
    expect(stk.Body.stkCallback.CallbackMetadata.Item).toContainEqual({ Name: "PhoneNumber", Value: masked });
    const reversed = JSON.parse(callbacksAfter.find((c) => c.kind === "reversal_result")!.rawBody);
    expect(reversed.Result.ResultParameters.ResultParameter).toContainEqual({ Key: "CreditPartyPublicName", Value: expect.stringMatching(new RegExp(`^${masked.replace(/\*/g, "\\*")} - `)) });
    expect(JSON.parse(callbacksAfter.find((c) => c.kind === "c2b_confirmation")!.rawBody).MSISDN).toBe(masked);
    // The other customer's callback, paid from the same phone, is theirs: as received.
    const [theirCallback] = await callbacksOf([theirPayment.checkoutRequestId!]);
    expect(theirCallback!.rawBody).toContain(phone.stored);

    // Webhook events: their payments show the masked phone, as the payments now do; the other customer's do not.
    const events = await db().webhookEvent.findMany({ where: { tenantId: "default" } });
    const about = (paymentId: string) => events.filter((e) => e.body.includes(paymentId));
    expect(about(payment.id).map((e) => e.type).sort()).toEqual(["payment.reversed", "payment.succeeded", "payment_intent.succeeded"]);
    for (const event of about(payment.id)) {
      expect(event.body, event.type).not.toContain(phone.stored);
      expect(event.body, event.type).toContain(`"phone":"${masked}"`);
    }
    expect(about(theirPayment.id).map((e) => e.type)).toEqual(["payment.succeeded"]);
    expect(about(theirPayment.id)[0]!.body).toContain(`"phone":"${phone.stored}"`);
    // The shop's event feed reads them as stored.
    const feed = await server("GET", "/api/v1/webhook-events?limit=100");
    const succeeded = feed.body.data.webhook_events.find((e: any) => e.type === "payment.succeeded" && e.data.payment.id === payment.id);
    expect(succeeded.data.payment.phone).toBe(masked);

    // Texts: the ones sent to them in this shop keep a masked recipient, the unsent one is gone; the other shop's are its own.
    const texts = await db().smsOutbox.findMany({ where: { tenantId: "default", OR: [{ toPhone: phone.international }, { toPhone: masked }] } });
    expect(texts.map((text) => text.toPhone)).toEqual([masked, masked]);
    expect(texts.every((text) => !text.body.includes(phone.stored.slice(3)))).toBe(true);
    expect(await db().smsOutbox.count({ where: { tenantId: "evidence-other", toPhone: phone.international } })).toBe(1);

    // The payments themselves, as before.
    expect((await db().payment.findUniqueOrThrow({ where: { id: payment.id } })).phone).toBe(masked);
    expect((await db().payment.findUniqueOrThrow({ where: { id: theirPayment.id } })).phone).toBe(phone.stored);
  });

  it("finds every phone the account has had: texts to a phone it signed up with and later changed are masked, that phone's codes deleted", async () => {
    const first = uniquePhone();
    const second = uniquePhone();
    const client = new RestClient(t.url);
    // Signs up by SMS with the first phone, then (fresh session) changes to the second.
    expect((await client.post("/api/v1/auth/phone/start", { phone: first.local })).status).toBe(200);
    const signedUp = await client.post("/api/v1/auth/phone/verify", { phone: first.local, code: await textedCode("default", first.international, 1) });
    expect(signedUp.status, JSON.stringify(signedUp.body)).toBe(200);
    const token = signedUp.body.data.access_token as string;
    expect((await client.post("/api/v1/auth/me/phone/start", { phone: second.local }, token)).status).toBe(200);
    const changed = await client.post("/api/v1/auth/me/phone/verify", { code: await textedCode("default", second.international, 1) }, token);
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    // The first phone got its sign-up code and the notice of the change.
    await waitFor(async () => (await db().smsOutbox.count({ where: { tenantId: "default", toPhone: first.international } })) === 2);
    await allTextsSent("default", first.international);
    const toFirst = await db().smsOutbox.findMany({ where: { tenantId: "default", toPhone: first.international }, select: { id: true, kind: true } });
    expect(toFirst.map((text) => text.kind).sort()).toEqual(["phone_code", "security_notice"]);
    expect(await db().phoneCode.count({ where: { tenantId: "default", phone: first.stored } })).toBe(1);

    expect((await client.post("/api/v1/auth/me/phone/start", {}, token)).status).toBe(200);
    const code = await textedCode("default", second.international, 2);
    const erased = await client.request("DELETE", "/api/v1/auth/me", { body: { sms_code: code }, token });
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);

    // Nothing keeps either number: the texts to both are masked, the codes of both deleted.
    for (const phone of [first, second]) {
      expect(await db().smsOutbox.count({ where: { tenantId: "default", toPhone: phone.international } }), phone.international).toBe(0);
      expect(await db().phoneCode.count({ where: { tenantId: "default", phone: phone.stored } }), phone.stored).toBe(0);
    }
    const kept = await db().smsOutbox.findMany({ where: { id: { in: toFirst.map((text) => text.id) } } });
    expect(kept.map((text) => text.toPhone)).toEqual([`254******${first.stored.slice(-3)}`, `254******${first.stored.slice(-3)}`]);
  });

  it("still stores every callback verbatim before applying it: one arriving after the erasure is kept as received", async () => {
    const phone = uniquePhone();
    const client = new RestClient(t.url);
    expect((await client.post("/api/v1/auth/phone/start", { phone: phone.local })).status).toBe(200);
    const signedUp = await client.post("/api/v1/auth/phone/verify", { phone: phone.local, code: await textedCode("default", phone.international, 1) });
    const token = signedUp.body.data.access_token as string;
    const pushed = await client.post("/api/momo/stkpush", { phone: phone.local, amount: 12 }, token);
    expect(pushed.status).toBe(200);
    const payment = await settledPayment(pushed.body.data.checkoutRequestId);
    const [received] = await callbacksOf([payment.checkoutRequestId!]);

    expect((await client.post("/api/v1/auth/me/phone/start", {}, token)).status).toBe(200);
    const code = await textedCode("default", phone.international, 2);
    expect((await client.request("DELETE", "/api/v1/auth/me", { body: { sms_code: code }, token })).status).toBe(200);
    expect((await callbacksOf([payment.checkoutRequestId!]))[0]!.rawBody).not.toContain(phone.stored);

    // Daraja sends the result again: stored as it came (then recorded as a duplicate).
    const again = await postCallback(t.callbackUrl("stkpush"), undefined, received!.rawBody);
    expect(again.status).toBe(200);
    const stored = await callbacksOf([payment.checkoutRequestId!]);
    expect(stored).toHaveLength(2);
    expect(stored[1]!.rawBody).toBe(received!.rawBody);
    expect(stored[1]!.outcome).toBe("duplicate");
  });
});
