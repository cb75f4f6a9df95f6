/**
 * Payment intents and their credentials (docs/payment-intents.md#errors): the intent API takes API keys
 * only (a customer token: 403), stkpush takes customer tokens only (a key: 403), and nothing of one shop
 * or one customer is reachable from another (404, the same answer as an id that does not exist).
 */
import { TRPCClientError } from "@trpc/client";
import { describe, expect } from "vitest";
import { adminKey, registerUser, RestClient, trpcClient, type HttpResult } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { it } from "./support/fixture.js";
import type { DarajaApp } from "./support/daraja.js";

describe.skipIf(skipThisTarget)("payment intents: credentials and isolation", () => {
  let t: DarajaApp;
  let key: string;
  let keyB: string;
  const admin = (method: string, path: string, body?: unknown) =>
    new RestClient(t.url, "").request(method, path, { ...(body !== undefined ? { body } : {}), headers: { authorization: `Bearer ${adminKey}` } });
  const createKey = async (tenantId: string) => {
    const created = await admin("POST", `/api/v1/admin/tenants/${tenantId}/api-keys`, { name: "Backend" });
    expect(created.status).toBe(201);
    return created.body.data as { id: string; key: string };
  };
  const as = (token: string, method: string, path: string, body?: unknown) => new RestClient(t.url, "").request(method, path, { token, ...(body !== undefined ? { body } : {}) });
  const expectError = (res: HttpResult, status: number, code: string) => {
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
  };
  let reference = 0;
  const createIntent = async (body: Record<string, unknown> = {}, withKey = key) => {
    const created = await as(withKey, "POST", "/api/v1/payment-intents", { amount: 100, reference: `SEC${Date.now().toString(36).slice(-4)}${(reference += 1)}`, ...body });
    expect(created.status).toBe(201);
    return created.body.data as { id: string };
  };

  it.beforeAll(async ({ launch }) => {
    const sim = await launch.sim({ callbacks: false });
    t = await launch.momo({ darajaUrl: sim.url, env: { RATE_LIMITS: "off" } });
    expect((await admin("POST", "/api/v1/admin/tenants", { id: "shop-b", name: "Shop B" })).status).toBe(200);
    key = (await createKey("default")).key;
    keyB = (await createKey("shop-b")).key;
  });

  it("answers 403 FORBIDDEN to a customer's access token on every intent operation, over REST and tRPC", async () => {
    const customer = await t.customer();
    const { id } = await createIntent();
    for (const [method, path, body] of [
      ["POST", "/api/v1/payment-intents", { amount: 100, reference: "X1" }],
      ["GET", "/api/v1/payment-intents"],
      ["GET", `/api/v1/payment-intents/${id}`],
      ["POST", `/api/v1/payment-intents/${id}/cancel`],
      ["GET", "/api/v1/payments/6f1c0e56-0000-4000-8000-000000000001"],
    ] as const) {
      expectError(await as(customer.accessToken, method, path, body), 403, "FORBIDDEN");
    }
    const trpc = trpcClient(t.url, () => ({ authorization: `Bearer ${customer.accessToken}` }));
    const refused = (await trpc.paymentIntents.get.query({ id }).catch((error: unknown) => error)) as TRPCClientError<any>;
    expect(refused).toBeInstanceOf(TRPCClientError);
    expect(refused.data.httpStatus).toBe(403);
    expect((await as(key, "GET", `/api/v1/payment-intents/${id}`)).body.data.status).toBe("requires_payment");
  });

  it("answers 403 FORBIDDEN to an API key on stkpush, with or without intent_id", async () => {
    const { id } = await createIntent();
    expectError(await as(key, "POST", "/api/momo/stkpush", { phone: "0712345678", intent_id: id }), 403, "FORBIDDEN");
    expectError(await as(key, "POST", "/api/momo/stkpush", { phone: "0712345678", amount: 10 }), 403, "FORBIDDEN");
    expect((await as(key, "GET", `/api/v1/payment-intents/${id}`)).body.data.status).toBe("requires_payment");
  });

  it("refuses no key (401 AUTH_REQUIRED), a wrong one and a revoked one (401 INVALID_TOKEN)", async () => {
    expectError(await new RestClient(t.url, "").get("/api/v1/payment-intents"), 401, "AUTH_REQUIRED");
    expectError(await as(`mk_${"A".repeat(43)}`, "GET", "/api/v1/payment-intents"), 401, "INVALID_TOKEN");
    const revoked = await createKey("default");
    expect((await as(revoked.key, "GET", "/api/v1/payment-intents")).status).toBe(200);
    expect((await admin("DELETE", `/api/v1/admin/tenants/default/api-keys/${revoked.id}`)).status).toBe(200);
    expectError(await as(revoked.key, "POST", "/api/v1/payment-intents", { amount: 100, reference: "R1" }), 401, "INVALID_TOKEN");
  });

  it("keeps each shop's intents and payments its own: another shop's key and customers get 404", async () => {
    const customer = await t.customer();
    const { id } = await createIntent({ amount: 120 });
    const pushed = await as(customer.accessToken, "POST", "/api/momo/stkpush", { phone: "0712345678", intent_id: id });
    expect(pushed.status).toBe(200);
    const missing = await as(keyB, "GET", "/api/v1/payment-intents/pi_doesnotexist");
    expectError(missing, 404, "NOT_FOUND");
    const foreign = await as(keyB, "GET", `/api/v1/payment-intents/${id}`);
    expectError(foreign, 404, "NOT_FOUND");
    expect(foreign.body).toEqual(missing.body);
    expectError(await as(keyB, "POST", `/api/v1/payment-intents/${id}/cancel`), 404, "NOT_FOUND");
    expectError(await as(keyB, "GET", `/api/v1/payments/${pushed.body.data.id}`), 404, "NOT_FOUND");
    expect((await as(keyB, "GET", "/api/v1/payment-intents?limit=100")).body.data.payment_intents.map((i: { id: string }) => i.id)).not.toContain(id);
    expect((await as(key, "GET", `/api/v1/payments/${pushed.body.data.id}`)).status).toBe(200);

    // A customer of shop B cannot pay shop A's intent, and shop A cannot bind an intent to shop B's customer.
    const open = await createIntent();
    const shopBCustomer = await registerUser(new RestClient(t.url, "shop-b"));
    expectError(await as(shopBCustomer.accessToken, "POST", "/api/momo/stkpush", { phone: "0712345678", intent_id: open.id }), 404, "NOT_FOUND");
    const bound = await as(key, "POST", "/api/v1/payment-intents", { amount: 100, reference: "BOUNDB1", user_id: shopBCustomer.id });
    expectError(bound, 422, "VALIDATION_ERROR");
    expect((await as(key, "GET", `/api/v1/payment-intents/${open.id}`)).body.data.status).toBe("requires_payment");
  });

  it("lets only its customer pay an intent bound to one: another customer's 404 equals an unknown id's", async () => {
    const owner = await t.customer();
    const stranger = await t.customer();
    const { id } = await createIntent({ user_id: owner.id });
    const pay = (token: string, intentId: string) => as(token, "POST", "/api/momo/stkpush", { phone: "0712345678", intent_id: intentId });
    const unknown = await pay(stranger.accessToken, "pi_doesnotexist");
    const refused = await pay(stranger.accessToken, id);
    expectError(refused, 404, "NOT_FOUND");
    expect(refused.body).toEqual(unknown.body);
    expect((await as(key, "GET", `/api/v1/payment-intents/${id}`)).body.data.status).toBe("requires_payment");
    expect((await pay(owner.accessToken, id)).status).toBe(200);
  });
});
