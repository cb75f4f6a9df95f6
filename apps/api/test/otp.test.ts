/**
 * TOTP two-factor over REST and tRPC: setup, verify, the two-step login, recovery codes, disable, and
 * every error code of these operations (docs/two-factor.md).
 */
import { TRPCClientError } from "@trpc/client";
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { adminKey, registerUser, RestClient, trpcClient, type TestApp } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { totpAt, wrongCodeAt } from "./support/totp.js";
import { enrolledUser, otpToken, step, totpClock } from "./support/two-factor.js";

async function trpcError(promise: Promise<unknown>): Promise<{ code: string; status: number }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TRPCClientError) {
      return { code: (error.shape as { error: { code: string } }).error.code, status: (error.data as { httpStatus: number }).httpStatus };
    }
    throw error;
  }
  throw new Error("expected the call to fail");
}

const clock = totpClock();
it.override({ appOptions: { now: clock.now } });

describe.skipIf(skipThisTarget)("two-factor (TOTP)", () => {
  let t: TestApp;
  it.beforeAll(async ({ app }) => {
    t = app;
  });

  describe("POST /api/v1/auth/otp/setup", () => {
    it("returns a 32-character base32 secret, its otpauth:// URI and a PNG QR code, uncached", async () => {
      const c = new RestClient(t.url);
      const user = await registerUser(c);
      const res = await c.post("/api/v1/auth/otp/setup", undefined, user.accessToken);
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.body.success).toBe(true);
      const { secret, qr_code_url, qr_code_data_url } = res.body.data;
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);

      // otpauth://totp/<issuer>:<email>?secret=<secret>&issuer=<issuer>, parts percent-encoded.
      expect(qr_code_url).toBe(`otpauth://totp/Mteja%20Shop:${encodeURIComponent(user.email)}?secret=${secret}&issuer=Mteja%20Shop`);
      const uri = new URL(qr_code_url);
      expect(uri.protocol).toBe("otpauth:");
      expect(uri.host).toBe("totp");
      expect(decodeURIComponent(uri.pathname)).toBe(`/Mteja Shop:${user.email}`);
      expect(uri.searchParams.get("secret")).toBe(secret);
      expect(uri.searchParams.get("issuer")).toBe("Mteja Shop");

      expect(qr_code_data_url).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
      const png = Buffer.from(qr_code_data_url.split(",")[1], "base64");
      expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      expect(png.length).toBeGreaterThan(200);
    });

    it("names the tenant's display name as issuer, encoded for authenticator apps", async () => {
      const admin = new RestClient(t.url);
      const created = await admin.request("POST", "/api/v1/admin/tenants", {
        token: adminKey,
        body: { id: "duka-mama", name: "duka-mama", settings: { displayName: "Duka la Mama & Sons: Nairobi" } },
      });
      expect(created.body.success).toBe(true);
      const c = new RestClient(t.url, "duka-mama");
      const user = await registerUser(c);
      const res = await c.post("/api/v1/auth/otp/setup", undefined, user.accessToken);
      expect(res.status).toBe(200);
      const uri = new URL(res.body.data.qr_code_url);
      // The colon would split issuer from account in the wrong place, so it does not reach the label.
      expect(uri.searchParams.get("issuer")).toBe("Duka la Mama & Sons Nairobi");
      expect(decodeURIComponent(uri.pathname)).toBe(`/Duka la Mama & Sons Nairobi:${user.email}`);
      expect(res.body.data.qr_code_url).toContain("issuer=Duka%20la%20Mama%20%26%20Sons%20Nairobi");
    });

    it("replaces the pending secret when called again before verify", async () => {
      const c = new RestClient(t.url);
      const user = await registerUser(c);
      const first = (await c.post("/api/v1/auth/otp/setup", undefined, user.accessToken)).body.data.secret;
      const second = (await c.post("/api/v1/auth/otp/setup", undefined, user.accessToken)).body.data.secret;
      expect(second).not.toBe(first);
      const stale = await c.post("/api/v1/auth/otp/verify", { code: totpAt(first, clock.now()) }, user.accessToken);
      expect(stale.status).toBe(401);
      expect(stale.body.error.code).toBe("INVALID_OTP");
      const fresh = await c.post("/api/v1/auth/otp/verify", { code: totpAt(second, clock.now()) }, user.accessToken);
      expect(fresh.status).toBe(200);
    });

    it("answers 409 OTP_ALREADY_ENABLED once two-factor is on", async () => {
      const user = await enrolledUser(t.url, clock);
      const res = await user.client.post("/api/v1/auth/otp/setup", undefined, user.accessToken);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ success: false, message: expect.any(String), error: { code: "OTP_ALREADY_ENABLED" } });
    });

    it("answers 401 AUTH_REQUIRED without a bearer token", async () => {
      const res = await new RestClient(t.url).post("/api/v1/auth/otp/setup");
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("AUTH_REQUIRED");
    });
  });

  describe("POST /api/v1/auth/otp/verify", () => {
    it("enables two-factor, returns 10 distinct recovery codes once and confirms in the message", async () => {
      const c = new RestClient(t.url);
      const user = await registerUser(c);
      const secret = (await c.post("/api/v1/auth/otp/setup", undefined, user.accessToken)).body.data.secret;
      const before = await c.get("/api/v1/auth/me", user.accessToken);
      expect(before.body.data.otp_enabled).toBe(false);

      const res = await c.post("/api/v1/auth/otp/verify", { code: totpAt(secret, clock.now()) }, user.accessToken);
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.body.success).toBe(true);
      expect(res.body.message).toMatch(/two-factor authentication is now enabled/i);
      const codes: string[] = res.body.data.recovery_codes;
      expect(codes).toHaveLength(10);
      expect(new Set(codes).size).toBe(10);
      for (const code of codes) expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}$/);

      const after = await c.get("/api/v1/auth/me", user.accessToken);
      expect(after.body.data.otp_enabled).toBe(true);
    });

    it("accepts a code spaced like authenticator apps show it", async () => {
      const c = new RestClient(t.url);
      const user = await registerUser(c);
      const secret = (await c.post("/api/v1/auth/otp/setup", undefined, user.accessToken)).body.data.secret;
      const code = totpAt(secret, clock.now());
      const res = await c.post("/api/v1/auth/otp/verify", { code: ` ${code.slice(0, 3)} ${code.slice(3)} ` }, user.accessToken);
      expect(res.status).toBe(200);
    });

    it("answers 401 INVALID_OTP for a wrong code and leaves two-factor off", async () => {
      const c = new RestClient(t.url);
      const user = await registerUser(c);
      const secret = (await c.post("/api/v1/auth/otp/setup", undefined, user.accessToken)).body.data.secret;
      const res = await c.post("/api/v1/auth/otp/verify", { code: wrongCodeAt(secret, clock.now()) }, user.accessToken);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, message: expect.any(String), error: { code: "INVALID_OTP" } });
      expect((await c.get("/api/v1/auth/me", user.accessToken)).body.data.otp_enabled).toBe(false);
    });

    it("answers 409 OTP_NOT_SETUP before setup, and OTP_ALREADY_ENABLED after", async () => {
      const c = new RestClient(t.url);
      const user = await registerUser(c);
      const early = await c.post("/api/v1/auth/otp/verify", { code: "123456" }, user.accessToken);
      expect(early.status).toBe(409);
      expect(early.body.error.code).toBe("OTP_NOT_SETUP");

      const enrolled = await enrolledUser(t.url, clock);
      clock.advance(step);
      const again = await enrolled.client.post("/api/v1/auth/otp/verify", { code: totpAt(enrolled.secret, clock.now()) }, enrolled.accessToken);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe("OTP_ALREADY_ENABLED");
    });

    it("answers 422 VALIDATION_ERROR for a code that is not 6 digits", async () => {
      const c = new RestClient(t.url);
      const user = await registerUser(c);
      await c.post("/api/v1/auth/otp/setup", undefined, user.accessToken);
      for (const code of ["12345", "1234567", "abcdef", "12 34 5", ""]) {
        const res = await c.post("/api/v1/auth/otp/verify", { code }, user.accessToken);
        expect(res.status, code).toBe(422);
        expect(res.body.error.code).toBe("VALIDATION_ERROR");
        expect(res.body.error.details[0].path).toBe("code");
      }
      const missing = await c.post("/api/v1/auth/otp/verify", {}, user.accessToken);
      expect(missing.status).toBe(422);
    });

    it("answers 401 AUTH_REQUIRED without a bearer token", async () => {
      const res = await new RestClient(t.url).post("/api/v1/auth/otp/verify", { code: "123456" });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("AUTH_REQUIRED");
    });
  });

  describe("two-step login and POST /api/v1/auth/otp/validate", () => {
    it("login answers requires_otp with an otp_token, and no access token nor cookie", async () => {
      const user = await enrolledUser(t.url, clock);
      const c = new RestClient(t.url);
      const res = await c.post("/api/v1/auth/login", { email: user.email, password: user.password });
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.body.data).toEqual({ requires_otp: true, otp_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
      expect(JSON.stringify(res.body)).not.toContain("access_token");
      expect(res.cookies.refresh_token).toBeUndefined();
      expect(c.cookie).toBeUndefined();
    });

    it("exchanges the otp_token and a code for an access token and the refresh cookie", async () => {
      const user = await enrolledUser(t.url, clock);
      const token = await otpToken(t.url, user);
      clock.advance(step);
      const c = new RestClient(t.url);
      const res = await c.post("/api/v1/auth/otp/validate", { otp_token: token, code: totpAt(user.secret, clock.now()) });
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.body.success).toBe(true);
      expect(res.body.data).toEqual({
        access_token: expect.any(String),
        user: { id: user.id, name: "Wanjiku Kamau", email: user.email, role: null },
      });
      const cookie = res.cookies.refresh_token!;
      expect(cookie.attributes).toContain("HttpOnly");
      expect(cookie.attributes).toContain("Path=/api/v1/auth");

      const me = await c.get("/api/v1/auth/me", res.body.data.access_token);
      expect(me.status).toBe(200);
      expect(me.body.data.otp_enabled).toBe(true);
      const refreshed = await c.post("/api/v1/auth/refresh");
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.data.access_token).toEqual(expect.any(String));
    });

    it("accepts a recovery code in place of the code, once", async () => {
      const user = await enrolledUser(t.url, clock);
      const [first, second] = user.recoveryCodes as [string, string];
      // Case and the hyphen do not matter.
      const typed = first.replace("-", "").toLowerCase();
      const ok = await new RestClient(t.url).post("/api/v1/auth/otp/validate", { otp_token: await otpToken(t.url, user), code: typed });
      expect(ok.status).toBe(200);
      expect(ok.body.data.access_token).toEqual(expect.any(String));

      const reused = await new RestClient(t.url).post("/api/v1/auth/otp/validate", { otp_token: await otpToken(t.url, user), code: first });
      expect(reused.status).toBe(401);
      expect(reused.body.error.code).toBe("INVALID_OTP");

      const other = await new RestClient(t.url).post("/api/v1/auth/otp/validate", { otp_token: await otpToken(t.url, user), code: second });
      expect(other.status).toBe(200);
    });

    it("does not take another user's recovery code", async () => {
      const alice = await enrolledUser(t.url, clock);
      const bob = await enrolledUser(t.url, clock);
      const res = await new RestClient(t.url).post("/api/v1/auth/otp/validate", {
        otp_token: await otpToken(t.url, alice),
        code: bob.recoveryCodes[0],
      });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("INVALID_OTP");
    });

    it("answers 401 INVALID_OTP for a wrong code, then still accepts the right one", async () => {
      const user = await enrolledUser(t.url, clock);
      const token = await otpToken(t.url, user);
      clock.advance(step);
      const wrong = await new RestClient(t.url).post("/api/v1/auth/otp/validate", { otp_token: token, code: wrongCodeAt(user.secret, clock.now()) });
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get("cache-control")).toBe("no-store");
      expect(wrong.body).toEqual({ success: false, message: expect.any(String), error: { code: "INVALID_OTP" } });
      const right = await new RestClient(t.url).post("/api/v1/auth/otp/validate", { otp_token: token, code: totpAt(user.secret, clock.now()) });
      expect(right.status).toBe(200);
    });

    it("answers 401 INVALID_TOKEN for an unknown otp_token", async () => {
      const res = await new RestClient(t.url).post("/api/v1/auth/otp/validate", { otp_token: "A".repeat(43), code: "123456" });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, message: expect.any(String), error: { code: "INVALID_TOKEN" } });
    });

    it("answers 422 VALIDATION_ERROR for a code that is neither 6 digits nor a recovery code, or a missing field", async () => {
      const c = new RestClient(t.url);
      for (const body of [
        { otp_token: "x", code: "12345" },
        { otp_token: "x", code: "1234567" },
        { otp_token: "x", code: "abc" },
        { otp_token: "x" },
        { code: "123456" },
      ]) {
        const res = await c.post("/api/v1/auth/otp/validate", body);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body.error.code).toBe("VALIDATION_ERROR");
      }
    });

    it("answers 400 TENANT_REQUIRED without X-Tenant-ID", async () => {
      const c = new RestClient(t.url);
      c.tenantId = undefined;
      const res = await c.post("/api/v1/auth/otp/validate", { otp_token: "x", code: "123456" });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("TENANT_REQUIRED");
    });
  });

  describe("DELETE /api/v1/auth/otp/disable", () => {
    it("takes the password as a JSON body; wrong → 401 INVALID_CREDENTIALS, right → two-factor off", async () => {
      const user = await enrolledUser(t.url, clock);
      const wrong = await user.client.request("DELETE", "/api/v1/auth/otp/disable", { body: { password: "not the password" }, token: user.accessToken });
      expect(wrong.status).toBe(401);
      expect(wrong.body).toEqual({ success: false, message: expect.any(String), error: { code: "INVALID_CREDENTIALS" } });
      expect((await user.client.get("/api/v1/auth/me", user.accessToken)).body.data.otp_enabled).toBe(true);

      const res = await user.client.request("DELETE", "/api/v1/auth/otp/disable", { body: { password: user.password }, token: user.accessToken });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, message: expect.stringMatching(/disabled/i) });
      expect((await user.client.get("/api/v1/auth/me", user.accessToken)).body.data.otp_enabled).toBe(false);

      const row = await t.deps.db.unscoped("test").user.findUniqueOrThrow({ where: { id: user.id } });
      expect(row.otpSecretEnc).toBeNull();
      expect(row.otpPendingSecretEnc).toBeNull();
      expect(await t.deps.db.unscoped("test").recoveryCode.count({ where: { userId: user.id } })).toBe(0);

      const login = await new RestClient(t.url).post("/api/v1/auth/login", { email: user.email, password: user.password });
      expect(login.body.data.requires_otp).toBe(false);
      expect(login.body.data.access_token).toEqual(expect.any(String));
    });

    it("answers 422 without a password, 409 OTP_NOT_SETUP when two-factor is off, 401 AUTH_REQUIRED without a token", async () => {
      const c = new RestClient(t.url);
      const user = await registerUser(c);
      const missing = await c.request("DELETE", "/api/v1/auth/otp/disable", { body: {}, token: user.accessToken });
      expect(missing.status).toBe(422);
      expect(missing.body.error.code).toBe("VALIDATION_ERROR");
      const off = await c.request("DELETE", "/api/v1/auth/otp/disable", { body: { password: user.password }, token: user.accessToken });
      expect(off.status).toBe(409);
      expect(off.body.error.code).toBe("OTP_NOT_SETUP");
      const anonymous = await new RestClient(t.url).request("DELETE", "/api/v1/auth/otp/disable", { body: { password: "x" } });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.error.code).toBe("AUTH_REQUIRED");
    });

    it("can be enabled again afterwards with a new secret", async () => {
      const user = await enrolledUser(t.url, clock);
      await user.client.request("DELETE", "/api/v1/auth/otp/disable", { body: { password: user.password }, token: user.accessToken });
      const setup = await user.client.post("/api/v1/auth/otp/setup", undefined, user.accessToken);
      expect(setup.status).toBe(200);
      expect(setup.body.data.secret).not.toBe(user.secret);
      const verify = await user.client.post("/api/v1/auth/otp/verify", { code: totpAt(setup.body.data.secret, clock.now()) }, user.accessToken);
      expect(verify.status).toBe(200);
      // The old recovery codes died with the old secret.
      const old = await new RestClient(t.url).post("/api/v1/auth/otp/validate", { otp_token: await otpToken(t.url, user), code: user.recoveryCodes[0] });
      expect(old.body.error.code).toBe("INVALID_OTP");
    });
  });

  it("writes a security notice mail when two-factor is turned on and off", async () => {
    const user = await enrolledUser(t.url, clock);
    await user.client.request("DELETE", "/api/v1/auth/otp/disable", { body: { password: user.password }, token: user.accessToken });
    const kinds = (await t.deps.db.unscoped("test").mailOutbox.findMany({ where: { toAddress: user.email }, orderBy: { createdAt: "asc" } })).map((m) => m.kind);
    expect(kinds).toContain("twoFactorEnabled");
    expect(kinds).toContain("twoFactorDisabled");
  });

  it("keeps secrets, recovery codes and otp_tokens out of the database in clear", async () => {
    const c = new RestClient(t.url);
    const user = await registerUser(c);
    const secret = (await c.post("/api/v1/auth/otp/setup", undefined, user.accessToken)).body.data.secret as string;
    const pending = await t.deps.db.unscoped("test").user.findUniqueOrThrow({ where: { id: user.id } });
    expect(pending.otpPendingSecretEnc).toMatch(/^v1\./);
    expect(pending.otpPendingSecretEnc).not.toContain(secret);
    expect(Buffer.from(pending.otpPendingSecretEnc!.split(".")[3]!, "base64url").toString("latin1")).not.toContain(secret);

    const codes: string[] = (await c.post("/api/v1/auth/otp/verify", { code: totpAt(secret, clock.now()) }, user.accessToken)).body.data.recovery_codes;
    const row = await t.deps.db.unscoped("test").user.findUniqueOrThrow({ where: { id: user.id } });
    expect(row.otpSecretEnc).toMatch(/^v1\./);
    expect(row.otpSecretEnc).not.toContain(secret);
    expect(row.otpPendingSecretEnc).toBeNull();
    const dump = JSON.stringify(row, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
    expect(dump).not.toContain(secret);

    const stored = await t.deps.db.unscoped("test").recoveryCode.findMany({ where: { userId: user.id } });
    expect(stored).toHaveLength(10);
    const hashes = stored.map((r) => r.codeHash).join(" ");
    for (const code of codes) {
      expect(hashes).not.toContain(code);
      expect(hashes).not.toContain(code.replace("-", ""));
    }

    const token = await otpToken(t.url, user);
    const tokens = await t.deps.db.unscoped("test").oneTimeToken.findMany({ where: { userId: user.id, purpose: "otp_login" } });
    expect(tokens).toHaveLength(1);
    expect(tokens[0]!.tokenHash).not.toContain(token);
    expect(tokens[0]!.tokenHash).toMatch(/^[0-9a-f]{64}$/);
  });

  describe("over tRPC", () => {
    it("runs setup, verify, the two-step login and disable", async () => {
      const c = new RestClient(t.url);
      const user = await registerUser(c);
      let token = user.accessToken;
      const client = trpcClient(t.url, () => ({ authorization: `Bearer ${token}`, "x-tenant-id": "default" }));
      const anonymous = trpcClient(t.url, () => ({ "x-tenant-id": "default" }));

      expect(await trpcError(client.otp.verify.mutate({ code: "123456" }))).toEqual({ code: "OTP_NOT_SETUP", status: 409 });
      const setup = await client.otp.setup.mutate();
      expect(setup.data.secret).toMatch(/^[A-Z2-7]{32}$/);
      expect(new URL(setup.data.qr_code_url).searchParams.get("secret")).toBe(setup.data.secret);
      expect(await trpcError(client.otp.verify.mutate({ code: wrongCodeAt(setup.data.secret, clock.now()) }))).toEqual({ code: "INVALID_OTP", status: 401 });
      expect(await trpcError(client.otp.verify.mutate({ code: "12345" }))).toEqual({ code: "VALIDATION_ERROR", status: 422 });
      const verified = await client.otp.verify.mutate({ code: totpAt(setup.data.secret, clock.now()) });
      expect(verified.data.recovery_codes).toHaveLength(10);
      expect(verified.message).toMatch(/enabled/i);
      expect(await trpcError(client.otp.setup.mutate())).toEqual({ code: "OTP_ALREADY_ENABLED", status: 409 });

      const login = await anonymous.auth.login.mutate({ email: user.email, password: user.password });
      expect(login.data.requires_otp).toBe(true);
      if (!login.data.requires_otp) throw new Error("unreachable");
      const otp_token = login.data.otp_token;
      clock.advance(step);
      expect(await trpcError(anonymous.otp.validate.mutate({ otp_token, code: wrongCodeAt(setup.data.secret, clock.now()) }))).toEqual({
        code: "INVALID_OTP",
        status: 401,
      });
      const signedIn = await anonymous.otp.validate.mutate({ otp_token, code: totpAt(setup.data.secret, clock.now()) });
      expect(signedIn.data.user.email).toBe(user.email);
      expect(await trpcError(anonymous.otp.validate.mutate({ otp_token, code: totpAt(setup.data.secret, clock.now()) }))).toEqual({
        code: "INVALID_TOKEN",
        status: 401,
      });

      token = signedIn.data.access_token;
      expect(await trpcError(client.otp.disable.mutate({ password: "wrong password" }))).toEqual({ code: "INVALID_CREDENTIALS", status: 401 });
      const disabled = await client.otp.disable.mutate({ password: user.password });
      expect(disabled.message).toMatch(/disabled/i);
      expect(await trpcError(anonymous.otp.setup.mutate())).toEqual({ code: "AUTH_REQUIRED", status: 401 });
    });
  });
});
