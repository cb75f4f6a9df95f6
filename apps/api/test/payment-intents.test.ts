/**
 * Payment intents through HTTP (docs/payment-intents.md): a shop's server creates an intent with its
 * API key, a customer pays it with stkpush { phone, intent_id }, and the intent follows its payments
 * through the same apply-once path (callbacks, the reconciler) — succeeding once and only once.
 * Callbacks are sent by hand to a fake Daraja's prompts, so duplicates and their order are the test's.
 */
import { afterAll, beforeEach, describe, expect } from "vitest";
import { adminKey, RestClient, type HttpResult } from "./support/app.js";
import { testClock } from "./support/clock.js";
import { skipThisTarget } from "./support/database.js";
import { it } from "./support/fixture.js";
import { postCallback, stkCallbackBody, uniqueReceipt, type DarajaApp } from "./support/daraja.js";
import { gatewayPage, type Simulator } from "./support/simulator.js";
import { waitFor } from "./support/wait.js";

const WINDOW_SECONDS = 300;
let referenceCounter = 0;
const newReference = () => `ORD${Date.now().toString(36).slice(-5)}${(referenceCounter += 1)}`.slice(0, 12);

describe.skipIf(skipThisTarget)("payment intents", () => {
  let fake: Simulator;
  let t: DarajaApp;
  let key: string;
  const clock = testClock();
  let customer: { id: string; accessToken: string };

  it.beforeAll(async ({ launch }) => {
    // Prompts never settle by themselves: the test posts each callback.
    fake = await launch.sim({ callbacks: false });
    t = await launch.momo({
      darajaUrl: fake.url,
      now: clock.now,
      env: { MOMO_TIMEOUT_MS: "400", MOMO_UNKNOWN_PROMPT_WINDOW_SECONDS: String(WINDOW_SECONDS), RATE_LIMITS: "off" },
    });
    const created = await new RestClient(t.url, "").request("POST", "/api/v1/admin/tenants/default/api-keys", { body: { name: "Shop backend" }, headers: { authorization: `Bearer ${adminKey}` } });
    expect(created.status).toBe(201);
    key = created.body.data.key;
  });
  // Access tokens follow the service clock, which some tests move: a fresh customer per test.
  beforeEach(async () => {
    customer = await t.customer();
  });
  afterAll(() => {
    expect(fake.violations).toEqual([]);
  });

  const server = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    t.rest.request(method, path, { ...(body !== undefined ? { body } : {}), token: key, headers });
  const createIntent = async (body: Record<string, unknown> = {}) => {
    const created = await server("POST", "/api/v1/payment-intents", { amount: 250, reference: newReference(), ...body });
    expect(created.status).toBe(201);
    return created.body.data as { id: string; amount: number; reference: string; status: string };
  };
  const intent = async (id: string) => (await server("GET", `/api/v1/payment-intents/${id}`)).body.data;
  const pay = (body: Record<string, unknown>, token = customer.accessToken, headers: Record<string, string> = {}) =>
    t.rest.request("POST", "/api/momo/stkpush", { body: { phone: "0712345678", ...body }, token, headers });
  const callback = (ids: { checkoutRequestId: string; merchantRequestId: string }, resultCode: number, amount: number, receipt = uniqueReceipt()) =>
    postCallback(t.callbackUrl("stkpush"), resultCode === 0 ? stkCallbackBody(ids, 0, { amount, receipt, phone: "254712345678" }) : stkCallbackBody(ids, resultCode));
  const expectError = (res: HttpResult, status: number, code: string, path?: string) => {
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    if (path) expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
  };

  it("creates an intent with the API key (201), and reads and lists it", async () => {
    const reference = newReference();
    const created = await server("POST", "/api/v1/payment-intents", { amount: 1500, reference, description: "Order", metadata: { order: "42" }, expires_in_seconds: 3600 });
    expect(created.status).toBe(201);
    const now = clock.now();
    expect(created.body).toEqual({
      success: true,
      message: expect.any(String),
      data: {
        id: expect.stringMatching(/^pi_[A-Za-z0-9_-]{24}$/),
        livemode: true,
        amount: 1500,
        reference,
        description: "Order",
        user_id: null,
        metadata: { order: "42" },
        status: "requires_payment",
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + 3600_000).toISOString(),
        updated_at: now.toISOString(),
        payments: [],
      },
    });
    const id = created.body.data.id;
    expect(await intent(id)).toEqual(created.body.data);
    const listed = await server("GET", "/api/v1/payment-intents?status=requires_payment&limit=1");
    expect(listed.status).toBe(200);
    expect(listed.body.data.payment_intents).toEqual([created.body.data]);
    expect(listed.body.data.next_cursor === null || typeof listed.body.data.next_cursor === "string").toBe(true);
    expectError(await server("GET", "/api/v1/payment-intents?limit=101"), 422, "VALIDATION_ERROR");
    expectError(await server("GET", "/api/v1/payment-intents/pi_doesnotexist"), 404, "NOT_FOUND");
  });

  it("pages the list with next_cursor, newest first", async () => {
    const ids = [(await createIntent()).id, (await createIntent()).id, (await createIntent()).id];
    clock.advance(1);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: HttpResult = await server("GET", `/api/v1/payment-intents?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.data.payment_intents.map((i: { id: string }) => i.id));
      cursor = page.body.data.next_cursor;
    } while (cursor);
    expect(seen.filter((id) => ids.includes(id))).toHaveLength(3);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it("refuses bad input with 422 naming the field", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ reference: "A1" }, "amount"],
      [{ amount: 10, reference: "ORDER-1" }, "reference"],
      [{ amount: 10, reference: "ABCDEFGHIJKLM" }, "reference"],
      [{ amount: 10, reference: "A1", description: "ABCDEFGHIJKLMN" }, "description"],
      [{ amount: 10, reference: "A1", user_id: "nope" }, "user_id"],
      [{ amount: 10, reference: "A1", user_id: "6f1c0e56-0000-4000-8000-000000000001" }, "user_id"],
      [{ amount: 10, reference: "A1", metadata: { a: 1 } }, "metadata.a"],
      [{ amount: 10, reference: "A1", metadata: { a: "x".repeat(501) } }, "metadata.a"],
      [{ amount: 10, reference: "A1", metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, "v"])) }, "metadata"],
      [{ amount: 10, reference: "A1", expires_in_seconds: 59 }, "expires_in_seconds"],
      [{ amount: 10, reference: "A1", expires_in_seconds: 604_801 }, "expires_in_seconds"],
    ];
    for (const [body, path] of cases) expectError(await server("POST", "/api/v1/payment-intents", body), 422, "VALIDATION_ERROR", path);
  });

  it("answers a retry with the same Idempotency-Key and body with the same intent; another body is 422", async () => {
    const headers = { "idempotency-key": `intent-${Date.now()}` };
    const body = { amount: 300, reference: newReference(), metadata: { b: "2", a: "1" } };
    const first = await server("POST", "/api/v1/payment-intents", body, headers);
    const second = await server("POST", "/api/v1/payment-intents", { ...body, metadata: { a: "1", b: "2" } }, headers);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.data).toEqual(first.body.data);
    expectError(await server("POST", "/api/v1/payment-intents", { ...body, amount: 301 }, headers), 422, "VALIDATION_ERROR", "Idempotency-Key");
  });

  it("keeps a reference unique among open intents, case-insensitively (409 REFERENCE_IN_USE), free again once cancelled", async () => {
    const reference = newReference();
    const first = await createIntent({ reference: reference.toLowerCase() });
    expectError(await server("POST", "/api/v1/payment-intents", { amount: 10, reference: reference.toUpperCase() }), 409, "REFERENCE_IN_USE", "reference");
    expect((await server("POST", `/api/v1/payment-intents/${first.id}/cancel`)).status).toBe(200);
    expect((await server("POST", "/api/v1/payment-intents", { amount: 10, reference: reference.toUpperCase() })).status).toBe(201);
  });

  it("is paid by the customer: the intent's terms are sent, it is processing while the prompt is pending, and succeeds with the callback", async () => {
    const created = await createIntent({ amount: 250, description: "Shoes" });
    // The customer's reference and description do not replace the intent's.
    const pushed = await pay({ intent_id: created.id, reference: "OTHER", description: "Other" });
    expect(pushed.status).toBe(200);
    const sent = fake.received.filter((r) => r.operation === "stkpush").at(-1)!;
    expect(sent.body).toMatchObject({ Amount: 250, AccountReference: created.reference, TransactionDesc: "Shoes" });
    const processing = await intent(created.id);
    expect(processing.status).toBe("processing");
    expect(processing.payments).toEqual([
      {
        id: pushed.body.data.id,
        livemode: true,
        channel: "stk",
        status: "PENDING",
        amount: 250,
        phone: "254712345678",
        mpesa_receipt: null,
        checkout_request_id: pushed.body.data.checkoutRequestId,
        trans_id: null,
        intent_id: created.id,
        duplicate: false,
        reversal: null,
        refunded_amount: 0,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ]);
    const receipt = uniqueReceipt();
    expect((await callback(pushed.body.data, 0, 250, receipt)).status).toBe(200);
    const paid = await intent(created.id);
    expect(paid.status).toBe("succeeded");
    expect(paid.payments).toMatchObject([{ status: "SUCCESS", mpesa_receipt: receipt, duplicate: false }]);
    const payment = await server("GET", `/api/v1/payments/${pushed.body.data.id}`);
    expect(payment.status).toBe(200);
    expect(payment.body.data).toEqual(paid.payments[0]);
    expectError(await server("GET", "/api/v1/payments/6f1c0e56-0000-4000-8000-000000000001"), 404, "NOT_FOUND");
  });

  it("succeeds once and only once under duplicate and reordered callbacks", async () => {
    const created = await createIntent({ amount: 260 });
    const pushed = await pay({ intent_id: created.id });
    const receipt = uniqueReceipt();
    // The success twice at once, then a late failure for the same prompt.
    const answers = await Promise.all([callback(pushed.body.data, 0, 260, receipt), callback(pushed.body.data, 0, 260, receipt)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect((await callback(pushed.body.data, 1032, 260)).status).toBe(200);
    const paid = await intent(created.id);
    expect(paid.status).toBe("succeeded");
    expect(paid.payments).toMatchObject([{ status: "SUCCESS", mpesa_receipt: receipt, duplicate: false }]);
    const outcomes = (await t.deps.db.unscoped("test").darajaCallback.findMany({ where: { correlationId: pushed.body.data.checkoutRequestId } })).map((c) => c.outcome).sort();
    expect(outcomes).toEqual(["applied", "duplicate", "flagged"]);
    expectError(await pay({ intent_id: created.id }), 409, "INTENT_NOT_PAYABLE");

    // A failure first, then a late success: the failure holds, the success is flagged, the intent can be paid again.
    const other = await createIntent({ amount: 261 });
    const first = await pay({ intent_id: other.id });
    await callback(first.body.data, 1032, 261);
    await callback(first.body.data, 0, 261);
    const reopened = await intent(other.id);
    expect(reopened.status).toBe("requires_payment");
    expect(reopened.payments).toMatchObject([{ status: "CANCELLED" }]);
  });

  it("returns to requires_payment when the prompt is cancelled, fails or is refused, and can then be paid again", async () => {
    const created = await createIntent({ amount: 270 });
    const cancelled = await pay({ intent_id: created.id });
    await callback(cancelled.body.data, 1032, 270);
    expect((await intent(created.id)).status).toBe("requires_payment");

    clock.advance(1);
    const failed = await pay({ intent_id: created.id });
    await callback(failed.body.data, 2001, 270);
    clock.advance(1);
    expect((await intent(created.id)).status).toBe("requires_payment");

    fake.script("stkpush", () => ({ status: 400, body: { requestId: "r-1", errorCode: "400.002.02", errorMessage: "Bad Request - Invalid PhoneNumber" } }));
    expectError(await pay({ intent_id: created.id }), 502, "PAYMENT_PROVIDER_ERROR");
    expect((await intent(created.id)).status).toBe("requires_payment");

    clock.advance(1);
    customer = await t.customer();
    const paid = await pay({ intent_id: created.id });
    expect(paid.status).toBe(200);
    await callback(paid.body.data, 0, 270);
    const done = await intent(created.id);
    expect(done.status).toBe("succeeded");
    expect(done.payments.map((p: { status: string }) => p.status)).toEqual(["CANCELLED", "FAILED", "FAILED", "SUCCESS"]);
  });

  it("returns to requires_payment when a prompt whose outcome was unknown times out (the reconciler)", async () => {
    const created = await createIntent({ amount: 280 });
    fake.script("stkpush", () => gatewayPage(502));
    const pushed = await pay({ intent_id: created.id });
    expect(pushed.status).toBe(202);
    expect((await intent(created.id)).status).toBe("processing");
    clock.advance(WINDOW_SECONDS + 1);
    await t.reconciler.runOnce();
    const after = await intent(created.id);
    expect(after.payments).toMatchObject([{ status: "TIMEOUT" }]);
    // Not expired while it was processing, though a day has not passed: it requires payment again.
    expect(after.status).toBe("requires_payment");
  });

  it("takes the amount from the intent: a different amount is 422, the same one (or none) is fine", async () => {
    const created = await createIntent({ amount: 290 });
    expectError(await pay({ intent_id: created.id, amount: 291 }), 422, "VALIDATION_ERROR", "amount");
    expect((await intent(created.id)).status).toBe("requires_payment");
    const pushed = await pay({ intent_id: created.id, amount: 290, description: "Mine" });
    expect(pushed.status).toBe(200);
    expect(fake.received.filter((r) => r.operation === "stkpush").at(-1)!.body).toMatchObject({ Amount: 290, TransactionDesc: "Payment" });
    expect((await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { id: pushed.body.data.id } })).intentId).toBe(created.id);
  });

  it("is paid only by its customer when bound to one (another customer: 404)", async () => {
    const created = await createIntent({ user_id: customer.id });
    const stranger = await t.customer();
    expectError(await pay({ intent_id: created.id }, stranger.accessToken), 404, "NOT_FOUND");
    expectError(await pay({ intent_id: "pi_doesnotexist" }), 404, "NOT_FOUND");
    expect((await pay({ intent_id: created.id })).status).toBe(200);
  });

  it("answers 409 INTENT_NOT_PAYABLE while a prompt is pending and once cancelled; a keyed retry still replays", async () => {
    const created = await createIntent();
    const headers = { "idempotency-key": `pay-${Date.now()}` };
    const first = await pay({ intent_id: created.id }, customer.accessToken, headers);
    expect(first.status).toBe(200);
    const replay = await pay({ intent_id: created.id }, customer.accessToken, headers);
    expect(replay.status).toBe(200);
    expect(replay.body.data.id).toBe(first.body.data.id);
    expectError(await pay({ intent_id: created.id }), 409, "INTENT_NOT_PAYABLE");

    const closed = await createIntent();
    expect((await server("POST", `/api/v1/payment-intents/${closed.id}/cancel`)).status).toBe(200);
    expectError(await pay({ intent_id: closed.id }), 409, "INTENT_NOT_PAYABLE");
  });

  it("cancels only an intent that requires payment; a cancelled one is answered as it is", async () => {
    const open = await createIntent();
    const cancelled = await server("POST", `/api/v1/payment-intents/${open.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data.status).toBe("cancelled");
    const again = await server("POST", `/api/v1/payment-intents/${open.id}/cancel`);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(cancelled.body.data);

    const processing = await createIntent({ amount: 310 });
    const pushed = await pay({ intent_id: processing.id });
    expectError(await server("POST", `/api/v1/payment-intents/${processing.id}/cancel`), 409, "INTENT_NOT_CANCELLABLE");
    await callback(pushed.body.data, 0, 310);
    expectError(await server("POST", `/api/v1/payment-intents/${processing.id}/cancel`), 409, "INTENT_NOT_CANCELLABLE");
    expect((await intent(processing.id)).status).toBe("succeeded");
    expectError(await server("POST", "/api/v1/payment-intents/pi_doesnotexist/cancel"), 404, "NOT_FOUND");
  });

  it("takes the reference of an intent past its expires_at at once, expiring that intent first", async () => {
    const reference = newReference();
    const old = await createIntent({ reference, expires_in_seconds: 60 });
    clock.advance(60);
    // No read in between: the create finds the reference held, expires the due intent and stores its own.
    const again = await server("POST", "/api/v1/payment-intents", { amount: 10, reference });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect((await intent(old.id)).status).toBe("expired");
    expectError(await server("POST", "/api/v1/payment-intents", { amount: 10, reference }), 409, "REFERENCE_IN_USE", "reference");
  });

  it("expires at expires_at unless processing: it reads as expired, cannot be paid, frees its reference; the reconciler sweeps the rest", async () => {
    const reference = newReference();
    const created = await createIntent({ reference, expires_in_seconds: 60 });
    const swept = await createIntent({ expires_in_seconds: 60 });
    const paying = await createIntent({ amount: 320, expires_in_seconds: 60 });
    const pushed = await pay({ intent_id: paying.id });
    clock.advance(59);
    expect((await intent(created.id)).status).toBe("requires_payment");
    clock.advance(1);
    customer = await t.customer();
    const expired = await intent(created.id);
    expect(expired.status).toBe("expired");
    expect(expired.updated_at).toBe(clock.now().toISOString());
    expectError(await pay({ intent_id: created.id }), 409, "INTENT_NOT_PAYABLE");
    expect((await server("POST", `/api/v1/payment-intents/${created.id}/cancel`)).body.data.status).toBe("expired");
    expect((await server("POST", "/api/v1/payment-intents", { amount: 10, reference })).status).toBe(201);

    // Processing past expires_at: not expired, and its success still counts.
    expect((await intent(paying.id)).status).toBe("processing");
    await callback(pushed.body.data, 0, 320);
    expect((await intent(paying.id)).status).toBe("succeeded");

    clock.advance(1);
    const another = await createIntent({ expires_in_seconds: 60 });
    clock.advance(60);
    await t.reconciler.runOnce();
    const row = await t.deps.db.unscoped("test").paymentIntent.findUniqueOrThrow({ where: { id: another.id } });
    expect(row.status).toBe("expired");
    expect((await t.deps.db.unscoped("test").paymentIntent.findUniqueOrThrow({ where: { id: swept.id } })).status).toBe("expired");

    // Each expiry is reported once, whether a read or the reconciler expired it; the processing one never.
    const events = (await server("GET", "/api/v1/webhook-events?limit=100")).body.data.webhook_events as { type: string; data: { payment_intent?: { id: string; status: string } } }[];
    const expiredIds = events.filter((event) => event.type === "payment_intent.expired").map((event) => event.data.payment_intent!.id);
    for (const id of [created.id, swept.id, another.id]) expect(expiredIds.filter((expiredId) => expiredId === id), id).toHaveLength(1);
    expect(expiredIds).not.toContain(paying.id);
    expect(events.find((event) => event.type === "payment_intent.expired" && event.data.payment_intent!.id === created.id)!.data.payment_intent!.status).toBe("expired");
  });

  it("stores a second success for an intent already paid as a duplicate and leaves the intent; the database allows one success that counts", async () => {
    const created = await createIntent({ amount: 330 });
    const pushed = await pay({ intent_id: created.id });
    // Paid meanwhile by another payment (as a C2B payment would).
    const db = t.deps.db.unscoped("test");
    const paidAt = clock.now();
    await db.paymentIntent.update({ where: { id: created.id }, data: { status: "succeeded", updatedAt: paidAt } });
    await callback(pushed.body.data, 0, 330);
    const after = await intent(created.id);
    expect(after.status).toBe("succeeded");
    expect(after.updated_at).toBe(paidAt.toISOString());
    expect(after.payments).toMatchObject([{ status: "SUCCESS", duplicate: true }]);

    const counted = await createIntent({ amount: 340 });
    const paid = await pay({ intent_id: counted.id });
    await callback(paid.body.data, 0, 340);
    const row = await db.payment.findUniqueOrThrow({ where: { id: paid.body.data.id } });
    const { id: _id, checkoutRequestId: _c, merchantRequestId: _m, mpesaReceipt: _r, idempotencyKey: _k, ...copy } = row;
    await expect(db.payment.create({ data: { ...copy } })).rejects.toThrow();
    await expect(db.paymentIntent.update({ where: { id: counted.id }, data: { status: "bogus" } })).rejects.toThrow();
  });

  it("refuses stkpush without intent_id when the shop sets momo.requireIntent", async () => {
    const admin = (settings: unknown) =>
      new RestClient(t.url, "").request("PATCH", "/api/v1/admin/tenants/default", { body: { settings }, headers: { authorization: `Bearer ${adminKey}` } });
    expect((await admin({ momo: { requireIntent: true } })).status).toBe(200);
    try {
      expectError(await pay({ amount: 100 }), 422, "VALIDATION_ERROR", "intent_id");
      const created = await createIntent({ amount: 350 });
      expect((await pay({ intent_id: created.id })).status).toBe(200);
    } finally {
      expect((await admin({ momo: { requireIntent: null } })).status).toBe(200);
    }
    expect((await pay({ amount: 100 })).status).toBe(200);
    expectError(await pay({}), 422, "VALIDATION_ERROR", "amount");
  });
});

describe.skipIf(skipThisTarget)("payment intents (Daraja simulator)", () => {
  let sim: Simulator;
  let t: DarajaApp;
  let key: string;
  it.beforeAll(async ({ launch }) => {
    sim = await launch.sim({ callbackDelayMs: 100 });
    t = await launch.momo({ darajaUrl: sim.url });
    const created = await new RestClient(t.url, "").request("POST", "/api/v1/admin/tenants/default/api-keys", { body: { name: "Shop backend" }, headers: { authorization: `Bearer ${adminKey}` } });
    key = created.body.data.key;
  });

  const intentOf = async (id: string) => (await t.rest.request("GET", `/api/v1/payment-intents/${id}`, { token: key })).body.data;

  it("a server creates an intent, a customer pays it and it succeeds once under a duplicated callback; a cancelled prompt lets it be paid again", async () => {
    const customer = await t.customer();
    const created = await t.rest.request("POST", "/api/v1/payment-intents", { body: { amount: 700, reference: newReference(), user_id: customer.id }, token: key });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;

    await sim.nextOutcome("cancelled");
    const first = await t.rest.request("POST", "/api/momo/stkpush", { body: { phone: "0712345678", intent_id: id }, token: customer.accessToken });
    expect(first.status).toBe(200);
    await waitFor(async () => ((await intentOf(id)).status === "requires_payment" ? true : undefined));

    // The simulator delivers this prompt's success callback twice.
    await sim.nextOutcome("duplicate_callback");
    const second = await t.rest.request("POST", "/api/momo/stkpush", { body: { phone: "0712345678", intent_id: id }, token: customer.accessToken });
    expect(second.status).toBe(200);
    await waitFor(async () => {
      const stored = await t.deps.db.unscoped("test").darajaCallback.findMany({ where: { correlationId: second.body.data.checkoutRequestId } });
      return stored.length === 2 && stored.every((c) => c.outcome !== "accepted") ? stored : undefined;
    });
    const paid = await intentOf(id);
    expect(paid.status).toBe("succeeded");
    expect(paid.payments).toMatchObject([
      { id: first.body.data.id, status: "CANCELLED", duplicate: false },
      { id: second.body.data.id, status: "SUCCESS", amount: 700, mpesa_receipt: expect.stringMatching(/^[A-Z0-9]{10}$/), duplicate: false },
    ]);
  });
});
