/**
 * The limits on work a payment request makes: stkquery per customer (each one may be a call to
 * Daraja), and STK prompts per phone number of a shop (prompt spam, a subscriber's M-Pesa menu locked
 * by prompts). Low rules through RATE_LIMIT_RULES; both transports.
 */
import { TRPCClientError } from "@trpc/client";
import { afterAll, describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import type { Simulator } from "./support/simulator.js";
import { adminKey, registerUser, RestClient, trpcClient, type HttpResult } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import type { DarajaApp } from "./support/daraja.js";

function expectRateLimited(result: HttpResult, maxSeconds: number) {
  expect(result.status).toBe(429);
  expect(result.body).toMatchObject({ success: false, error: { code: "RATE_LIMITED" } });
  const retryAfter = Number(result.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(maxSeconds);
  return retryAfter;
}

function expectTrpcRateLimited(error: unknown) {
  expect(error).toBeInstanceOf(TRPCClientError);
  const e = error as TRPCClientError<any>;
  expect(e.shape.error.code).toBe("RATE_LIMITED");
  expect(e.data.httpStatus).toBe(429);
  expect(e.data.retryAfter).toBeGreaterThan(0);
}

it.override({ simOptions: { callbacks: false } });

describe.skipIf(skipThisTarget)("payment request limits", () => {
  let fake: Simulator;
  it.beforeAll(async ({ sim }) => {
    fake = sim;
  });
  afterAll(async () => {
    expect(fake.violations).toEqual([]);
  });

  describe("per customer and per phone per minute", () => {
    let t: DarajaApp;
    it.beforeAll(async ({ launch }) => {
      t = await launch.momo({
        darajaUrl: fake.url,
        env: { RATE_LIMIT_RULES: "stkquery_per_user=3/60,stk_prompts_per_phone_minute=2/60,stkpush_per_user=3/60" },
      });
    });

    const push = (token: string, phone: string) => t.rest.post("/api/momo/stkpush", { phone, amount: 100 }, token);

    it("stkquery: a customer's 4th query within the window is 429 with Retry-After, on REST and tRPC, and Daraja is not asked", async () => {
      const user = await t.customer();
      const pushed = await push(user.accessToken, "0711000001");
      expect(pushed.status).toBe(200);
      const { checkoutRequestId } = pushed.body.data;

      const queriesBefore = fake.count("stkquery");
      for (let i = 0; i < 3; i++) expect((await t.rest.post("/api/momo/stkquery", { checkoutRequestId }, user.accessToken)).status).toBe(200);
      expect(fake.count("stkquery")).toBe(queriesBefore + 3);

      expectRateLimited(await t.rest.post("/api/momo/stkquery", { checkoutRequestId }, user.accessToken), 60);
      const client = trpcClient(t.url, () => ({ authorization: `Bearer ${user.accessToken}` }));
      expectTrpcRateLimited(await client.payments.stkQuery.mutate({ checkoutRequestId }).catch((e: unknown) => e));
      expect(fake.count("stkquery")).toBe(queriesBefore + 3);

      // Another customer has a budget of their own.
      const other = await t.customer();
      const theirs = await push(other.accessToken, "0711000002");
      expect((await t.rest.post("/api/momo/stkquery", { checkoutRequestId: theirs.body.data.checkoutRequestId }, other.accessToken)).status).toBe(200);
    });

    it("STK prompts: a phone gets at most 2 (here) a minute, whoever asks and however the number is written; refused before Daraja and before any row", async () => {
      const [a, b, c] = [await t.customer(), await t.customer(), await t.customer()];
      expect((await push(a.accessToken, "0722000001")).status).toBe(200);
      expect((await push(b.accessToken, "254722000001")).status).toBe(200);

      const promptsBefore = fake.count("stkpush");
      const rowsBefore = await t.deps.db.unscoped("test").payment.count({ where: { phone: "254722000001" } });
      expectRateLimited(await push(c.accessToken, "+254722000001"), 60);
      const client = trpcClient(t.url, () => ({ authorization: `Bearer ${c.accessToken}` }));
      expectTrpcRateLimited(await client.payments.stkPush.mutate({ phone: "0722000001", amount: 100 }).catch((e: unknown) => e));
      expect(fake.count("stkpush")).toBe(promptsBefore);
      expect(await t.deps.db.unscoped("test").payment.count({ where: { phone: "254722000001" } })).toBe(rowsBefore);

      // Another phone is not affected.
      expect((await push(c.accessToken, "0722000002")).status).toBe(200);

      // Nor is the same phone at another shop: the count is per tenant.
      const created = await fetch(`${t.url}/api/v1/admin/tenants`, {
        method: "POST",
        headers: { authorization: `Bearer ${adminKey}`, "content-type": "application/json" },
        body: JSON.stringify({ id: "duka-limits", name: "Duka Limits" }),
      });
      expect(created.ok).toBe(true);
      const shop = new RestClient(t.url, "duka-limits");
      const shopper = await registerUser(shop);
      expect((await shop.post("/api/momo/stkpush", { phone: "0722000001", amount: 100 }, shopper.accessToken)).status).toBe(200);
    });

    it("a prompt refused for its phone uses up none of the customer's own budget", async () => {
      const user = await t.customer();
      const victim = await t.customer();
      expect((await push(victim.accessToken, "0733000001")).status).toBe(200);
      expect((await push(victim.accessToken, "0733000001")).status).toBe(200);
      // Three refused prompts to the full phone: stkpush_per_user (3 here) would be spent if they counted.
      for (let i = 0; i < 3; i++) expect((await push(user.accessToken, "0733000001")).status).toBe(429);
      expect((await push(user.accessToken, "0733000002")).status).toBe(200);
      expect((await push(user.accessToken, "0733000003")).status).toBe(200);
      expect((await push(user.accessToken, "0733000004")).status).toBe(200);
      expectRateLimited(await push(user.accessToken, "0733000005"), 60);
    });
  });

  describe("per phone per hour", () => {
    let t: DarajaApp;
    it.beforeAll(async ({ launch }) => {
      t = await launch.momo({ darajaUrl: fake.url, env: { RATE_LIMIT_RULES: "stk_prompts_per_phone_minute=100/60,stk_prompts_per_phone_hour=3/3600" } });
    });

    it("a phone gets at most 3 (here) prompts an hour; the wait is the rest of the hour", async () => {
      const user = await t.customer();
      for (let i = 0; i < 3; i++) expect((await t.rest.post("/api/momo/stkpush", { phone: "0744000001", amount: 100 }, user.accessToken)).status).toBe(200);
      const retryAfter = expectRateLimited(await t.rest.post("/api/momo/stkpush", { phone: "0744000001", amount: 100 }, user.accessToken), 3600);
      expect(retryAfter).toBeGreaterThan(60);
    });
  });
});
