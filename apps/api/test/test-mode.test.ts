/**
 * Test mode through HTTP (docs/test-mode.md): `mk_test_…` and `mk_live_…` keys, `livemode` on every
 * object and event, the two modes never seeing each other's objects (404), an intent's reference unique
 * per mode, test money paid through the simulated provider while Daraja (here a fake of the test's own,
 * MOMO_BASE_URL, that records every request) receives nothing, webhook endpoints per mode, and the live
 * only operations refusing a test key (403) — in a start as tests run it and in a production start.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect } from "vitest";
import { adminKey, RestClient, type HttpResult } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import type { DarajaApp } from "./support/daraja.js";
import { it } from "./support/fixture.js";
import { waitFor } from "./support/wait.js";
import { startReceiver, type Receiver } from "./support/webhook-receiver.js";

/** A Daraja that must not be called for test money: it records each request and refuses it. */
interface FakeDaraja {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

async function startFakeDaraja(): Promise<FakeDaraja> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    request.resume();
    response.writeHead(500, { "content-type": "application/json" }).end('{"errorCode":"500.001.1001","errorMessage":"fake Daraja"}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let counter = 0;
const newReference = () => `TM${Date.now().toString(36).slice(-6)}${(counter += 1)}`.slice(0, 12);

async function createKey(url: string, mode?: "test" | "live"): Promise<HttpResult> {
  return new RestClient(url, "").request("POST", "/api/v1/admin/tenants/default/api-keys", {
    body: { name: `Shop backend (${mode ?? "default"})`, ...(mode ? { mode } : {}) },
    headers: { authorization: `Bearer ${adminKey}` },
  });
}

/** The momo app's env for a Daraja that only the fake answers: the B2C account is there for refunds. */
const darajaEnv = { RATE_LIMITS: "off", WEBHOOK_RETRY_SCHEDULE: "0,0,0" };
const b2c = { securityCredential: Buffer.from("fake-initiator-password", "utf8").toString("base64") };

describe.skipIf(skipThisTarget)("test mode", () => {
  let fake: FakeDaraja;
  let t: DarajaApp;
  let liveKey: string;
  let testKey: string;
  const receivers: Receiver[] = [];

  it.beforeAll(async ({ launch }) => {
    fake = await startFakeDaraja();
    t = await launch.momo({ darajaUrl: fake.url, b2c, env: darajaEnv });
    const live = await createKey(t.url);
    const test = await createKey(t.url, "test");
    expect(live.status).toBe(201);
    expect(test.status).toBe(201);
    liveKey = live.body.data.key;
    testKey = test.body.data.key;
  });
  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await fake?.close();
  });

  const as = (key: string) => (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    t.rest.request(method, path, { ...(body !== undefined ? { body } : {}), token: key, headers });
  const live = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => as(liveKey)(method, path, body, headers);
  const test = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => as(testKey)(method, path, body, headers);
  const expectError = (res: HttpResult, status: number, code: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.error.code).toBe(code);
  };

  /** A customer pays the intent with stkpush; answers the payment once it settled. */
  async function payIntent(intentId: string, token: string) {
    const pushed = await t.rest.request("POST", "/api/momo/stkpush", { body: { phone: "0712345678", intent_id: intentId }, token });
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
    const checkoutRequestId = pushed.body.data.checkoutRequestId as string;
    return waitFor(async () => {
      const res = await t.rest.request("GET", `/api/momo/payments/${checkoutRequestId}`, { token });
      return res.body.data?.payment?.status !== "PENDING" ? res.body.data.payment : undefined;
    }, { timeoutMs: 15_000 });
  }

  it("makes mk_live_ and mk_test_ keys (live by default) that say their mode", async () => {
    expect(liveKey).toMatch(/^mk_live_[A-Za-z0-9_-]{43}$/);
    expect(testKey).toMatch(/^mk_test_[A-Za-z0-9_-]{43}$/);
    expect((await live("GET", "/api/v1/api-keys/current")).body.data).toMatchObject({ livemode: true, prefix: liveKey.slice(0, 17) });
    expect((await test("GET", "/api/v1/api-keys/current")).body.data).toMatchObject({ livemode: false, prefix: testKey.slice(0, 17) });
    const listed = await t.rest.request("GET", "/api/v1/admin/tenants/default/api-keys", { headers: { authorization: `Bearer ${adminKey}` } });
    const modes = listed.body.data.api_keys.map((key: { prefix: string; livemode: boolean }) => [key.prefix.slice(0, 8), key.livemode]);
    expect(modes).toEqual(expect.arrayContaining([["mk_live_", true], ["mk_test_", false]]));
    expectError(await createKey(t.url, "sandbox" as "test"), 422, "VALIDATION_ERROR");
  });

  it("keeps accepting a key of the first releases (mk_…) as a live key", async () => {
    const old = `mk_${randomBytes(32).toString("base64url")}`;
    const keyHash = createHash("sha256").update(old).digest("hex");
    await t.deps.db.unscoped("test").apiKey.create({ data: { tenantId: "default", name: "Old backend", prefix: old.slice(0, 12), keyHash } });
    const intent = await as(old)("POST", "/api/v1/payment-intents", { amount: 100, reference: newReference() });
    expect(intent.status, JSON.stringify(intent.body)).toBe(201);
    expect(intent.body.data.livemode).toBe(true);
    expect((await as(old)("GET", "/api/v1/api-keys/current")).body.data).toMatchObject({ livemode: true, prefix: old.slice(0, 12) });
    expect((await live("GET", `/api/v1/payment-intents/${intent.body.data.id}`)).status).toBe(200);
  });

  it("keeps the modes apart: the same reference in both, each key sees only its own intents (404 across)", async () => {
    const reference = newReference();
    const liveIntent = await live("POST", "/api/v1/payment-intents", { amount: 300, reference });
    const testIntent = await test("POST", "/api/v1/payment-intents", { amount: 300, reference });
    expect(liveIntent.status, JSON.stringify(liveIntent.body)).toBe(201);
    expect(testIntent.status, JSON.stringify(testIntent.body)).toBe(201);
    expect(liveIntent.body.data.livemode).toBe(true);
    expect(testIntent.body.data.livemode).toBe(false);
    // Within one mode the reference is still taken.
    expectError(await test("POST", "/api/v1/payment-intents", { amount: 300, reference }), 409, "REFERENCE_IN_USE");

    expectError(await test("GET", `/api/v1/payment-intents/${liveIntent.body.data.id}`), 404, "NOT_FOUND");
    expectError(await live("GET", `/api/v1/payment-intents/${testIntent.body.data.id}`), 404, "NOT_FOUND");
    expectError(await test("POST", `/api/v1/payment-intents/${liveIntent.body.data.id}/cancel`), 404, "NOT_FOUND");
    const testList = (await test("GET", "/api/v1/payment-intents?limit=100")).body.data.payment_intents as { id: string; livemode: boolean }[];
    const liveList = (await live("GET", "/api/v1/payment-intents?limit=100")).body.data.payment_intents as { id: string; livemode: boolean }[];
    expect(testList.map((intent) => intent.id)).toContain(testIntent.body.data.id);
    expect(testList.every((intent) => intent.livemode === false)).toBe(true);
    expect(liveList.map((intent) => intent.id)).toContain(liveIntent.body.data.id);
    expect(liveList.every((intent) => intent.livemode === true)).toBe(true);
  });

  it("settles a test intent paid with stkpush through the simulated provider (magic amounts), Daraja untouched; refunds it the same way", async () => {
    const customer = await t.customer();
    const before = fake.requests.length;
    const paid = await test("POST", "/api/v1/payment-intents", { amount: 250, reference: newReference() });
    const cancelled = await test("POST", "/api/v1/payment-intents", { amount: 2, reference: newReference() });
    const payment = await payIntent(paid.body.data.id, customer.accessToken);
    expect(payment).toMatchObject({ status: "SUCCESS", livemode: false, amount: 250 });
    expect(payment.mpesaReceipt).toEqual(expect.any(String));
    expect(await payIntent(cancelled.body.data.id, customer.accessToken)).toMatchObject({ status: "CANCELLED", livemode: false, resultCode: "1032" });

    const intent = (await test("GET", `/api/v1/payment-intents/${paid.body.data.id}`)).body.data;
    expect(intent).toMatchObject({ status: "succeeded", livemode: false });
    expect(intent.payments).toEqual([expect.objectContaining({ id: payment.id, livemode: false, status: "SUCCESS" })]);
    expect((await test("GET", `/api/v1/payments/${payment.id}`)).body.data).toMatchObject({ livemode: false });
    expectError(await live("GET", `/api/v1/payments/${payment.id}`), 404, "NOT_FOUND");

    // A refund has its payment's mode; its Reversal goes to the simulated provider too.
    expectError(await live("POST", `/api/v1/payments/${payment.id}/refunds`, {}, { "idempotency-key": `live-${payment.id}` }), 404, "NOT_FOUND");
    const refund = await test("POST", `/api/v1/payments/${payment.id}/refunds`, {}, { "idempotency-key": `test-${payment.id}` });
    expect(refund.status, JSON.stringify(refund.body)).toBe(202);
    expect(refund.body.data).toMatchObject({ livemode: false, method: "reversal" });
    const settled = await waitFor(async () => {
      const read = await test("GET", `/api/v1/refunds/${refund.body.data.id}`);
      return read.body.data.status === "pending" ? undefined : read.body.data;
    }, { timeoutMs: 15_000 });
    expect(settled).toMatchObject({ status: "succeeded", livemode: false });
    expectError(await live("GET", `/api/v1/refunds/${refund.body.data.id}`), 404, "NOT_FOUND");
    expect((await live("GET", `/api/v1/payments/${payment.id}/refunds`)).status).toBe(404);

    expect(fake.requests.slice(before)).toEqual([]);
  });

  it("shows the customer both modes in their own payment list, each with livemode", async () => {
    const customer = await t.customer();
    const testIntent = await test("POST", "/api/v1/payment-intents", { amount: 120, reference: newReference() });
    await payIntent(testIntent.body.data.id, customer.accessToken);
    // A live prompt goes to Daraja (the fake, which refuses it): a live payment, FAILED.
    const before = fake.requests.length;
    const livePush = await t.rest.request("POST", "/api/momo/stkpush", { body: { phone: "0712345678", amount: 10 }, token: customer.accessToken });
    expect(livePush.status).toBeGreaterThanOrEqual(500);
    expect(fake.requests.length).toBeGreaterThan(before);
    const list = await t.rest.request("GET", "/api/momo/payments", { token: customer.accessToken });
    const modes = (list.body.data.payments as { livemode: boolean; amount: number }[]).map((p) => [p.amount, p.livemode]);
    expect(modes).toEqual(expect.arrayContaining([[120, false], [10, true]]));
  });

  it("gives each webhook endpoint only the events of the mode it was created in; events and endpoints stay in their mode", async () => {
    const testHooks = await startReceiver();
    const liveHooks = await startReceiver();
    receivers.push(testHooks, liveHooks);
    const testEndpoint = await test("POST", "/api/v1/webhook-endpoints", { url: testHooks.url, events: ["payment.succeeded", "payment.failed"] });
    const liveEndpoint = await live("POST", "/api/v1/webhook-endpoints", { url: liveHooks.url, events: ["payment.succeeded", "payment.failed"] });
    expect(testEndpoint.status, JSON.stringify(testEndpoint.body)).toBe(201);
    expect(testEndpoint.body.data.livemode).toBe(false);
    expect(liveEndpoint.body.data.livemode).toBe(true);
    expectError(await live("GET", `/api/v1/webhook-endpoints/${testEndpoint.body.data.id}`), 404, "NOT_FOUND");
    expectError(await test("DELETE", `/api/v1/webhook-endpoints/${liveEndpoint.body.data.id}`), 404, "NOT_FOUND");
    const endpointModes = (await test("GET", "/api/v1/webhook-endpoints?limit=100")).body.data.webhook_endpoints.map((e: { livemode: boolean }) => e.livemode);
    expect(new Set(endpointModes)).toEqual(new Set([false]));

    const customer = await t.customer();
    const intent = await test("POST", "/api/v1/payment-intents", { amount: 150, reference: newReference() });
    const testPayment = await payIntent(intent.body.data.id, customer.accessToken);
    const livePush = await t.rest.request("POST", "/api/momo/stkpush", { body: { phone: "0712345678", amount: 11 }, token: customer.accessToken });
    expect(livePush.status).toBeGreaterThanOrEqual(500);

    const [testDelivery] = await testHooks.waitFor((d) => d.event.data.payment?.id === testPayment.id);
    expect(testDelivery!.event).toMatchObject({ type: "payment.succeeded", livemode: false, data: { payment: { livemode: false } } });
    const [liveDelivery] = await liveHooks.waitFor((d) => d.event.type === "payment.failed" && d.event.data.payment?.amount === 11);
    expect(liveDelivery!.event).toMatchObject({ livemode: true, data: { payment: { livemode: true } } });
    // Give any stray delivery time to arrive, then: none crossed.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(testHooks.received.every((d) => d.event.livemode === false)).toBe(true);
    expect(liveHooks.received.every((d) => d.event.livemode === true)).toBe(true);

    const testEvents = (await test("GET", "/api/v1/webhook-events?limit=100")).body.data.webhook_events as { id: string; livemode: boolean }[];
    const liveEvents = (await live("GET", "/api/v1/webhook-events?limit=100")).body.data.webhook_events as { id: string; livemode: boolean }[];
    expect(testEvents.map((e) => e.id)).toContain(testDelivery!.event.id);
    expect(testEvents.every((e) => e.livemode === false)).toBe(true);
    expect(liveEvents.map((e) => e.id)).toContain(liveDelivery!.event.id);
    expect(liveEvents.every((e) => e.livemode === true)).toBe(true);
    expectError(await live("POST", `/api/v1/webhook-events/${testDelivery!.event.id}/redeliver`), 404, "NOT_FOUND");
    expectError(await test("POST", `/api/v1/webhook-events/${liveDelivery!.event.id}/redeliver`), 404, "NOT_FOUND");
  });

  it("refuses a test key where money is live only: C2B payments, Pull, QR (403), and payouts", async () => {
    const intent = await test("POST", "/api/v1/payment-intents", { amount: 100, reference: newReference() });
    expectError(await test("GET", "/api/v1/c2b-payments"), 403, "FORBIDDEN");
    expectError(await test("POST", "/api/v1/c2b-payments/pull", {}), 403, "FORBIDDEN");
    expectError(await test("POST", `/api/v1/payment-intents/${intent.body.data.id}/qr`, {}), 403, "FORBIDDEN");
    expectError(await test("POST", "/api/momo/b2c", { phone: "0712345678", amount: 100, remarks: "Refund" }), 403, "FORBIDDEN");
    expectError(await test("GET", "/api/momo/payouts"), 403, "FORBIDDEN");
    // The live key passes the mode check (what it answers next is C2B's own business).
    expect((await live("GET", "/api/v1/c2b-payments")).status).toBe(200);
  });

  it("answers any shop key on the operator's live-only operations (C2B and Pull registration, balance) 401, test or live", async () => {
    const operations: Array<[string, string, unknown?]> = [
      ["POST", "/api/v1/admin/tenants/default/c2b/register", {}],
      ["POST", "/api/v1/admin/tenants/default/pull/register", { nominated_number: "0712345678" }],
      ["POST", "/api/v1/admin/tenants/default/balance", {}],
      ["GET", "/api/v1/admin/tenants/default/balance"],
    ];
    for (const [method, path, body] of operations) {
      expectError(await test(method, path, body), 401, "INVALID_TOKEN");
      expectError(await live(method, path, body), 401, "INVALID_TOKEN");
    }
  });
});

describe.skipIf(skipThisTarget)("test mode in a production start", () => {
  it("pays a test intent through the simulated provider while Daraja receives nothing", async ({ launch }) => {
    const fake = await startFakeDaraja();
    try {
      // Production wants https callback addresses; nothing answers this one, so the simulated callback is
      // lost and the customer's STK query (answered by the simulated provider from the database) settles it.
      // Production checks new passwords against Pwned Passwords by default: off here (no test leaves loopback).
      const production = { NODE_ENV: "production", PASSWORD_BREACH_CHECK: "off", MOMO_CALLBACK_URL: "https://127.0.0.1:9/api/momo/callback/stkpush" };
      const t = await launch.momo({ darajaUrl: fake.url, env: { ...darajaEnv, ...production } });
      const key = await createKey(t.url, "test");
      expect(key.status, JSON.stringify(key.body)).toBe(201);
      const shop = (method: string, path: string, body?: unknown) => t.rest.request(method, path, { ...(body !== undefined ? { body } : {}), token: key.body.data.key });
      const intent = await shop("POST", "/api/v1/payment-intents", { amount: 450, reference: newReference() });
      expect(intent.status, JSON.stringify(intent.body)).toBe(201);
      const customer = await t.customer();
      const pushed = await t.rest.request("POST", "/api/momo/stkpush", { body: { phone: "0712345678", intent_id: intent.body.data.id }, token: customer.accessToken });
      expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
      const query = { checkoutRequestId: pushed.body.data.checkoutRequestId };
      const settled = await waitFor(async () => {
        await t.rest.request("POST", "/api/momo/stkquery", { body: query, token: customer.accessToken });
        const read = await shop("GET", `/api/v1/payment-intents/${intent.body.data.id}`);
        return read.body.data.status === "succeeded" ? read.body.data : undefined;
      }, { timeoutMs: 15_000 });
      expect(settled).toMatchObject({ livemode: false, payments: [expect.objectContaining({ status: "SUCCESS", livemode: false })] });
      expect(fake.requests).toEqual([]);
    } finally {
      await fake.close();
    }
  });
});
