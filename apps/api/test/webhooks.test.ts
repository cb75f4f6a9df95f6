/**
 * Signed webhooks through HTTP (docs/webhooks.md): endpoints managed with an API key, events written
 * with the payment's settlement and delivered by the worker to real HTTP receivers, signed, retried on
 * WEBHOOK_RETRY_SCHEDULE, never following redirects.
 */
import { recordEvent } from "@mteja/domain";
import { verifyWebhook } from "@mteja/webhooks";
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect } from "vitest";
import { readSettings } from "../src/settings.js";
import { adminKey, RestClient } from "./support/app.js";
import { testClock } from "./support/clock.js";
import { skipThisTarget } from "./support/database.js";
import { it } from "./support/fixture.js";
import { postCallback, stkCallbackBody, type DarajaApp } from "./support/daraja.js";
import { waitFor } from "./support/wait.js";
import type { Simulator } from "./support/simulator.js";
import { startReceiver, type Receiver, type ReceivedDelivery } from "./support/webhook-receiver.js";

const allEventTypes = [
  "payment.succeeded",
  "payment.failed",
  "payment.reversed",
  "payment_intent.succeeded",
  "payment_intent.expired",
  "payout.succeeded",
  "payout.failed",
  "refund.succeeded",
  "refund.failed",
  "callback.flagged",
  "c2b_payment.unmatched",
];

async function createApiKey(url: string, tenantId = "default"): Promise<string> {
  const res = await new RestClient(url, "").request("POST", `/api/v1/admin/tenants/${tenantId}/api-keys`, { body: { name: "Shop backend" }, headers: { authorization: `Bearer ${adminKey}` } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.key as string;
}

it.override({ simOptions: { callbackDelayMs: 50 }, darajaOptions: { b2c: true, env: { WEBHOOK_RETRY_SCHEDULE: "0,0,0" } } });

describe.skipIf(skipThisTarget)("webhooks", () => {
  let t: DarajaApp;
  let sim: Simulator;
  let key: string;
  const receivers: Receiver[] = [];
  const server = () => new RestClient(t.url, "");
  const call = (method: string, path: string, body?: unknown) => server().request(method, path, { ...(body !== undefined ? { body } : {}), token: key });

  it.beforeAll(async ({ momo, sim: simulator }) => {
    t = momo;
    sim = simulator;
    key = await createApiKey(t.url);
  });
  afterEach(async () => {
    // Each test starts without endpoints: every event goes to every endpoint subscribed.
    const list = await call("GET", "/api/v1/webhook-endpoints?limit=100");
    for (const endpoint of list.body.data.webhook_endpoints) expect((await call("DELETE", `/api/v1/webhook-endpoints/${endpoint.id}`)).status).toBe(200);
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });
  async function receiver(answer?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
    const started = await startReceiver(answer);
    receivers.push(started);
    return started;
  }

  async function addEndpoint(url: string, events?: string[]): Promise<{ id: string; secret: string }> {
    const res = await call("POST", "/api/v1/webhook-endpoints", { url, ...(events ? { events } : {}) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data;
  }

  /** A customer pays through the simulator (amount 1 succeeds); answers the payment's uuid. */
  async function pay(amount = 1): Promise<string> {
    const user = await t.customer();
    const pushed = await t.rest.request("POST", "/api/momo/stkpush", { body: { phone: "0712345678", amount }, token: user.accessToken });
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
    const payment = await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { checkoutRequestId: pushed.body.data.checkoutRequestId } });
    return payment.id;
  }

  const forPayment = (paymentId: string) => (delivery: ReceivedDelivery) => delivery.event.data.payment?.id === paymentId;

  it("creates (201, secret once, no-store), lists without the secret, updates and deletes endpoints", async () => {
    const res = await call("POST", "/api/v1/webhook-endpoints", { url: "http://127.0.0.1:9/hooks" });
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const created = res.body.data;
    expect(Object.keys(created).sort()).toEqual(["created_at", "events", "id", "livemode", "secret", "url"]);
    expect(created).toMatchObject({ url: "http://127.0.0.1:9/hooks", events: allEventTypes });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);

    const stored = await t.deps.db.unscoped("test").webhookEndpoint.findUniqueOrThrow({ where: { id: created.id } });
    expect(JSON.stringify(stored)).not.toContain(created.secret.slice(6));

    const list = await call("GET", "/api/v1/webhook-endpoints");
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual({
      webhook_endpoints: [{ id: created.id, livemode: true, url: created.url, events: allEventTypes, enabled: true, disabled_reason: null, created_at: created.created_at, updated_at: expect.any(String) }],
      next_cursor: null,
    });
    expect(JSON.stringify(list.body)).not.toContain(created.secret);

    const patched = await call("PATCH", `/api/v1/webhook-endpoints/${created.id}`, { enabled: false, events: ["payment.succeeded"] });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ id: created.id, enabled: false, disabled_reason: null, events: ["payment.succeeded"] });
    expect(JSON.stringify(patched.body)).not.toContain(created.secret);

    const bad = await call("POST", "/api/v1/webhook-endpoints", { url: "ftp://example.com/x", events: ["payment.nonsense"] });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(["events.0", "url"]);

    const deleted = await call("DELETE", `/api/v1/webhook-endpoints/${created.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toBeNull();
    expect((await call("DELETE", `/api/v1/webhook-endpoints/${created.id}`)).status).toBe(404);
    expect((await call("GET", "/api/v1/webhook-endpoints")).body.data.webhook_endpoints).toEqual([]);
  });

  it("takes API keys only: a customer token is 403, no credential 401; endpoints are limited per tenant (422)", async () => {
    const user = await t.customer();
    for (const [method, path] of [
      ["GET", "/api/v1/webhook-endpoints"],
      ["POST", "/api/v1/webhook-endpoints"],
      ["GET", "/api/v1/webhook-events"],
    ] as const) {
      const asCustomer = await t.rest.request(method, path, { token: user.accessToken, ...(method === "POST" ? { body: { url: "http://127.0.0.1:9/x" } } : {}) });
      expect(asCustomer.status, `${method} ${path}`).toBe(403);
      expect(asCustomer.body.error.code).toBe("FORBIDDEN");
      expect((await server().request(method, path)).status).toBe(401);
    }
    // An API key on a customer operation: 403.
    expect((await t.rest.request("POST", "/api/momo/stkpush", { body: { phone: "0712345678", amount: 1 }, token: key })).status).toBe(403);

    for (let i = 0; i < 16; i += 1) await addEndpoint(`http://127.0.0.1:9/hooks/${i}`);
    const over = await call("POST", "/api/v1/webhook-endpoints", { url: "http://127.0.0.1:9/one-too-many" });
    expect(over.status).toBe(422);
    expect(over.body.error.code).toBe("VALIDATION_ERROR");
  });

  /** An intent of 1 shilling (its reference `prefix` and digits) and a prompt for it as a new customer: answers the intent's id and the prompt. */
  async function intentWithPrompt(prefix: string): Promise<{ intentId: string; prompt: () => Promise<{ status: number; body: any }> }> {
    const created = await call("POST", "/api/v1/payment-intents", { amount: 1, reference: `${prefix}${Date.now() % 1_000_000_000}` });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const intentId = created.body.data.id as string;
    const user = await t.customer();
    return { intentId, prompt: () => t.rest.request("POST", "/api/momo/stkpush", { body: { phone: "0712345678", intent_id: intentId }, token: user.accessToken }) };
  }

  /** The intent's payment_intent.succeeded as the receiver got it, its signature checked. */
  async function intentSucceeded(hooks: Receiver, secret: string, intentId: string): Promise<{ payment_intent: Record<string, any> }> {
    const [delivery] = await hooks.waitFor((d) => d.event.type === "payment_intent.succeeded" && d.event.data.payment_intent?.id === intentId);
    return verifyWebhook<{ payment_intent: Record<string, any> }>(delivery!.body, delivery!.headers["mteja-signature"], secret).data;
  }

  it("delivers payment.succeeded and payment_intent.succeeded once when a customer pays an intent", async () => {
    const hooks = await receiver();
    const endpoint = await addEndpoint(hooks.url);
    const { intentId, prompt } = await intentWithPrompt("ORD");
    const pushed = await prompt();
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
    const data = await intentSucceeded(hooks, endpoint.secret, intentId);
    expect(data.payment_intent).toMatchObject({ id: intentId, status: "succeeded", amount: 1 });
    expect(data.payment_intent.payments).toEqual([expect.objectContaining({ status: "SUCCESS", intent_id: intentId, duplicate: false })]);
    // The intent as the read API shows it, once the payment settled it.
    expect(data.payment_intent).toEqual((await call("GET", `/api/v1/payment-intents/${intentId}`)).body.data);
    const paymentId = data.payment_intent.payments[0].id as string;
    await hooks.waitFor(forPayment(paymentId));
    // Once only: the worker has nothing more to send for this intent.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hooks.received.filter((delivery) => delivery.event.type === "payment_intent.succeeded" && delivery.event.data.payment_intent?.id === intentId)).toHaveLength(1);
  });

  it("reports every payment of an intent paid after a cancelled prompt in its payment_intent.succeeded", async () => {
    const hooks = await receiver();
    const endpoint = await addEndpoint(hooks.url);
    const { intentId, prompt } = await intentWithPrompt("TWO");
    await sim.nextOutcome("cancelled");
    const cancelled = await prompt();
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    await hooks.waitFor((delivery) => delivery.event.type === "payment.failed" && delivery.event.data.payment?.intent_id === intentId);
    const paid = await prompt();
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const data = await intentSucceeded(hooks, endpoint.secret, intentId);
    expect(data.payment_intent.payments.map((payment: { status: string }) => payment.status)).toEqual(["CANCELLED", "SUCCESS"]);
    expect(data.payment_intent).toEqual((await call("GET", `/api/v1/payment-intents/${intentId}`)).body.data);
  });

  it("delivers payment.succeeded to the receiver with a signature verifyWebhook accepts", async () => {
    const hooks = await receiver();
    const endpoint = await addEndpoint(hooks.url);
    const paymentId = await pay();
    const [delivery] = await hooks.waitFor(forPayment(paymentId));
    expect(delivery!.headers["content-type"]).toBe("application/json");
    expect(delivery!.headers["mteja-event-type"]).toBe("payment.succeeded");
    const event = verifyWebhook<{ payment: Record<string, unknown> }>(delivery!.body, delivery!.headers["mteja-signature"], endpoint.secret);
    expect(delivery!.headers["mteja-event-id"]).toBe(event.id);
    expect(event).toMatchObject({ id: expect.stringMatching(/^evt_[0-9a-f]{32}$/), type: "payment.succeeded", tenant_id: "default", livemode: true });
    const stored = await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { id: paymentId } });
    expect(event.data.payment).toEqual({
      id: paymentId,
      livemode: true,
      channel: "stk",
      status: "SUCCESS",
      amount: 1,
      phone: "254712345678",
      mpesa_receipt: stored.mpesaReceipt,
      checkout_request_id: stored.checkoutRequestId,
      trans_id: null,
      intent_id: null,
      duplicate: false,
      reversal: null,
      refunded_amount: 0,
      created_at: stored.createdAt.toISOString(),
      updated_at: stored.updatedAt.toISOString(),
    });
    expect(() => verifyWebhook(delivery!.body, delivery!.headers["mteja-signature"], "whsec_wrong")).toThrow(/signature mismatch/);
  });

  it("sends payment.failed for a cancelled prompt, only to endpoints subscribed to it", async () => {
    const failures = await receiver();
    const successes = await receiver();
    await addEndpoint(failures.url, ["payment.failed"]);
    await addEndpoint(successes.url, ["payment.succeeded"]);
    const paymentId = await pay(2);
    const [delivery] = await failures.waitFor(forPayment(paymentId));
    expect(delivery!.event).toMatchObject({ type: "payment.failed", data: { payment: { id: paymentId, status: "CANCELLED" } } });
    const succeeded = await pay();
    await successes.waitFor(forPayment(succeeded));
    expect(successes.received.filter(forPayment(paymentId))).toEqual([]);
    expect(failures.received.filter(forPayment(succeeded))).toEqual([]);
  });

  it("sends payment.failed and payout.failed when Daraja refuses the request outright (FAILED, no callback)", async ({ sim }) => {
    const hooks = await receiver();
    await addEndpoint(hooks.url, ["payment.failed", "payout.failed"]);
    const refusal = { status: 400, body: { requestId: "r", errorCode: "400.002.02", errorMessage: "Bad Request - Invalid PhoneNumber" } };
    sim.script("stkpush", () => refusal);
    const user = await t.customer();
    const pushed = await t.rest.request("POST", "/api/momo/stkpush", { body: { phone: "0712345678", amount: 17 }, token: user.accessToken });
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(502);
    const payment = await t.deps.db.unscoped("test").payment.findFirstOrThrow({ where: { userId: user.id, amount: 17 } });
    expect(payment.status).toBe("FAILED");
    const [failed] = await hooks.waitFor(forPayment(payment.id));
    expect(failed!.event).toMatchObject({ type: "payment.failed", data: { payment: { id: payment.id, status: "FAILED", amount: 17 } } });

    sim.script("b2c", () => refusal);
    const admin = await t.admin();
    const paid = await t.rest.request("POST", "/api/momo/b2c", { body: { phone: "0712345678", amount: 18 }, token: admin.accessToken });
    expect(paid.status, JSON.stringify(paid.body)).toBe(502);
    const payout = await t.deps.db.unscoped("test").payout.findFirstOrThrow({ where: { requestedBy: admin.id, amount: 18 } });
    const [payoutFailed] = await hooks.waitFor((d) => d.event.data.payout?.id === payout.id);
    expect(payoutFailed!.event).toMatchObject({ type: "payout.failed", data: { payout: { id: payout.id, status: "FAILED", amount: 18 } } });
  });

  it("retries a receiver that answers 500 twice, and lists the three attempts", async () => {
    const hooks = await receiver((n) => ({ status: n <= 2 ? 500 : 200 }));
    const endpoint = await addEndpoint(hooks.url);
    const paymentId = await pay();
    const deliveries = await hooks.waitFor(forPayment(paymentId), 3);
    expect(new Set(deliveries.map((d) => d.event.id)).size).toBe(1);
    const eventId = deliveries[0]!.event.id;
    const listed = await waitFor(async () => {
      const res = await call("GET", "/api/v1/webhook-events?limit=100");
      const event = res.body.data.webhook_events.find((e: { id: string }) => e.id === eventId);
      return event?.attempts.length === 3 ? event : undefined;
    });
    expect(listed).toMatchObject({ id: eventId, type: "payment.succeeded", tenant_id: "default", data: { payment: { id: paymentId } } });
    expect(listed.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 200]);
    for (const attempt of listed.attempts) expect(attempt).toEqual({ endpoint_id: endpoint.id, attempted_at: expect.any(String), status_code: expect.any(Number), error: null });
    const delivery = await t.deps.db.unscoped("test").webhookDelivery.findFirstOrThrow({ where: { eventId } });
    expect(delivery).toMatchObject({ status: "delivered", attempts: 3 });
  });

  it("gives up after the schedule is used up (status failed), and never follows a redirect", async () => {
    const target = await receiver();
    const redirecting = await receiver(() => ({ status: 302, headers: { location: target.url } }));
    await addEndpoint(redirecting.url);
    const paymentId = await pay();
    await redirecting.waitFor(forPayment(paymentId), 4);
    const eventId = redirecting.received.find(forPayment(paymentId))!.event.id;
    const delivery = await waitFor(() => t.deps.db.unscoped("test").webhookDelivery.findFirst({ where: { eventId, status: "failed" } }));
    expect(delivery.attempts).toBe(4);
    expect(target.received).toEqual([]);
    const attempts = await t.deps.db.unscoped("test").webhookAttempt.findMany({ where: { eventId } });
    expect(attempts.map((a) => a.statusCode)).toEqual([302, 302, 302, 302]);
  });

  it("sends payout.succeeded and payout.failed as payouts settle", async () => {
    const hooks = await receiver();
    await addEndpoint(hooks.url, ["payout.succeeded", "payout.failed"]);
    const admin = await t.admin();
    const payout = async (amount: number) => {
      const res = await t.rest.request("POST", "/api/momo/b2c", { body: { phone: "0712345678", amount }, token: admin.accessToken });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return (await t.deps.db.unscoped("test").payout.findFirstOrThrow({ where: { requestedBy: admin.id, amount } })).id;
    };
    const succeeded = await payout(100);
    const failed = await payout(11);
    const [success] = await hooks.waitFor((d) => d.event.data.payout?.id === succeeded);
    const [failure] = await hooks.waitFor((d) => d.event.data.payout?.id === failed);
    expect(success!.event).toMatchObject({ type: "payout.succeeded", data: { payout: { id: succeeded, status: "SUCCESS", amount: 100, transaction_id: expect.any(String) } } });
    expect(failure!.event).toMatchObject({ type: "payout.failed", data: { payout: { id: failed, status: "FAILED", amount: 11, result_code: "1" } } });
    expect(Object.keys(success!.event.data.payout)).toContain("updated_at");
    // The event reports the row as its settlement left it (written in the update's own statement).
    const row = await t.deps.db.unscoped("test").payout.findUniqueOrThrow({ where: { id: succeeded } });
    expect(success!.event.data.payout).toMatchObject({ transaction_id: row.transactionId, updated_at: row.updatedAt.toISOString(), settled_at: row.settledAt!.toISOString() });
  });

  it("sends callback.flagged when a callback contradicts a settled payment", async () => {
    const hooks = await receiver();
    await addEndpoint(hooks.url, ["callback.flagged"]);
    const paymentId = await pay();
    const payment = await waitFor(async () => {
      const row = await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { id: paymentId } });
      return row.status === "SUCCESS" ? row : undefined;
    });
    const ids = { checkoutRequestId: payment.checkoutRequestId!, merchantRequestId: payment.merchantRequestId! };
    expect((await postCallback(t.callbackUrl("stkpush"), stkCallbackBody(ids, 0, { amount: 500, receipt: "FLAGGED001", phone: "254712345678" }))).status).toBe(200);
    const [flagged] = await hooks.waitFor((d) => d.event.data.callback?.payment_id === paymentId);
    expect(flagged!.event).toMatchObject({
      type: "callback.flagged",
      tenant_id: "default",
      data: { callback: { id: expect.any(String), kind: "stkpush", payment_id: paymentId, payout_id: null, flag_reason: expect.stringContaining("amount mismatch") } },
    });
    expect(hooks.received.every((d) => d.event.type === "callback.flagged")).toBe(true);
  });

  it("signs with the new and the old secret for a day after a rotation, and redelivers an event on request", async () => {
    const hooks = await receiver();
    const endpoint = await addEndpoint(hooks.url);
    const paymentId = await pay();
    const [first] = await hooks.waitFor(forPayment(paymentId));
    expect(String(first!.headers["mteja-signature"]).match(/v1=/g)).toHaveLength(1);

    const rotated = await call("POST", `/api/v1/webhook-endpoints/${endpoint.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get("cache-control")).toBe("no-store");
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(endpoint.secret);

    const redelivered = await call("POST", `/api/v1/webhook-events/${first!.event.id}/redeliver`);
    expect(redelivered.status).toBe(200);
    expect(redelivered.body.data).toEqual({ id: first!.event.id, deliveries: 1 });
    const [, again] = await hooks.waitFor(forPayment(paymentId), 2);
    expect(again!.body).toBe(first!.body);
    const header = String(again!.headers["mteja-signature"]);
    expect(header.match(/v1=/g)).toHaveLength(2);
    const [, newV1, oldV1] = header.split(",");
    expect(verifyWebhook(again!.body, header, rotated.body.data.secret).id).toBe(first!.event.id);
    expect(verifyWebhook(again!.body, header, endpoint.secret).id).toBe(first!.event.id);
    // New first, then old.
    expect(() => verifyWebhook(again!.body, `${header.split(",")[0]},${newV1}`, endpoint.secret)).toThrow();
    expect(verifyWebhook(again!.body, `${header.split(",")[0]},${oldV1}`, endpoint.secret).id).toBe(first!.event.id);

    expect((await call("POST", "/api/v1/webhook-events/evt_00000000000000000000000000000000/redeliver")).status).toBe(404);
  });
});

describe.skipIf(skipThisTarget)("webhooks of the reconciler", () => {
  it("sends payment.failed when the reconciler times out a prompt whose outcome was unknown", async ({ launch }) => {
    const clock = testClock();
    const sim = await launch.sim();
    const t = await launch.momo({ darajaUrl: sim.url, now: clock.now, env: { MOMO_TIMEOUT_MS: "400", MOMO_UNKNOWN_PROMPT_WINDOW_SECONDS: "300" } });
    const hooks = await startReceiver();
    try {
      const key = await createApiKey(t.url);
      const endpoint = await new RestClient(t.url, "").request("POST", "/api/v1/webhook-endpoints", { body: { url: hooks.url }, token: key });
      expect(endpoint.status).toBe(201);
      const user = await t.customer();
      // Amount 8: the simulator refuses the push with a 5xx, which proves nothing: 202 PENDING.
      const pushed = await t.rest.request("POST", "/api/momo/stkpush", { body: { phone: "0712345678", amount: 8 }, token: user.accessToken });
      expect(pushed.status, JSON.stringify(pushed.body)).toBe(202);
      clock.advance(301);
      expect((await t.reconciler.runOnce()).paymentsTimedOut).toBe(1);
      const [delivery] = await hooks.waitFor((d) => d.event.data.payment?.id === pushed.body.data.id);
      const event = verifyWebhook<{ payment: { status: string } }>(delivery!.body, delivery!.headers["mteja-signature"], endpoint.body.data.secret, { now: () => clock.now().getTime() });
      expect(event).toMatchObject({ type: "payment.failed", data: { payment: { status: "TIMEOUT", checkout_request_id: null } } });
    } finally {
      await hooks.close();
    }
  }, 60_000);
});

describe.skipIf(skipThisTarget)("webhook endpoint URLs in production", () => {
  it("refuses http and private addresses at creation; WEBHOOK_ALLOW_PRIVATE_URLS lifts it", async ({ launch }) => {
    const production = await launch.app({ NODE_ENV: "production" });
    const lifted = await launch.app({ NODE_ENV: "production", WEBHOOK_ALLOW_PRIVATE_URLS: "true" });
    const key = await createApiKey(production.url);
    const create = (url: string) => new RestClient(production.url, "").request("POST", "/api/v1/webhook-endpoints", { body: { url }, token: key });
    expect((await create("http://shop.example.com/hooks")).body.error.details).toEqual([{ path: "url", message: "url must be https" }]);
    const refusedBy = (rule: string) => `url resolves to a non-public address (rule: ${rule})`;
    for (const [url, message] of [
      ["https://127.0.0.1/hooks", refusedBy("loopback 127.0.0.0/8")],
      ["https://10.1.2.3/hooks", refusedBy("private network 10.0.0.0/8")],
      ["https://[::1]/hooks", refusedBy("loopback ::1/128")],
      ["https://169.254.169.254/latest", refusedBy("link-local 169.254.0.0/16")],
      ["https://100.64.0.1/hooks", refusedBy("carrier-grade NAT 100.64.0.0/10")],
      ["https://198.18.0.1/hooks", refusedBy("benchmarking 198.18.0.0/15")],
      ["https://[::ffff:10.0.0.1]/hooks", refusedBy("IPv4-mapped IPv6 ::ffff:0:0/96")],
      ["https://[::10.0.0.1]/hooks", refusedBy("IPv4-compatible IPv6 ::/96")],
      ["https://[2002:a00:1::1]/hooks", refusedBy("6to4 2002::/16")],
      ["https://[64:ff9b::a00:1]/hooks", refusedBy("NAT64 64:ff9b::/96")],
      ["https://[64:ff9b:1::a00:1]/hooks", refusedBy("local-use NAT64 64:ff9b:1::/48")],
      ["https://[fec0::1]/hooks", refusedBy("site-local fec0::/10")],
      ["https://[fd00::1]/hooks", refusedBy("unique local fc00::/7")],
      ["https://224.0.0.1/hooks", refusedBy("multicast 224.0.0.0/4")],
    ] as const) {
      const res = await create(url);
      expect(res.status, url).toBe(422);
      expect(res.body.error.details, url).toEqual([{ path: "url", message }]);
    }
    // A name: the answer names the rule, never the address it resolved to.
    const named = await create("https://localhost/hooks");
    expect(named.status).toBe(422);
    expect(named.body.error.details).toEqual([{ path: "url", message: expect.stringMatching(/^url resolves to a non-public address \(rule: loopback (127\.0\.0\.0\/8|::1\/128)\)$/) }]);
    expect(JSON.stringify(named.body)).not.toMatch(/127\.0\.0\.1|"::1"/);
    const swahili = await new RestClient(production.url, "").request("POST", "/api/v1/webhook-endpoints", { body: { url: "https://100.64.0.1/hooks" }, token: key, headers: { "accept-language": "sw" } });
    expect(swahili.body.error.details[0].message).toContain("(url resolves to a non-public address (rule: carrier-grade NAT 100.64.0.0/10))");
    expect((await create("https://93.184.215.14/hooks")).status).toBe(201);
    expect((await create("https://[2a00:1450:4001::200e]/hooks")).status).toBe(201);

    const liftedKey = await createApiKey(lifted.url);
    const allowed = await new RestClient(lifted.url, "").request("POST", "/api/v1/webhook-endpoints", { body: { url: "http://127.0.0.1:9/hooks" }, token: liftedKey });
    expect(allowed.status).toBe(201);
    for (const url of ["https://100.64.0.1/hooks", "https://[::ffff:10.0.0.1]/hooks", "https://[64:ff9b::a00:1]/hooks", "https://[fec0::1]/hooks"]) {
      expect((await new RestClient(lifted.url, "").request("POST", "/api/v1/webhook-endpoints", { body: { url }, token: liftedKey })).status, url).toBe(201);
    }
  });

  it("checks the address again when sending: a name that resolves to loopback now fails the attempt, which names the rule", async ({ launch }) => {
    const production = await launch.app({ NODE_ENV: "production" });
    // Added while its name resolved to a public address (the check at creation passed); it now resolves to loopback.
    const endpointId = randomUUID();
    const now = new Date();
    await production.deps.db.forTenant("default").webhookEndpoint.create({
      data: { id: endpointId, tenantId: "default", url: "https://localhost:9/hooks", events: allEventTypes, secretSealed: production.deps.cipher.encrypt("whsec_rebound"), createdAt: now, updatedAt: now },
    });
    await production.deps.db.transaction(production.deps.db.forTenant("default"), (tx) => recordEvent(tx, { tenantId: "default", livemode: true, type: "payment.succeeded", data: { payment: { id: "rebound" } }, at: now }));
    production.deps.webhooks.nudge();
    const key = await createApiKey(production.url);
    const listed = await waitFor(async () => {
      const res = await new RestClient(production.url, "").request("GET", "/api/v1/webhook-events", { token: key });
      return res.body.data.webhook_events[0]?.attempts.length > 0 ? res : undefined;
    });
    const [attempt] = listed.body.data.webhook_events[0].attempts;
    expect(attempt).toMatchObject({ endpoint_id: endpointId, status_code: null, error: expect.stringMatching(/^refused: the host is not a public address \(rule: loopback (127\.0\.0\.0\/8|::1\/128)\)$/) });
    expect(JSON.stringify(listed.body)).not.toMatch(/127\.0\.0\.1|"::1"/);
  });
});

describe("webhook settings", () => {
  it("reads WEBHOOK_RETRY_SCHEDULE as seconds and refuses anything else at start", () => {
    expect(readSettings({}).WEBHOOK_RETRY_SCHEDULE.slice(0, 4)).toEqual([30, 120, 600, 3600]);
    expect(readSettings({ WEBHOOK_RETRY_SCHEDULE: "0, 0,5" }).WEBHOOK_RETRY_SCHEDULE).toEqual([0, 0, 5]);
    for (const bad of ["30s", "1,,2", "-1", "1.5", "999999999"]) {
      expect(() => readSettings({ WEBHOOK_RETRY_SCHEDULE: bad }), bad).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    }
    expect(readSettings({}).WEBHOOK_ALLOW_PRIVATE_URLS).toBe(false);
  });

  it("reads the delivery caps and the failing time, and refuses a shop's share above the instance's", () => {
    expect(readSettings({})).toMatchObject({ WEBHOOK_CONCURRENCY: 20, WEBHOOK_TENANT_CONCURRENCY: 4, WEBHOOK_DISABLE_AFTER_SECONDS: 259_200 });
    expect(readSettings({ WEBHOOK_CONCURRENCY: "2", WEBHOOK_TENANT_CONCURRENCY: "1", WEBHOOK_DISABLE_AFTER_SECONDS: "5" })).toMatchObject({
      WEBHOOK_CONCURRENCY: 2,
      WEBHOOK_TENANT_CONCURRENCY: 1,
      WEBHOOK_DISABLE_AFTER_SECONDS: 5,
    });
    expect(() => readSettings({ WEBHOOK_CONCURRENCY: "4", WEBHOOK_TENANT_CONCURRENCY: "5" })).toThrow(/WEBHOOK_TENANT_CONCURRENCY must be at most WEBHOOK_CONCURRENCY/);
    for (const [name, bad] of [["WEBHOOK_CONCURRENCY", "0"], ["WEBHOOK_TENANT_CONCURRENCY", "many"], ["WEBHOOK_DISABLE_AFTER_SECONDS", "1.5"]] as const) {
      expect(() => readSettings({ [name]: bad }), `${name}=${bad}`).toThrow(new RegExp(name));
    }
  });
});
