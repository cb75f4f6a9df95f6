/**
 * Two-factor under attack: code replay, drift window, otp_token lifetime, single use, binding and
 * the five-guess budget, including concurrent guesses (docs/two-factor.md, docs/sessions.md#otp-token).
 */
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { adminKey, RestClient, type TestApp } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { totpAt, wrongCodeAt } from "./support/totp.js";
import { enrolledUser, otpToken, step, totpClock } from "./support/two-factor.js";

const clock = totpClock();
it.override({ appOptions: { now: clock.now } });

describe.skipIf(skipThisTarget)("two-factor security", () => {
  let t: TestApp;
  it.beforeAll(async ({ app }) => {
    t = app;
  });

  const validate = (otp_token: string, code: string, tenant = "default") =>
    new RestClient(t.url, tenant).post("/api/v1/auth/otp/validate", { otp_token, code });

  describe("replay protection", () => {
    it("never accepts the code that confirmed otp/verify for a sign-in", async () => {
      const user = await enrolledUser(t.url, clock);
      const verifyCode = totpAt(user.secret, clock.now());
      const res = await validate(await otpToken(t.url, user), verifyCode);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("INVALID_OTP");
      // Nor after the clock moved on, while that code is still inside the drift window.
      clock.advance(step);
      const later = await validate(await otpToken(t.url, user), verifyCode);
      expect(later.body.error.code).toBe("INVALID_OTP");
    });

    it("accepts a code once: the same code again is refused, on a fresh otp_token too", async () => {
      const user = await enrolledUser(t.url, clock);
      clock.advance(step);
      const code = totpAt(user.secret, clock.now());
      expect((await validate(await otpToken(t.url, user), code)).status).toBe(200);
      const again = await validate(await otpToken(t.url, user), code);
      expect(again.status).toBe(401);
      expect(again.body.error.code).toBe("INVALID_OTP");
      // The next step's code works.
      clock.advance(step);
      expect((await validate(await otpToken(t.url, user), totpAt(user.secret, clock.now()))).status).toBe(200);
    });

    it("refuses an older step's code once a newer one was accepted", async () => {
      const user = await enrolledUser(t.url, clock);
      clock.advance(2 * step);
      const older = totpAt(user.secret, clock.now().getTime() - step * 1000); // step S+1, still in the window
      const newer = totpAt(user.secret, clock.now()); // step S+2
      expect((await validate(await otpToken(t.url, user), newer)).status).toBe(200);
      const res = await validate(await otpToken(t.url, user), older);
      expect(res.body.error.code).toBe("INVALID_OTP");
    });

    it("lets only one of two concurrent sign-ins with the same code through", async () => {
      const user = await enrolledUser(t.url, clock);
      clock.advance(step);
      const code = totpAt(user.secret, clock.now());
      const [a, b] = await Promise.all([otpToken(t.url, user), otpToken(t.url, user)]);
      const results = await Promise.all([validate(a, code), validate(b, code)]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 401]);
    });
  });

  describe("clock drift", () => {
    it("accepts codes one step early or late, not two", async () => {
      const user = await enrolledUser(t.url, clock);
      clock.advance(10 * step);
      const now = clock.now().getTime();
      const twoLate = await validate(await otpToken(t.url, user), totpAt(user.secret, now - 2 * step * 1000));
      expect(twoLate.body.error.code).toBe("INVALID_OTP");
      const twoEarly = await validate(await otpToken(t.url, user), totpAt(user.secret, now + 2 * step * 1000));
      expect(twoEarly.body.error.code).toBe("INVALID_OTP");
      expect((await validate(await otpToken(t.url, user), totpAt(user.secret, now - step * 1000))).status).toBe(200);
      // One step ahead is newer than the one just used: accepted.
      expect((await validate(await otpToken(t.url, user), totpAt(user.secret, now + step * 1000))).status).toBe(200);
    });

    it("accepts at verify a code one step old", async () => {
      const c = new RestClient(t.url);
      const reg = await c.post("/api/v1/auth/register", { name: "Drift", email: `drift-${Date.now()}@example.com`, password: "password123" });
      const token = reg.body.data.access_token;
      const secret = (await c.post("/api/v1/auth/otp/setup", undefined, token)).body.data.secret;
      const res = await c.post("/api/v1/auth/otp/verify", { code: totpAt(secret, clock.now().getTime() - step * 1000) }, token);
      expect(res.status).toBe(200);
    });
  });

  describe("otp_token", () => {
    it("expires after 5 minutes: INVALID_TOKEN even with the right code", async () => {
      const user = await enrolledUser(t.url, clock);
      const fresh = await otpToken(t.url, user);
      const stale = await otpToken(t.url, user);
      clock.advance(4 * 60 + 50);
      expect((await validate(fresh, totpAt(user.secret, clock.now()))).status).toBe(200);
      clock.advance(11); // 5 min 1 s after issue
      const res = await validate(stale, totpAt(user.secret, clock.now().getTime() + step * 1000));
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, message: expect.any(String), error: { code: "INVALID_TOKEN" } });
    });

    it("is spent by a successful sign-in", async () => {
      const user = await enrolledUser(t.url, clock);
      const token = await otpToken(t.url, user);
      clock.advance(step);
      expect((await validate(token, totpAt(user.secret, clock.now()))).status).toBe(200);
      clock.advance(step);
      const again = await validate(token, totpAt(user.secret, clock.now()));
      expect(again.status).toBe(401);
      expect(again.body.error.code).toBe("INVALID_TOKEN");
      const byRecovery = await validate(token, user.recoveryCodes[0]!);
      expect(byRecovery.body.error.code).toBe("INVALID_TOKEN");
    });

    it("is spent by the fifth wrong code: INVALID_OTP five times, then INVALID_TOKEN even for the right code", async () => {
      const user = await enrolledUser(t.url, clock);
      const token = await otpToken(t.url, user);
      clock.advance(step);
      const wrong = wrongCodeAt(user.secret, clock.now());
      for (let i = 1; i <= 5; i++) {
        const res = await validate(token, i % 2 ? wrong : "ZZZZZ-ZZZZZ");
        expect(res.status, `attempt ${i}`).toBe(401);
        expect(res.body.error.code, `attempt ${i}`).toBe("INVALID_OTP");
      }
      const right = await validate(token, totpAt(user.secret, clock.now()));
      expect(right.status).toBe(401);
      expect(right.body.error.code).toBe("INVALID_TOKEN");
      const row = await t.deps.db.unscoped("test").oneTimeToken.findFirstOrThrow({ where: { userId: user.id, purpose: "otp_login" } });
      expect(row.attempts).toBe(5);
      expect(row.usedAt).not.toBeNull();
      // A new login gives a new token (the account's failure budget still has room: 5 of 10).
      expect((await validate(await otpToken(t.url, user), totpAt(user.secret, clock.now()))).status).toBe(200);
    });

    it("checks at most five codes however many guesses race on one token", async () => {
      const user = await enrolledUser(t.url, clock);
      const token = await otpToken(t.url, user);
      clock.advance(step);
      const wrong = wrongCodeAt(user.secret, clock.now());
      const results = await Promise.all(Array.from({ length: 8 }, () => validate(token, wrong)));
      const codes = results.map((r) => r.body.error.code);
      expect(codes.filter((c) => c === "INVALID_OTP").length).toBeLessThanOrEqual(5);
      expect(codes.every((c) => c === "INVALID_OTP" || c === "INVALID_TOKEN")).toBe(true);
      const row = await t.deps.db.unscoped("test").oneTimeToken.findFirstOrThrow({ where: { userId: user.id, purpose: "otp_login" } });
      expect(row.attempts).toBeLessThanOrEqual(5);
      expect((await validate(token, totpAt(user.secret, clock.now()))).body.error.code).toBe("INVALID_TOKEN");
    });

    it("is bound to its tenant", async () => {
      await new RestClient(t.url).request("POST", "/api/v1/admin/tenants", { token: adminKey, body: { id: "other-shop", name: "Other" } });
      const user = await enrolledUser(t.url, clock);
      const token = await otpToken(t.url, user);
      clock.advance(step);
      const res = await validate(token, totpAt(user.secret, clock.now()), "other-shop");
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("INVALID_TOKEN");
      expect((await validate(token, totpAt(user.secret, clock.now()))).status).toBe(200);
    });

    it("dies when two-factor is disabled before the second step", async () => {
      const user = await enrolledUser(t.url, clock);
      const token = await otpToken(t.url, user);
      await user.client.request("DELETE", "/api/v1/auth/otp/disable", { body: { password: user.password }, token: user.accessToken });
      clock.advance(step);
      const res = await validate(token, totpAt(user.secret, clock.now()));
      expect(res.body.error.code).toBe("INVALID_TOKEN");
    });

    it("is not an access token", async () => {
      const user = await enrolledUser(t.url, clock);
      const token = await otpToken(t.url, user);
      const me = await new RestClient(t.url).get("/api/v1/auth/me", token);
      expect(me.status).toBe(401);
      expect(me.body.error.code).toBe("INVALID_TOKEN");
    });
  });

  it("counts wrong codes as failed sign-ins of the account: a known password does not buy endless guesses", async () => {
    const user = await enrolledUser(t.url, clock);
    clock.advance(step);
    const wrong = wrongCodeAt(user.secret, clock.now());
    // Two otp_tokens, five wrong codes each: ten failures for the account.
    for (let round = 0; round < 2; round++) {
      const token = await otpToken(t.url, user);
      for (let i = 0; i < 5; i++) expect((await validate(token, wrong)).body.error.code).toBe("INVALID_OTP");
    }
    const login = await new RestClient(t.url).post("/api/v1/auth/login", { email: user.email, password: user.password });
    expect(login.status).toBe(429);
    expect(login.body.error.code).toBe("RATE_LIMITED");
    expect(Number(login.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
