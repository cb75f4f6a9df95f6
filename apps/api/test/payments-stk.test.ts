/**
 * STK push and query through the HTTP surface, against the Daraja simulator (apps/daraja-sim): every
 * outcome the simulator can produce, each settled by its real callback (docs/mpesa.md).
 */
import { TRPCClientError } from "@trpc/client";
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { RestClient, trpcClient } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { tenantParameter, tenantToken, type DarajaApp } from "./support/daraja.js";
import { createShop, shopAdmin } from "./support/shop-daraja.js";
import type { Simulator } from "./support/simulator.js";
import { waitFor } from "./support/wait.js";

describe.skipIf(skipThisTarget)("STK push and query (simulator)", () => {
  let sim: Simulator;
  let t: DarajaApp;
  it.beforeAll(async ({ launch }) => {
    // Long enough for "still open at Daraja" to be observable under load.
    sim = await launch.sim({ callbackDelayMs: 400 });
    t = await launch.momo({ darajaUrl: sim.url });
  });

  async function push(token: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
    return t.rest.request("POST", "/api/momo/stkpush", { body, token, headers });
  }

  async function settled(token: string, checkoutRequestId: string) {
    return waitFor(async () => {
      const result = await t.rest.get(`/api/momo/payments/${checkoutRequestId}`, token);
      return result.body.data.payment.status !== "PENDING" ? result.body.data.payment : undefined;
    });
  }

  it("sends a prompt, the callback settles it SUCCESS with the receipt, and stkquery answers from the store", async () => {
    const user = await t.customer();
    const pushed = await push(user.accessToken, { phone: "0712345678", amount: 100, reference: "ORDER-1", description: "Shoes" });
    expect(pushed.status).toBe(200);
    expect(pushed.body).toMatchObject({ success: true, data: { status: "PENDING", customerMessage: expect.any(String) } });
    const { checkoutRequestId, merchantRequestId } = pushed.body.data;
    expect(checkoutRequestId).toMatch(/^ws_CO_/);
    expect(merchantRequestId).toEqual(expect.any(String));

    const payment = await settled(user.accessToken, checkoutRequestId);
    expect(payment).toMatchObject({ status: "SUCCESS", amount: 100, phone: "254712345678", reference: "ORDER-1", description: "Shoes", resultCode: "0", paidAmount: 100 });
    expect(payment.mpesaReceipt).toMatch(/^[A-Z0-9]{10}$/);

    const before = (await sim.requests()).requests.filter((r) => r.path === "/mpesa/stkpushquery/v1/query").length;
    const query = await t.rest.post("/api/momo/stkquery", { checkoutRequestId }, user.accessToken);
    expect(query.status).toBe(200);
    expect(query.body).toEqual({ success: true, data: { checkoutRequestId, resultCode: "0", resultDesc: expect.any(String), status: "SUCCESS" } });
    const after = (await sim.requests()).requests.filter((r) => r.path === "/mpesa/stkpushquery/v1/query").length;
    expect(after).toBe(before);

    const stored = await t.deps.db.unscoped("test").darajaCallback.findMany({ where: { correlationId: checkoutRequestId } });
    expect(stored.map((c) => c.outcome)).toEqual(["applied"]);
  });

  it.each([
    { amount: 2, status: "CANCELLED", resultCode: "1032" },
    { amount: 3, status: "TIMEOUT", resultCode: "1037" },
    { amount: 4, status: "FAILED", resultCode: "1" },
    { amount: 5, status: "FAILED", resultCode: "2001" },
  ])("settles a prompt with result $resultCode as $status, without a receipt", async ({ amount, status, resultCode }) => {
    const user = await t.customer();
    const pushed = await push(user.accessToken, { phone: "254712345678", amount });
    expect(pushed.status).toBe(200);
    const payment = await settled(user.accessToken, pushed.body.data.checkoutRequestId);
    expect(payment).toMatchObject({ status, resultCode, mpesaReceipt: null, paidAmount: null });
    expect(payment.settledAt).not.toBeNull();
    const query = await t.rest.post("/api/momo/stkquery", { checkoutRequestId: pushed.body.data.checkoutRequestId }, user.accessToken);
    expect(query.body.data).toMatchObject({ status, resultCode });
  });

  it("keeps a payment with an unrecognised ResultCode PENDING for reconciliation (callback stored as accepted)", async () => {
    const user = await t.customer();
    const pushed = await push(user.accessToken, { phone: "0712345678", amount: 9 });
    const { checkoutRequestId } = pushed.body.data;
    // Stored first (accepted, no payment yet), then applied: wait for the application.
    const callback = await waitFor(() => t.deps.db.unscoped("test").darajaCallback.findFirst({ where: { correlationId: checkoutRequestId, paymentId: { not: null } } }));
    expect(callback).toMatchObject({ kind: "stkpush", outcome: "accepted", flagReason: null });
    expect(callback.paymentId).not.toBeNull();
    const payment = await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { checkoutRequestId } });
    expect(payment).toMatchObject({ status: "PENDING", resultCode: null });
    expect(payment.lastError).toContain("5555");
    // stkquery asks Daraja, which also says 5555: still PENDING, Daraja's words passed on.
    const query = await t.rest.post("/api/momo/stkquery", { checkoutRequestId }, user.accessToken);
    expect(query.body.data).toMatchObject({ checkoutRequestId, status: "PENDING", resultCode: "5555" });
  });

  it("applies a callback delivered twice only once (the second is recorded as duplicate)", async () => {
    const user = await t.customer();
    const pushed = await push(user.accessToken, { phone: "0712345678", amount: 7 });
    const { checkoutRequestId } = pushed.body.data;
    const callbacks = await waitFor(async () => {
      const rows = await t.deps.db.unscoped("test").darajaCallback.findMany({ where: { correlationId: checkoutRequestId, paymentId: { not: null } }, orderBy: { receivedAt: "asc" } });
      return rows.length === 2 ? rows : undefined;
    });
    expect(callbacks.map((c) => c.outcome).sort()).toEqual(["applied", "duplicate"]);
    expect(callbacks[0]!.rawBody).toBe(callbacks[1]!.rawBody);
    const payment = await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { checkoutRequestId } });
    expect(payment).toMatchObject({ status: "SUCCESS", paidAmount: 7 });
  });

  it("asks Daraja while the payment is pending, and settles it from Daraja's answer", async () => {
    const user = await t.customer();
    await sim.nextOutcome("no_callback");
    const pushed = await push(user.accessToken, { phone: "0712345678", amount: 60 });
    const { checkoutRequestId } = pushed.body.data;
    // Straight away the prompt is still open at Daraja.
    const early = await t.rest.post("/api/momo/stkquery", { checkoutRequestId }, user.accessToken);
    expect(early.status).toBe(200);
    expect(early.body.data).toMatchObject({ checkoutRequestId, status: "PENDING", resultCode: null });
    // Once it has settled at Daraja (no callback ever comes), the query settles it here.
    const answer = await waitFor(async () => {
      const result = await t.rest.post("/api/momo/stkquery", { checkoutRequestId }, user.accessToken);
      return result.body.data.status !== "PENDING" ? result.body.data : undefined;
    });
    expect(answer).toEqual({ checkoutRequestId, resultCode: "0", resultDesc: expect.any(String), status: "SUCCESS" });
    const payment = await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { checkoutRequestId } });
    expect(payment).toMatchObject({ status: "SUCCESS", resultCode: "0", mpesaReceipt: null });
  });

  it("answers 202 PENDING (outcome unknown, never FAILED) when Daraja answers the push with an HTTP 500, even with its envelope", async () => {
    const user = await t.customer();
    const locked = await push(user.accessToken, { phone: "0712345678", amount: 8 });
    expect(locked.status).toBe(202);
    expect(locked.body.data).toEqual({ id: expect.any(String), checkoutRequestId: null, merchantRequestId: null, status: "PENDING" });
    const row = await t.deps.db.unscoped("test").payment.findFirstOrThrow({ where: { userId: user.id } });
    expect(row).toMatchObject({ status: "PENDING", amount: 8, checkoutRequestId: null });
    expect(row.lastError).toContain("500.001.1001");
  });

  it("sends the shop's name and 'Payment' when reference and description are absent", async () => {
    const user = await t.customer();
    const pushed = await push(user.accessToken, { phone: "0712345678", amount: 11, reference: "", description: "  " });
    expect(pushed.status).toBe(200);
    const sent = (await sim.requests()).requests.filter((r) => r.path === "/mpesa/stkpush/v1/processrequest").at(-1)!;
    expect(sent.body).toMatchObject({ AccountReference: "MtejaShop", TransactionDesc: "Payment", Amount: 11, PartyA: "254712345678", PhoneNumber: "254712345678" });
    expect(sent.body.CallBackURL).toContain(`token=${tenantToken("default")}&tenant=${tenantParameter("default")}`);
    expect(sent.body.CallBackURL).not.toContain(t.secret);
  });

  it.each([
    [{ phone: "0712345678" }, "amount"],
    [{ phone: "0712345678", amount: 0 }, "amount"],
    [{ phone: "0712345678", amount: 250_001 }, "amount"],
    [{ phone: "0712345678", amount: 10.5 }, "amount"],
    [{ phone: "0712345678", amount: "100" }, "amount"],
    [{ phone: "0202345678", amount: 10 }, "phone"],
    [{ amount: 10 }, "phone"],
    [{ phone: "0712345678", amount: 10, reference: "ABCDEFGHIJKLM" }, "reference"],
    [{ phone: "0712345678", amount: 10, description: "ABCDEFGHIJKLMN" }, "description"],
  ])("rejects %j with VALIDATION_ERROR on %s, before anything is stored or sent", async (body, path) => {
    const user = await t.customer();
    const result = await push(user.accessToken, body);
    expect(result.status).toBe(422);
    expect(result.body.error.code).toBe("VALIDATION_ERROR");
    expect(result.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    expect(await t.deps.db.unscoped("test").payment.count({ where: { userId: user.id } })).toBe(0);
  });

  it("accepts the boundaries: 1 and 250,000 shillings, a 12-character reference and a 13-character description", async () => {
    const user = await t.customer();
    expect((await push(user.accessToken, { phone: "+254712345678", amount: 1, reference: "ABCDEFGHIJKL", description: "ABCDEFGHIJKLM" })).status).toBe(200);
    expect((await push(user.accessToken, { phone: "0112345678", amount: 250_000 })).status).toBe(200);
  });

  it("answers a retry with the same Idempotency-Key with the first result: one prompt at Daraja", async () => {
    const user = await t.customer();
    const key = `order-${Date.now()}`;
    const count = async () => (await sim.requests()).requests.filter((r) => r.path === "/mpesa/stkpush/v1/processrequest").length;
    const before = await count();
    const first = await push(user.accessToken, { phone: "0712345678", amount: 120 }, { "idempotency-key": key });
    const second = await push(user.accessToken, { phone: "0712345678", amount: 120 }, { "idempotency-key": key });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body.data.checkoutRequestId).toBe(first.body.data.checkoutRequestId);
    expect(second.body.data.merchantRequestId).toBe(first.body.data.merchantRequestId);
    expect(await count()).toBe(before + 1);
    expect(await t.deps.db.unscoped("test").payment.count({ where: { userId: user.id } })).toBe(1);

    const changed = await push(user.accessToken, { phone: "0712345678", amount: 121 }, { "idempotency-key": key });
    expect(changed.status).toBe(422);
    expect(changed.body.error).toMatchObject({ code: "VALIDATION_ERROR", details: [{ path: "Idempotency-Key" }] });

    // The key is per customer: another customer's identical key is a new payment.
    const other = await t.customer();
    const theirs = await push(other.accessToken, { phone: "0712345678", amount: 120 }, { "idempotency-key": key });
    expect(theirs.body.data.checkoutRequestId).not.toBe(first.body.data.checkoutRequestId);
    expect(await count()).toBe(before + 2);
  });

  it("answers concurrent requests with one Idempotency-Key with one payment", async () => {
    const user = await t.customer();
    const key = `burst-${Date.now()}`;
    const results = await Promise.all([1, 2, 3].map(() => push(user.accessToken, { phone: "0712345678", amount: 130 }, { "idempotency-key": key })));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(new Set(results.map((r) => r.body.data.checkoutRequestId)).size).toBe(1);
    expect(await t.deps.db.unscoped("test").payment.count({ where: { userId: user.id } })).toBe(1);
  });

  it("limits prompts to 10 per customer per minute (the 11th is RATE_LIMITED with Retry-After); replays are not counted", async () => {
    const user = await t.customer();
    for (let i = 0; i < 10; i++) {
      expect((await push(user.accessToken, { phone: "0712345678", amount: 20 + i }, { "idempotency-key": `limit-${i}` })).status).toBe(200);
    }
    const replay = await push(user.accessToken, { phone: "0712345678", amount: 20 }, { "idempotency-key": "limit-0" });
    expect(replay.status).toBe(200);
    const eleventh = await push(user.accessToken, { phone: "0712345678", amount: 40 });
    expect(eleventh.status).toBe(429);
    expect(eleventh.body.error.code).toBe("RATE_LIMITED");
    expect(Number(eleventh.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await t.deps.db.unscoped("test").payment.count({ where: { userId: user.id } })).toBe(10);
    // Another customer is not affected.
    const other = await t.customer();
    expect((await push(other.accessToken, { phone: "0712345678", amount: 40 })).status).toBe(200);
  });

  it("lets a customer query and read only their own payments (NOT_FOUND otherwise); an admin sees the tenant's", async () => {
    const owner = await t.customer();
    const stranger = await t.customer();
    const pushed = await push(owner.accessToken, { phone: "0712345678", amount: 15 });
    const { checkoutRequestId } = pushed.body.data;
    const query = await t.rest.post("/api/momo/stkquery", { checkoutRequestId }, stranger.accessToken);
    expect(query.status).toBe(404);
    expect(query.body.error.code).toBe("NOT_FOUND");
    expect((await t.rest.get(`/api/momo/payments/${checkoutRequestId}`, stranger.accessToken)).status).toBe(404);
    expect((await t.rest.post("/api/momo/stkquery", { checkoutRequestId: "ws_CO_nonexistent" }, owner.accessToken)).status).toBe(404);
    const list = await t.rest.get("/api/momo/payments", stranger.accessToken);
    expect(list.body.data.payments).toEqual([]);

    const admin = await t.admin();
    expect((await t.rest.get(`/api/momo/payments/${checkoutRequestId}`, admin.accessToken)).body.data.payment.userId).toBe(owner.id);
    expect((await t.rest.post("/api/momo/stkquery", { checkoutRequestId }, admin.accessToken)).status).toBe(200);
  });

  it("shows another shop's admin none of this shop's payments: NOT_FOUND by checkoutRequestId (read and stkquery), an empty list", async () => {
    const owner = await t.customer();
    const { checkoutRequestId } = (await push(owner.accessToken, { phone: "0712345678", amount: 16 })).body.data;
    await createShop(t, "stk-shop-b");
    const foreignAdmin = await shopAdmin(t, "stk-shop-b");
    const shopB = new RestClient(t.url, "stk-shop-b");
    const read = await shopB.get(`/api/momo/payments/${checkoutRequestId}`, foreignAdmin.accessToken);
    expect(read.status).toBe(404);
    expect(read.body.error.code).toBe("NOT_FOUND");
    const query = await shopB.post("/api/momo/stkquery", { checkoutRequestId }, foreignAdmin.accessToken);
    expect(query.status).toBe(404);
    expect(query.body.error.code).toBe("NOT_FOUND");
    expect((await shopB.get("/api/momo/payments", foreignAdmin.accessToken)).body.data).toEqual({ payments: [], nextCursor: null });
  });

  it("needs an access token, and X-Tenant-ID (when sent) must be the token's tenant", async () => {
    const user = await t.customer();
    const anonymous = await t.rest.request("POST", "/api/momo/stkpush", { body: { phone: "0712345678", amount: 10 } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe("AUTH_REQUIRED");
    const wrongTenant = await push(user.accessToken, { phone: "0712345678", amount: 10 }, { "x-tenant-id": "another-shop" });
    expect(wrongTenant.status).toBe(401);
    expect(wrongTenant.body.error.code).toBe("INVALID_TOKEN");
    expect(await t.deps.db.unscoped("test").payment.count({ where: { userId: user.id } })).toBe(0);
  });

  it("lists payments newest first with status and date filters and cursor pagination", async () => {
    const user = await t.customer();
    const ids: string[] = [];
    for (const amount of [31, 2, 33]) {
      ids.push((await push(user.accessToken, { phone: "0712345678", amount })).body.data.checkoutRequestId);
    }
    await settled(user.accessToken, ids[1]!);
    const page1 = await t.rest.get("/api/momo/payments?limit=2", user.accessToken);
    expect(page1.status).toBe(200);
    expect(page1.body.data.payments.map((p: { checkoutRequestId: string }) => p.checkoutRequestId)).toEqual([ids[2], ids[1]]);
    expect(page1.body.data.nextCursor).toEqual(expect.any(String));
    const page2 = await t.rest.get(`/api/momo/payments?limit=2&cursor=${page1.body.data.nextCursor}`, user.accessToken);
    expect(page2.body.data.payments.map((p: { checkoutRequestId: string }) => p.checkoutRequestId)).toEqual([ids[0]]);
    expect(page2.body.data.nextCursor).toBeNull();
    const cancelled = await t.rest.get("/api/momo/payments?status=CANCELLED", user.accessToken);
    expect(cancelled.body.data.payments.map((p: { checkoutRequestId: string }) => p.checkoutRequestId)).toEqual([ids[1]]);
    const future = await t.rest.get(`/api/momo/payments?from=${encodeURIComponent(new Date(Date.now() + 3600_000).toISOString())}`, user.accessToken);
    expect(future.body.data.payments).toEqual([]);
    expect((await t.rest.get("/api/momo/payments?status=PAID", user.accessToken)).status).toBe(422);
    expect((await t.rest.get("/api/momo/payments?cursor=garbage", user.accessToken)).status).toBe(422);
    expect((await t.rest.get("/api/momo/payments?limit=1000", user.accessToken)).status).toBe(422);
  });

  it("serves the same operations over tRPC with the same codes", async () => {
    const user = await t.customer();
    const client = trpcClient(t.url, () => ({ authorization: `Bearer ${user.accessToken}`, "x-tenant-id": "default" }));
    const pushed = await client.payments.stkPush.mutate({ phone: "0712345678", amount: 101 });
    expect(pushed).toMatchObject({ success: true, data: { status: "PENDING" } });
    const payment = await settled(user.accessToken, pushed.data.checkoutRequestId!);
    expect(payment.status).toBe("SUCCESS");
    const queried = await client.payments.stkQuery.mutate({ checkoutRequestId: pushed.data.checkoutRequestId! });
    expect(queried.data).toMatchObject({ status: "SUCCESS", resultCode: "0" });
    const listed = await client.payments.list.query({ limit: 5 });
    expect(listed.data.payments[0]!.checkoutRequestId).toBe(pushed.data.checkoutRequestId);

    const invalid = await client.payments.stkPush.mutate({ phone: "0712345678", amount: 0 }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(TRPCClientError);
    expect((invalid as TRPCClientError<any>).shape.error.code).toBe("VALIDATION_ERROR");
    expect((invalid as TRPCClientError<any>).data.httpStatus).toBe(422);
    const missing = await client.payments.stkQuery.mutate({ checkoutRequestId: "ws_CO_missing" }).catch((e: unknown) => e);
    expect((missing as TRPCClientError<any>).shape.error.code).toBe("NOT_FOUND");
    expect((missing as TRPCClientError<any>).data.httpStatus).toBe(404);
  });
});
