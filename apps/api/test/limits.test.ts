/**
 * Abuse limits (docs/limits.md) tripping and recovering, in memory, over REST and tRPC.
 * The windows are shortened with RATE_LIMIT_RULES so recovery takes seconds; a trusted proxy
 * (TRUST_PROXY=127.0.0.1) lets each test present client addresses of its own.
 */
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { createLimiter, limitRules, parseLimitRules } from "../src/runtime/limiter.js";
import { readSettings } from "../src/settings.js";
import { registerUser, RestClient, uniqueEmail, type TestApp } from "./support/app.js";
import { skipThisTarget, target } from "./support/database.js";
import { IpClient, trpcMutation, uniqueIp, waitRetryAfter } from "./support/limits.js";

// The limits count in memory or in Redis, never in the database: run once, on the embedded one (CI time).
const skipHere = skipThisTarget || target !== "embedded";

async function resetToken(t: TestApp, email: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const mail = await t.deps.db.unscoped("test").mailOutbox.findFirst({ where: { toAddress: email, kind: "resetPassword" } });
    const token = mail && /token=([0-9a-f]{64})/.exec(mail.textBody)?.[1];
    if (token) return token;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("no reset mail");
}

describe.skipIf(skipHere)("abuse limits", () => {
  let t: TestApp;
  it.beforeAll(async ({ launch }) => {
    t = await launch.app({
      TRUST_PROXY: "127.0.0.1",
      RATE_LIMIT_RULES: "login_failures_per_account=3/3,login_failures_per_ip=4/3,auth_requests_per_ip=9/3",
    });
  });

  const as = (ip: string) => new IpClient(t.url, ip);

  describe("failed logins per account", () => {
    it("locks the account after its failures whatever the IP, with Retry-After, then lets it in again", async () => {
      const user = await registerUser(as(uniqueIp()));
      for (let i = 0; i < 3; i++) {
        const res = await as(uniqueIp()).post("/api/v1/auth/login", { email: user.email, password: "wrong password" });
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe("INVALID_CREDENTIALS");
      }
      // The right password, from yet another address: still locked.
      const locked = await as(uniqueIp()).post("/api/v1/auth/login", { email: user.email, password: user.password });
      expect(locked.status).toBe(429);
      expect(locked.body).toEqual({ success: false, message: expect.any(String), error: { code: "RATE_LIMITED" } });
      const retryAfter = Number(locked.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(3);

      // Same over tRPC, Retry-After included.
      const ip = uniqueIp();
      const trpc = await trpcMutation(t.url, "auth.login", { email: user.email, password: user.password }, { "x-forwarded-for": ip });
      expect(trpc.status).toBe(429);
      expect(trpc.code).toBe("RATE_LIMITED");
      expect(Number(trpc.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);

      // Password reset is not blocked by the lock.
      const forgot = await as(uniqueIp()).post("/api/v1/auth/forgot-password", { email: user.email });
      expect(forgot.status).toBe(200);

      await waitRetryAfter(locked);
      const back = await as(uniqueIp()).post("/api/v1/auth/login", { email: user.email, password: user.password });
      expect(back.status).toBe(200);
    });

    it("limits unknown emails exactly like known ones", async () => {
      const email = uniqueEmail("ghost");
      for (let i = 0; i < 3; i++) expect((await as(uniqueIp()).post("/api/v1/auth/login", { email, password: "x" })).status).toBe(401);
      const res = await as(uniqueIp()).post("/api/v1/auth/login", { email: email.toUpperCase(), password: "x" });
      expect(res.status).toBe(429);
    });

    it("forgets the failures after a successful login", async () => {
      const user = await registerUser(as(uniqueIp()));
      const login = (password: string) => as(uniqueIp()).post("/api/v1/auth/login", { email: user.email, password });
      expect((await login("wrong 1")).status).toBe(401);
      expect((await login("wrong 2")).status).toBe(401);
      expect((await login(user.password)).status).toBe(200);
      expect((await login("wrong 3")).status).toBe(401);
      expect((await login("wrong 4")).status).toBe(401);
      expect((await login(user.password)).status).toBe(200);
    });

    it("is lifted by a password reset", async () => {
      const user = await registerUser(as(uniqueIp()));
      for (let i = 0; i < 3; i++) await as(uniqueIp()).post("/api/v1/auth/login", { email: user.email, password: "wrong password" });
      expect((await as(uniqueIp()).post("/api/v1/auth/login", { email: user.email, password: user.password })).status).toBe(429);

      expect((await as(uniqueIp()).post("/api/v1/auth/forgot-password", { email: user.email })).status).toBe(200);
      const token = await resetToken(t, user.email);
      const reset = await as(uniqueIp()).post("/api/v1/auth/reset-password", { token, email: user.email, new_password: "a brand new password" });
      expect(reset.status).toBe(200);
      const login = await as(uniqueIp()).post("/api/v1/auth/login", { email: user.email, password: "a brand new password" });
      expect(login.status).toBe(200);
    });

    it("counts wrong passwords at otp/disable too (an access token must not become a password oracle)", async () => {
      const client = as(uniqueIp());
      const user = await registerUser(client);
      for (let i = 0; i < 3; i++) {
        const res = await client.request("DELETE", "/api/v1/auth/otp/disable", { body: { password: "guess" }, token: user.accessToken });
        expect(res.body.error.code).toBe("INVALID_CREDENTIALS");
      }
      const res = await client.request("DELETE", "/api/v1/auth/otp/disable", { body: { password: "guess" }, token: user.accessToken });
      expect(res.status).toBe(429);
      expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
    });
    it("counts wrong current passwords at PUT me/password too, so a stolen access token cannot test passwords", async () => {
      const client = as(uniqueIp());
      const user = await registerUser(client);
      const change = (current: string) =>
        client.put("/api/v1/auth/me/password", { current_password: current, new_password: "another long password" }, user.accessToken);
      for (let i = 0; i < 3; i++) {
        const res = await change(`guess number ${i}`);
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe("INVALID_CREDENTIALS");
      }
      // Even the right password is refused now. A signed-in proof counts per user, apart from the
      // email's sign-ins: the token's guesses do not lock the owner out of signing in.
      const blocked = await change(user.password);
      expect(blocked.status).toBe(429);
      expect(blocked.body.error.code).toBe("RATE_LIMITED");
      expect(blocked.headers.get("retry-after")).toMatch(/^\d+$/);
      const login = await as(uniqueIp()).post("/api/v1/auth/login", { email: user.email, password: user.password });
      expect(login.status).toBe(200);

      await waitRetryAfter(blocked);
      expect((await change(user.password)).status).toBe(200);
    });
  });

  describe("failed logins per IP", () => {
    it("blocks an address after its failures across accounts; right passwords do not count; other addresses go on", async () => {
      const ip = uniqueIp();
      const user = await registerUser(as(uniqueIp()));
      // Right passwords from the address are not failures, however many.
      for (let i = 0; i < 5; i++) expect((await as(ip).post("/api/v1/auth/login", { email: user.email, password: user.password })).status).toBe(200);
      for (let i = 0; i < 4; i++) {
        expect((await as(ip).post("/api/v1/auth/login", { email: uniqueEmail("spray"), password: "123456" })).status).toBe(401);
      }
      const blocked = await as(ip).post("/api/v1/auth/login", { email: user.email, password: user.password });
      expect(blocked.status).toBe(429);
      expect(blocked.headers.get("retry-after")).toMatch(/^\d+$/);
      const trpc = await trpcMutation(t.url, "auth.login", { email: user.email, password: user.password }, { "x-forwarded-for": ip });
      expect(trpc.status).toBe(429);
      expect(trpc.headers.get("retry-after")).toMatch(/^\d+$/);

      // Attempts the blocked address keeps making are refused unchecked: they do not lock the account.
      for (let i = 0; i < 4; i++) {
        expect((await as(ip).post("/api/v1/auth/login", { email: user.email, password: "wrong" })).status).toBe(429);
      }
      expect((await as(uniqueIp()).post("/api/v1/auth/login", { email: user.email, password: user.password })).status).toBe(200);
      await waitRetryAfter(blocked);
      expect((await as(ip).post("/api/v1/auth/login", { email: user.email, password: user.password })).status).toBe(200);
    });
  });

  describe("requests per IP on the unauthenticated auth operations", () => {
    it("counts register, login, otp/validate, refresh, forgot/reset-password and verify-email on both transports", async () => {
      const ip = uniqueIp();
      const c = as(ip);
      const viaTrpc = (procedure: string, input: unknown) => trpcMutation(t.url, procedure, input, { "x-forwarded-for": ip });
      const statuses = [
        (await c.post("/api/v1/auth/register", { name: "N", email: uniqueEmail(), password: "password123" })).status,
        (await viaTrpc("auth.login", { email: uniqueEmail(), password: "x" })).status,
        (await c.post("/api/v1/auth/otp/validate", { otp_token: "x", code: "123456" })).status,
        (await viaTrpc("auth.refresh", undefined)).status,
        (await c.post("/api/v1/auth/forgot-password", { email: uniqueEmail() })).status,
        (await c.post("/api/v1/auth/reset-password", { token: "ab", email: uniqueEmail(), new_password: "password123" })).status,
        (await viaTrpc("auth.verifyEmail", { token: "ab", email: uniqueEmail() })).status,
        (await c.post("/api/v1/auth/verify-email", {})).status,
        (await c.post("/api/v1/auth/refresh")).status,
      ];
      expect(statuses).not.toContain(429);

      const limited = await c.post("/api/v1/auth/login", { email: uniqueEmail(), password: "x" });
      expect(limited.status).toBe(429);
      expect(limited.body.error.code).toBe("RATE_LIMITED");
      expect(limited.headers.get("retry-after")).toMatch(/^[1-3]$/);
      const trpc = await viaTrpc("otp.validate", { otp_token: "x", code: "123456" });
      expect(trpc.status).toBe(429);
      expect(trpc.headers.get("retry-after")).toMatch(/^[1-3]$/);

      await waitRetryAfter(limited);
      expect((await c.post("/api/v1/auth/login", { email: uniqueEmail(), password: "x" })).status).toBe(401);
    });

    it("never limits authenticated calls (nor logout) by IP", async () => {
      const ip = uniqueIp();
      const user = await registerUser(as(uniqueIp()));
      const c = as(ip);
      for (let i = 0; i < 9; i++) await c.post("/api/v1/auth/forgot-password", { email: uniqueEmail() });
      expect((await c.post("/api/v1/auth/forgot-password", { email: uniqueEmail() })).status).toBe(429);
      for (let i = 0; i < 12; i++) {
        expect((await c.get("/api/v1/auth/me", user.accessToken)).status).toBe(200);
      }
      expect((await c.put("/api/v1/auth/me", { name: "Still Here" }, user.accessToken)).status).toBe(200);
      expect((await c.post("/api/v1/auth/otp/setup", undefined, user.accessToken)).status).toBe(200);
      expect((await c.post("/api/v1/auth/logout")).status).toBe(200);
      // Another address is not affected.
      expect((await as(uniqueIp()).post("/api/v1/auth/forgot-password", { email: uniqueEmail() })).status).toBe(200);
    });

    it("counts every call of a tRPC batch", async () => {
      const ip = uniqueIp();
      const calls = 10;
      const paths = Array.from({ length: calls }, () => "auth.forgotPassword").join(",");
      const input = Object.fromEntries(Array.from({ length: calls }, (_, i) => [String(i), { email: uniqueEmail() }]));
      const response = await fetch(`${t.url}/trpc/${paths}?batch=1`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-tenant-id": "default", "x-forwarded-for": ip },
        body: JSON.stringify(input),
      });
      const results = (await response.json()) as Array<{ result?: unknown; error?: { error: { code: string } } }>;
      expect(results).toHaveLength(calls);
      expect(results.filter((r) => r.result).length).toBe(9);
      expect(results[9]!.error!.error.code).toBe("RATE_LIMITED");
    });
  });
});

describe.skipIf(skipHere)("RATE_LIMITS=off", () => {
  let t: TestApp;
  it.beforeAll(async ({ launch }) => {
    t = await launch.app({ RATE_LIMITS: "off", RATE_LIMIT_RULES: "login_failures_per_account=1/60,login_failures_per_ip=1/60,auth_requests_per_ip=1/60" });
  });

  it("turns every limit off", async () => {
    const c = new RestClient(t.url);
    const user = await registerUser(c);
    for (let i = 0; i < 5; i++) expect((await c.post("/api/v1/auth/login", { email: user.email, password: "wrong" })).status).toBe(401);
    expect((await c.post("/api/v1/auth/login", { email: user.email, password: user.password })).status).toBe(200);
  });
});

describe.skipIf(skipHere)("default limits", () => {
  let t: TestApp;
  it.beforeAll(async ({ launch }) => {
    t = await launch.app();
  });

  it("are the numbers of docs/limits.md", () => {
    expect(limitRules).toEqual({
      login_failures_per_account: { points: 10, durationSeconds: 900 },
      login_failures_per_ip: { points: 100, durationSeconds: 60 },
      auth_requests_per_ip: { points: 1200, durationSeconds: 60 },
      mails_per_account: { points: 5, durationSeconds: 3600 },
      stkpush_per_user: { points: 10, durationSeconds: 60 },
      stkquery_per_user: { points: 30, durationSeconds: 60 },
      stk_prompts_per_phone_minute: { points: 3, durationSeconds: 60 },
      stk_prompts_per_phone_hour: { points: 10, durationSeconds: 3600 },
      unauthenticated_callbacks_stored: { points: 60, durationSeconds: 60 },
      unmatched_callbacks_stored_per_tenant: { points: 600, durationSeconds: 60 },
      phone_codes_per_tenant: { points: 600, durationSeconds: 3600 },
      sms_texts_per_ip: { points: 60, durationSeconds: 3600 },
      sms_texts_per_account: { points: 10, durationSeconds: 3600 },
      sms_texts_signed_in_per_tenant: { points: 300, durationSeconds: 3600 },
      sms_texts_signed_in_per_ip: { points: 60, durationSeconds: 3600 },
      sms_texts_platform: { points: 5000, durationSeconds: 3600 },
      email_changes_per_account: { points: 5, durationSeconds: 3600 },
      email_change_mails_per_address: { points: 5, durationSeconds: 3600 },
      webhook_redeliveries_per_event: { points: 10, durationSeconds: 3600 },
      security_notices_per_account: { points: 5, durationSeconds: 3600 },
      two_factor_enables_per_account: { points: 3, durationSeconds: 3600 },
      guests_per_ip: { points: 300, durationSeconds: 3600 },
    });
    expect(readSettings({}).RATE_LIMIT_RULES).toEqual({});
  });

  it("leave a busy test suite from one address alone", async () => {
    for (let i = 0; i < 20; i++) {
      const c = new RestClient(t.url);
      const user = await registerUser(c);
      expect((await c.post("/api/v1/auth/login", { email: user.email, password: "typo in password" })).status).toBe(401);
      expect((await c.post("/api/v1/auth/login", { email: user.email, password: user.password })).status).toBe(200);
      expect((await c.post("/api/v1/auth/refresh")).status).toBe(200);
    }
  });

  it("include stkpush: 10 per user per minute", async () => {
    const limiter = createLimiter();
    for (let i = 0; i < 10; i++) expect((await limiter.consume("stkpush_per_user", "shop:user-1")).allowed).toBe(true);
    const refused = await limiter.consume("stkpush_per_user", "shop:user-1");
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfter).toBeGreaterThan(0);
    expect(refused.retryAfter).toBeLessThanOrEqual(60);
    expect((await limiter.consume("stkpush_per_user", "shop:user-2")).allowed).toBe(true);
  });
});

describe.skipIf(skipHere)("the limiter", () => {
  it("compares a count with a shop's own number where one is given, higher or lower than the rule's", async () => {
    const limiter = createLimiter({ rules: { phone_codes_per_tenant: { points: 2, durationSeconds: 60 } } });
    for (let i = 0; i < 3; i++) expect((await limiter.consume("phone_codes_per_tenant", "big-shop", 3)).allowed).toBe(true);
    expect((await limiter.peek("phone_codes_per_tenant", "big-shop", 3)).allowed).toBe(false);
    expect((await limiter.consume("phone_codes_per_tenant", "big-shop", 3)).allowed).toBe(false);
    expect((await limiter.consume("phone_codes_per_tenant", "small-shop", 1)).allowed).toBe(true);
    expect((await limiter.peek("phone_codes_per_tenant", "small-shop")).allowed).toBe(true);
    expect((await limiter.consume("phone_codes_per_tenant", "small-shop", 1)).allowed).toBe(false);
  });

  it("tallies keys in one window aligned to the service clock, so their counts compare, and starts afresh in the next", async () => {
    let now = Date.UTC(2026, 10, 28, 13, 0, 0);
    const limiter = createLimiter({ rules: { sms_texts_platform: { points: 4, durationSeconds: 3600 } }, nowMs: () => now });
    await limiter.tally("sms_texts_platform", ["platform", "shop:a"], 1);
    now += 59 * 60 * 1000;
    const second = await limiter.tally("sms_texts_platform", ["platform", "shop:b"], 1);
    expect(second).toEqual({ counts: [2, 1], limit: 4, retryAfter: 60 });
    expect((await limiter.tally("sms_texts_platform", ["platform", "shop:a", "shop:b"], 0)).counts).toEqual([2, 1, 1]);
    expect((await limiter.tally("sms_texts_platform", ["platform", "shop:b"], -1)).counts).toEqual([1, 0]);
    now += 60 * 1000;
    const next = await limiter.tally("sms_texts_platform", ["platform", "shop:a"], 0);
    expect(next).toEqual({ counts: [0, 0], limit: 4, retryAfter: 3600 });
  });
});

describe("RATE_LIMIT_RULES", () => {
  it("parses rule=points/seconds overrides and rejects anything else, naming the setting", () => {
    expect(parseLimitRules("auth_requests_per_ip=3000/60, login_failures_per_account=5/900")).toEqual({
      auth_requests_per_ip: { points: 3000, durationSeconds: 60 },
      login_failures_per_account: { points: 5, durationSeconds: 900 },
    });
    expect(parseLimitRules("")).toEqual({});
    expect(parseLimitRules("nope=1/1")).toMatch(/unknown rule/);
    expect(parseLimitRules("auth_requests_per_ip=0/60")).toMatch(/at least 1/);
    expect(parseLimitRules("auth_requests_per_ip=lots")).toMatch(/points\/seconds/);
    expect(() => readSettings({ RATE_LIMIT_RULES: "auth_requests_per_ip=many" })).toThrow(/RATE_LIMIT_RULES/);
    expect(() => readSettings({ REDIS_KEY_PREFIX: "has spaces" })).toThrow(/REDIS_KEY_PREFIX/);
  });

  it("keeps the signed-in share of the text budget at half the budget, in its window, unless it is given", () => {
    expect(createLimiter().numberOf("sms_texts_signed_in_per_tenant")).toBe(300);
    expect(createLimiter({ rules: { phone_codes_per_tenant: { points: 2001, durationSeconds: 600 } } }).numberOf("sms_texts_signed_in_per_tenant")).toBe(1000);
    const given = parseLimitRules("phone_codes_per_tenant=2000/600,sms_texts_signed_in_per_tenant=1500/600");
    expect(typeof given === "object" && createLimiter({ rules: given }).numberOf("sms_texts_signed_in_per_tenant")).toBe(1500);
    // It is a number compared with the budget's count: a window of its own would mean nothing.
    expect(parseLimitRules("sms_texts_signed_in_per_tenant=100/60")).toMatch(/same seconds \(3600\)/);
    expect(parseLimitRules("phone_codes_per_tenant=10/60,sms_texts_signed_in_per_tenant=4/3600")).toMatch(/same seconds \(60\)/);
  });
});
